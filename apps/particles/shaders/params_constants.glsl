// SPDX-License-Identifier: MIT
// The run's fixed parameters (Params' words, dpd_interface.h) as specialization constants: constant
// 16 + k is word k of Params (gpu::Kernel's `constants`). Why: on lavapipe a load through an address is
// a loop over the lanes even when every lane reads the same word; the force kernel's ~20 parameter
// loads cost it ~10% of its time (and move.comp, cells.comp ... theirs); constants cost nothing.
//   The float parameters' arithmetic is `precise` wherever it decides the trajectory (the pair terms,
// the minimum image, the integrator, the cells): as constants the compiler may otherwise reassociate a
// product (sigma w theta / sqrt(dt), say), which changes the forces' rounding and so the trajectory
// (measured: same physics, other bits). `precise` keeps the float operations as written, so the
// trajectory is the same bits as when the parameters were loaded.
//   Params keeps every word too: the host's record, and pair_capacity, which changes during a run
// (Simulation::neighbour_lists).
#ifndef PARTICLES_PARAMS_CONSTANTS_GLSL
#define PARTICLES_PARAMS_CONSTANTS_GLSL

layout(constant_id = 20) const uint c_nx = 0u;
layout(constant_id = 21) const uint c_ny = 0u;
layout(constant_id = 22) const uint c_nz = 0u;
layout(constant_id = 23) const uint c_n = 0u;
layout(constant_id = 31) const uint c_periodic_z = 0u;
layout(constant_id = 32) const uint c_rng = 0u;
layout(constant_id = 33) const uint c_seed = 0u;
layout(constant_id = 35) const uint c_reach = 0u;
layout(constant_id = 40) const uint c_list_capacity = 0u;

layout(constant_id = 16) const float c_lx = 0.0;
layout(constant_id = 17) const float c_ly = 0.0;
layout(constant_id = 18) const float c_lz = 0.0;
layout(constant_id = 19) const float c_rc = 0.0;
layout(constant_id = 24) const float c_cell_x = 0.0;
layout(constant_id = 25) const float c_cell_y = 0.0;
layout(constant_id = 26) const float c_cell_z = 0.0;
layout(constant_id = 27) const float c_dt = 0.0;
layout(constant_id = 28) const float c_gravity = 0.0;
layout(constant_id = 29) const float c_extrapolate = 0.0;
layout(constant_id = 30) const float c_inv_sqrt_dt = 0.0;
layout(constant_id = 36) const float c_mass0 = 0.0;
layout(constant_id = 37) const float c_mass1 = 0.0;
layout(constant_id = 38) const float c_list_rc2 = 0.0;
layout(constant_id = 39) const float c_moved2 = 0.0;
layout(constant_id = 42) const float c_a0 = 0.0;
layout(constant_id = 43) const float c_a1 = 0.0;
layout(constant_id = 44) const float c_a2 = 0.0;
layout(constant_id = 45) const float c_a3 = 0.0;
layout(constant_id = 46) const float c_gamma0 = 0.0;
layout(constant_id = 47) const float c_gamma1 = 0.0;
layout(constant_id = 48) const float c_gamma2 = 0.0;
layout(constant_id = 49) const float c_gamma3 = 0.0;
layout(constant_id = 50) const float c_sigma0 = 0.0;
layout(constant_id = 51) const float c_sigma1 = 0.0;
layout(constant_id = 52) const float c_sigma2 = 0.0;
layout(constant_id = 53) const float c_sigma3 = 0.0;

// Params.mass[species] (species 0 or 1, a position's w).
float mass_of(const float species) { return species == 0.0 ? c_mass0 : c_mass1; }

#endif
