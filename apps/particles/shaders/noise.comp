// SPDX-License-Identifier: MIT
#version 460
// Test kernel: Theta for `count` pairs of slots read from pc.pairs, written as floats to pc.aux, with
// the same function the force kernel uses (keyed by the particle ids in those slots).
#include "dpd.glsl"
#include "params_constants.glsl"

void main() {
  Params p = Params(pc.params);
  const uint k = item_index();
  if (k >= pc.count) return;
  const uvec2 ij = Uvec2s(pc.pairs).u[k];
  float si = 0.0, sj = 0.0;
  if (c_rng == DPD_RNG_PAPER) {
    si = Vec4s(pc.vel).v[ij.x].w;
    sj = Vec4s(pc.vel).v[ij.y].w;
  }
  Floats(pc.aux).f[k] = pair_noise(p.seed, c_rng, pc.step, Uints(pc.ids).u[ij.x], Uints(pc.ids).u[ij.y], si, sj);
}
