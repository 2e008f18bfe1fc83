// SPDX-License-Identifier: MIT
// The per-slot arrays as storage buffers of descriptor set 0 (dpd_interface.h's DPD_BIND_*; bound by
// gpu::Bindings). On lavapipe a load or store of a vec4 through one of these is one loop over the
// lanes, through an address (Vec4s) four: the hot loops use these.
#ifndef PARTICLES_DPD_BINDINGS_GLSL
#define PARTICLES_DPD_BINDINGS_GLSL

layout(set = 0, binding = DPD_BIND_POS, std430) restrict buffer PosBinding { vec4 b_pos[]; };
layout(set = 0, binding = DPD_BIND_VEL, std430) restrict buffer VelBinding { vec4 b_vel[]; };
layout(set = 0, binding = DPD_BIND_VTILDE, std430) restrict buffer VtildeBinding { vec4 b_vtilde[]; };
layout(set = 0, binding = DPD_BIND_FORCE, std430) restrict buffer ForceBinding { vec4 b_force[]; };
layout(set = 0, binding = DPD_BIND_IDS, std430) restrict buffer IdsBinding { uint b_ids[]; };
layout(set = 0, binding = DPD_BIND_CELL, std430) restrict buffer CellBinding { uint b_cell[]; };
layout(set = 0, binding = DPD_BIND_PACKED, std430) restrict buffer PackedBinding { uint b_packed[]; };
layout(set = 0, binding = DPD_BIND_ACCUM, std430) restrict buffer AccumBinding { uint b_accum[]; };
#ifdef DPD_ATOMIC64  // the same words as 64-bit fixed-point sums (forces.comp's atomics)
layout(set = 0, binding = DPD_BIND_ACCUM, std430) restrict buffer Accum64Binding { uint64_t b_accum64[]; };
#endif
layout(set = 0, binding = DPD_BIND_STARTS, std430) restrict buffer StartsBinding { uint b_starts[]; };
layout(set = 0, binding = DPD_BIND_AUX, std430) restrict buffer AuxBinding { vec4 b_aux[]; };
layout(set = 0, binding = DPD_BIND_PERM, std430) restrict buffer PermBinding { uint b_perm[]; };
layout(set = 0, binding = DPD_BIND_TMP_POS, std430) restrict buffer TmpPosBinding { vec4 b_tmp_pos[]; };
layout(set = 0, binding = DPD_BIND_TMP_VEL, std430) restrict buffer TmpVelBinding { vec4 b_tmp_vel[]; };
layout(set = 0, binding = DPD_BIND_TMP_VTILDE, std430) restrict buffer TmpVtildeBinding { vec4 b_tmp_vtilde[]; };
layout(set = 0, binding = DPD_BIND_TMP_IDS, std430) restrict buffer TmpIdsBinding { uint b_tmp_ids[]; };

#endif
