// SPDX-License-Identifier: MIT
#version 460
// Test kernel: Theta for `count` pairs of slots read from pc.pairs, written as floats to pc.noise, with
// the same function the force kernel uses (keyed by the particle ids in those slots).
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

void main() {
  Params p = Params(pc.params);
  const uint k = item_index();
  if (k >= pc.count) return;
  const uvec2 ij = Uvec2s(pc.pairs).u[k];
  float si = 0.0, sj = 0.0;
  if (c_rng == DPD_RNG_PAPER) {
    si = b_vel[ij.x].w;
    sj = b_vel[ij.y].w;
  }
  Floats(pc.noise).f[k] = pair_noise(p.seed, c_rng, pc.step, b_ids[ij.x], b_ids[ij.y], si, sj);
}
