// SPDX-License-Identifier: MIT
#version 460
// Cell id of every particle: x + nx (y + ny z) on the grid of edge >= r_c, the bucket id vksort's
// lists are built from. A particle outside the box (or with a NaN coordinate) gets DPD_NULL, an id out
// of range that vksort's lists report; in cell order (no lists) its id goes to starts[cells + 1]. The
// host turns either into an error.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

void main() {
  const uint i = item_index();
  if (i >= c_n) return;
  const vec3 x = b_pos[i].xyz;
  const bool inside = x.x >= 0.0 && x.x <= c_lx && x.y >= 0.0 && x.y <= c_ly && x.z >= 0.0 && x.z <= c_lz;
  uint id = DPD_NULL;
  if (inside) {
    id = cell_coord(x.x, c_cell_x, c_nx) +
         c_nx * (cell_coord(x.y, c_cell_y, c_ny) + c_ny * cell_coord(x.z, c_cell_z, c_nz));
  }
  b_cell[i] = id;
  // The Verlet list's rebuild sorts the cell ids in place with the slots as values.
  if ((pc.flags & DPD_PUSH_SLOTS) != 0u) b_perm[i] = i;
  if (id == DPD_NULL && (pc.flags & DPD_PUSH_CELL_ORDER) != 0u) atomicMin(b_starts[c_nx * c_ny * c_nz + 1u], b_ids[i]);
}
