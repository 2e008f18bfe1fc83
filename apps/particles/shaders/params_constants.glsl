// SPDX-License-Identifier: MIT
// The run's fixed whole-number parameters (Params' words, dpd_interface.h) as specialization
// constants: constant 16 + k is word k of Params (gpu::Kernel's `constants`). Why: on lavapipe a load
// through an address is a loop over the lanes even when every lane reads the same word, so the force
// kernel's parameter loads cost it ~10% of its time; constants cost nothing and fold (the grid's
// sizes, the walk's reach, which generator).
//   The float parameters stay in Params and are loaded: as constants the compiler may reassociate the
// pair term's products (sigma and 1 / sqrt(dt), say), which changes the rounding of the forces and so
// the trajectory (measured: same physics, other bits). Loaded, the pair terms are the float operations
// as written, as in every earlier version; they cost the force kernel about 1 ms of 20 here.
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

#endif
