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
  precise vec3 d = b_pos[i].xyz - Vec4sIn(p.list_origin).v[i].xyz;
  d.x -= c_lx * roundEven(d.x / c_lx);
  d.y -= c_ly * roundEven(d.y / c_ly);
  if (c_periodic_z != 0u) d.z -= c_lz * roundEven(d.z / c_lz);
  precise const float d2 = dot(d, d);
  if (!(d2 <= c_moved2)) atomicOr(Uints(p.list_control).u[DPD_LIST_MOVED], 1u);
}
