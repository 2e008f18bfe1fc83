// SPDX-License-Identifier: MIT
#version 460
// Second half kick of velocity Verlet: v(n+1) = v(n+1/2) + dt/2 F(n+1)/m (see move.comp).
#include "dpd.glsl"
#include "params_constants.glsl"

void main() {
  Params p = Params(pc.params);
  const uint i = item_index();
  if (i >= c_n) return;
  Vec4s vel = Vec4s(pc.vel);
  const vec4 vs = vel.v[i];
  const float inv_m = 1.0 / p.mass[uint(Vec4s(pc.pos).v[i].w)];
  vel.v[i] = vec4(vs.xyz + (0.5 * p.dt * inv_m) * Vec4s(pc.force).v[i].xyz, vs.w);
}
