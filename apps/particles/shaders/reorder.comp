// SPDX-License-Identifier: MIT
#version 460
// Spatial reordering: new slot k takes the particle from old slot perm[k], where perm comes from a
// stable sort of the slots by cell id (vksort's radix sort). Particles near each other in space then
// sit near each other in memory, so the force kernel's gathers hit the caches. Writes to the staging
// buffers DPD_BIND_TMP_* (positions, velocities, dissipative velocities, ids); the host copies them
// back. Not the forces: move.comp has used them, and the step computes new ones. The physics does not change: noise is keyed by ids and forces are summed exactly.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "packed_position.glsl"
#include "dpd_bindings.glsl"

void main() {
  const uint n = c_n;
  const uint k = item_index();
  if (k >= n) return;
  const uint s = b_perm[k];
  const vec4 x = b_pos[s];
  b_tmp_pos[k] = x;
  // In cell order the force walk reads the positions packed (cell_coord's cells, as cells.comp's).
  b_packed[k] = pack_position(x.xyz, cell_coord(x.y, c_cell_y, c_ny), cell_coord(x.z, c_cell_z, c_nz), c_lx,
                              c_cell_y, c_cell_z);
  b_tmp_vel[k] = b_vel[s];
  b_tmp_vtilde[k] = b_vtilde[s];
  b_tmp_ids[k] = b_ids[s];
}
