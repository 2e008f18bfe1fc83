// SPDX-License-Identifier: MIT
#version 460
// First half of a step: half kick with the old force, drift, boundaries, and the velocity the next
// force evaluation uses for the dissipative term.
//   velocity Verlet (Groot & Warren, lambda = 1/2): v(n+1/2) = v(n) + dt/2 F(n)/m; r(n+1) = r(n) + dt v(n+1/2)
//   leap-frog / Adams-Bashforth (seed 002, 4.1): the same positions; the dissipative force at n+1
//   sees v(n+1/2) + dt/2 F(n)/m, the Adams-Bashforth extrapolation of the velocity (lambda = 1).
// kick.comp completes v(n+1) = v(n+1/2) + dt/2 F(n+1)/m, the paper's p(n) = (p(n-1/2) + p(n+1/2)) / 2.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

// Periodic wrap into [0, L]: floor keeps the result in range for any float input.
float wrap(float x, float l) {
  precise const float w = x - l * floor(x / l);
  return w;
}

void main() {
  Params p = Params(pc.params);
  const uint i = item_index();
  if (i >= c_n) return;
  const vec4 xs = b_pos[i];
  const vec4 vs = b_vel[i];
  precise const float inv_m = 1.0 / mass_of(xs.w);
  precise const vec3 a = b_force[i].xyz * inv_m;
  precise vec3 v = vs.xyz + (0.5 * c_dt) * a;
  precise vec3 x = xs.xyz + c_dt * v;
  // Periodic images crossed, kept by particle id (so reordering slots leaves them alone) for the
  // unwrapped positions of the mean-square displacement.
  ivec3 crossed = ivec3(floor(x.x / c_lx), floor(x.y / c_ly), 0);
  x.x = wrap(x.x, c_lx);
  x.y = wrap(x.y, c_ly);
  if (c_periodic_z != 0u) {
    crossed.z = int(floor(x.z / c_lz));
    x.z = wrap(x.z, c_lz);
  } else if (x.z < 0.0) {  // reflecting walls: mirror the position, reverse v_z
    x.z = -x.z;
    v.z = -v.z;
  } else if (x.z > c_lz) {
    x.z = 2.0 * c_lz - x.z;
    v.z = -v.z;
  }
  const float state = c_rng == DPD_RNG_PAPER ? paper_next(vs.w) : vs.w;
  if (crossed != ivec3(0)) {
    Ivec4s image = Ivec4s(p.image);
    const uint id = b_ids[i];
    image.v[id] = image.v[id] + ivec4(crossed, 0);
  }
  b_pos[i] = vec4(x, xs.w);
  b_vel[i] = vec4(v, state);
  precise const vec3 vtilde = v + (c_extrapolate * c_dt) * a;
  b_vtilde[i] = vec4(vtilde, 0.0);
}
