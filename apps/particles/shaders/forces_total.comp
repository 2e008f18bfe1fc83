// SPDX-License-Identifier: MIT
#version 460
// After forces.comp's Newton variant: each slot's fixed-point sum becomes its force (plus gravity, as
// the gather variants add it), and the sum is zeroed for the next step's atomics. The sums are zero
// whenever no Newton pass is pending, so reordering the slots need not move them.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "fixed_point.glsl"

void main() {
  Params p = Params(pc.params);
  const uint i = item_index();
  if (i >= c_n) return;
  Uints acc = Uints(p.accum);
  const uint k = 6u * i;
  const vec3 f = vec3(fixed_value(uvec2(acc.u[k], acc.u[k + 1u])), fixed_value(uvec2(acc.u[k + 2u], acc.u[k + 3u])),
                      fixed_value(uvec2(acc.u[k + 4u], acc.u[k + 5u])));
  for (uint w = 0; w < 6u; ++w) acc.u[k + w] = 0u;
  const float m = p.mass[uint(Vec4sIn(pc.pos).v[i].w)];
  Vec4s(pc.force).v[i] = vec4(f.xy, f.z - m * p.gravity, 0.0);
}
