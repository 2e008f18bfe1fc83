// SPDX-License-Identifier: MIT
// A slot's position in one 32-bit word, for the force walk's distance checks (forces.comp): x in 14 bits
// across the box, y and z in 9 bits each across the particle's cell, whose row the walk knows for every
// candidate. reorder.comp writes it as it moves the particles into cell order. Why: on lavapipe a load
// whose address differs between lanes is a loop over the lanes, and the walk's gather of x, y, z was the
// largest cost of a step (a loop per component when it went through an address); one word costs a
// third of that, and a quarter of the bytes a vec4 binding's load moves. The check is conservative
// (packed_margin); the pair terms check again with the exact positions, so the forces are the same bits.
#ifndef PARTICLES_PACKED_POSITION_GLSL
#define PARTICLES_PACKED_POSITION_GLSL

const uint kPackedX = 16384u, kPackedYZ = 512u;

// The packed cells' edges: across the box along x, across a cell along y and z.
vec3 packed_quantum(const float lx, const float cell_y, const float cell_z) {
  return vec3(lx / float(kPackedX), cell_y / float(kPackedYZ), cell_z / float(kPackedYZ));
}

// x lies in cell (., cy, cz) (cell_coord's, so y / cell_y - cy is in [0, 1]).
uint pack_position(const vec3 x, const uint cy, const uint cz, const float lx, const float cell_y, const float cell_z) {
  precise const vec3 q = vec3(max(x.x, 0.0) / lx * float(kPackedX), max(x.y / cell_y - float(cy), 0.0) * float(kPackedYZ),
                              max(x.z / cell_z - float(cz), 0.0) * float(kPackedYZ));
  const uint qx = min(uint(q.x), kPackedX - 1u);
  const uint qy = min(uint(q.y), kPackedYZ - 1u);
  const uint qz = min(uint(q.z), kPackedYZ - 1u);
  return qx | (qy << 14) | (qz << 23);
}

// The centre of the packed cell of q, for a particle in cell row (cy, cz).
vec3 unpack_position(const uint q, const uint cy, const uint cz, const vec3 quantum) {
  precise const vec3 centre = vec3((float(q & 0x3FFFu) + 0.5) * quantum.x,
              (float(cy * kPackedYZ + ((q >> 14) & 0x1FFu)) + 0.5) * quantum.y,
              (float(cz * kPackedYZ + (q >> 23)) + 0.5) * quantum.z);
  return centre;
}

// How far the centre may lie from the position along each axis: half a packed cell, plus the rounding
// of coordinates up to the box's size.
vec3 packed_margin(const vec3 quantum, const float largest_edge) {
  return 0.505 * quantum + vec3(8e-6 * largest_edge);
}

#endif
