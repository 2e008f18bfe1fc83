// SPDX-License-Identifier: MIT
#version 460
// The Verlet list's validity, every step after the drift: a slot whose particle has moved more than
// skin / 2 (minimum image: positions wrap) since the list was built sets the MOVED word. While no
// particle has, every pair now within r_c was within r_c + skin at the build, so it is listed. A
// position that is NaN also sets it: the rebuild's cell pass then reports the particle as outside.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

void main() {
  Params p = Params(pc.params);
  const uint i = item_index();
  if (i >= c_n) return;
  vec3 d = b_pos[i].xyz - Vec4sIn(p.list_origin).v[i].xyz;
  d.x -= p.lx * roundEven(d.x / p.lx);
  d.y -= p.ly * roundEven(d.y / p.ly);
  if (c_periodic_z != 0u) d.z -= p.lz * roundEven(d.z / p.lz);
  if (!(dot(d, d) <= p.moved2)) atomicOr(Uints(p.list_control).u[DPD_LIST_MOVED], 1u);
}
