// SPDX-License-Identifier: MIT
// The per-slot arrays as storage buffers of descriptor set 0 (dpd_interface.h's DPD_BIND_*; bound by
// gpu::Bindings). On lavapipe a load or store of a vec4 through one of these is one loop over the
// lanes, through an address (Vec4s) four: the hot loops use these.
#ifndef PARTICLES_DPD_BINDINGS_GLSL
#define PARTICLES_DPD_BINDINGS_GLSL

// Binding `index` of set 0 as the array `name` of `type` (block `Block`).
#define DPD_ARRAY(index, Block, type, name) \
  layout(set = 0, binding = index, std430) restrict buffer Block { type name[]; };

DPD_ARRAY(DPD_BIND_POS, PosBinding, vec4, b_pos)
DPD_ARRAY(DPD_BIND_VEL, VelBinding, vec4, b_vel)
DPD_ARRAY(DPD_BIND_VTILDE, VtildeBinding, vec4, b_vtilde)
DPD_ARRAY(DPD_BIND_FORCE, ForceBinding, vec4, b_force)
DPD_ARRAY(DPD_BIND_IDS, IdsBinding, uint, b_ids)
DPD_ARRAY(DPD_BIND_CELL, CellBinding, uint, b_cell)
DPD_ARRAY(DPD_BIND_PACKED, PackedBinding, uint, b_packed)
DPD_ARRAY(DPD_BIND_ACCUM, AccumBinding, uint, b_accum)
#ifdef DPD_ATOMIC64  // the same words as 64-bit fixed-point sums (forces.comp's atomics)
DPD_ARRAY(DPD_BIND_ACCUM, Accum64Binding, uint64_t, b_accum64)
#endif
DPD_ARRAY(DPD_BIND_STARTS, StartsBinding, uint, b_starts)
DPD_ARRAY(DPD_BIND_AUX, AuxBinding, vec4, b_aux)
DPD_ARRAY(DPD_BIND_PERM, PermBinding, uint, b_perm)
DPD_ARRAY(DPD_BIND_TMP_POS, TmpPosBinding, vec4, b_tmp_pos)
DPD_ARRAY(DPD_BIND_TMP_VEL, TmpVelBinding, vec4, b_tmp_vel)
DPD_ARRAY(DPD_BIND_TMP_VTILDE, TmpVtildeBinding, vec4, b_tmp_vtilde)
DPD_ARRAY(DPD_BIND_TMP_IDS, TmpIdsBinding, uint, b_tmp_ids)

#endif
