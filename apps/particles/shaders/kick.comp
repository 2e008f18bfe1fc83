// SPDX-License-Identifier: MIT
#version 460
// Second half kick of velocity Verlet: v(n+1) = v(n+1/2) + dt/2 F(n+1)/m (see move.comp).
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

void main() {
  const uint i = item_index();
  if (i >= c_n) return;
  const vec4 vs = b_vel[i];
  precise const float inv_m = 1.0 / mass_of(b_pos[i].w);
  precise const vec3 v = vs.xyz + (0.5 * c_dt * inv_m) * b_force[i].xyz;
  b_vel[i] = vec4(v, vs.w);
}
