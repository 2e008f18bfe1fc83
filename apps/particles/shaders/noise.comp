#version 460
// Test kernel: Theta for `count` (i, j) pairs read from pc.pairs, written as floats to pc.aux, with the
// same function the force kernel uses.
#include "dpd.glsl"

void main() {
  Params p = Params(pc.params);
  const uint k = item_index();
  if (k >= pc.count) return;
  const uvec2 ij = Uvec2s(pc.pairs).u[k];
  float si = 0.0, sj = 0.0;
  if (p.rng == DPD_RNG_PAPER) {
    si = Vec4s(pc.vel).v[ij.x].w;
    sj = Vec4s(pc.vel).v[ij.y].w;
  }
  Floats(pc.aux).f[k] = pair_noise(p.seed, p.rng, pc.step, ij.x, ij.y, si, sj);
}
