// SPDX-License-Identifier: MIT
#version 460
// Spatial reordering: new slot k takes the particle from old slot perm[k], where perm comes from a
// stable sort of the slots by cell id (vksort's radix sort). Particles near each other in space then
// sit near each other in memory, so the force kernel's gathers hit the caches. Writes to pc.tmp
// (positions, velocities, dissipative velocities, forces: n vec4 each, then n ids); the host copies
// them back. The physics does not change: noise is keyed by ids and forces are summed exactly.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "packed_position.glsl"

void main() {
  Params p = Params(pc.params);
  const uint n = c_n;
  const uint k = item_index();
  if (k >= n) return;
  const uint s = Uints(pc.perm).u[k];
  Vec4s dst = Vec4s(pc.tmp);
  const vec4 x = Vec4s(pc.pos).v[s];
  dst.v[k] = x;
  // In cell order the force walk reads the positions packed (cell_coord's cells, as cells.comp's).
  Uints(p.packed).u[k] = pack_position(x.xyz, cell_coord(x.y, p.cell_y, c_ny), cell_coord(x.z, p.cell_z, c_nz), p.lx,
                                       p.cell_y, p.cell_z);
  dst.v[n + k] = Vec4s(pc.vel).v[s];
  dst.v[2u * n + k] = Vec4s(pc.vtilde).v[s];
  dst.v[3u * n + k] = Vec4s(pc.force).v[s];
  Uints(pc.tmp).u[16u * n + k] = Uints(pc.ids).u[s];
}
