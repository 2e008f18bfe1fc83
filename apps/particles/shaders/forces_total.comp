// SPDX-License-Identifier: MIT
#version 460
// After forces.comp's Newton variant: each slot's fixed-point sum becomes its force (plus gravity, as
// the gather variants add it), and the sum is zeroed for the next step's atomics. The sums are zero
// whenever no Newton pass is pending, so reordering the slots need not move them.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"
#include "fixed_point.glsl"

void main() {
  const uint i = item_index();
  if (i >= c_n) return;
  const uint k = 6u * i;
  const vec3 f = vec3(fixed_value(uvec2(b_accum[k], b_accum[k + 1u])), fixed_value(uvec2(b_accum[k + 2u], b_accum[k + 3u])),
                      fixed_value(uvec2(b_accum[k + 4u], b_accum[k + 5u])));
  for (uint w = 0; w < 6u; ++w) b_accum[k + w] = 0u;
  precise const float fz = f.z - mass_of(b_pos[i].w) * c_gravity;
  b_force[i] = vec4(f.xy, fz, 0.0);
}
