// SPDX-License-Identifier: MIT
// initial_state.hpp — starting velocities and the fcc-lattice start. Host-side only.
#pragma once

#include <cstdint>

#include "model.hpp"

namespace particles {

// Maxwell-Boltzmann velocities at m.kbt for every particle of `s` (its species in pos.w), then
// zero_momentum_exact_temperature. Also sets the paper generator's per-particle start (vel.w).
void thermal_velocities(const Model& m, State& s);

// The paper generator's per-particle start (vel.w) for every particle, spread so the streams differ
// (velocities read from a file lack it).
void paper_starts(const Model& m, State& s);

// Shifts the velocities so each component of the total momentum is zero (to float round-off), then
// scales them so the kinetic temperature sum m v^2 / (3 N) is m.kbt (what the table prints at step 0).
// Done in double, rounded to float once.
void zero_momentum_exact_temperature(const Model& m, State& s);

// Lattice constant of an fcc lattice of `density` particles per unit volume (4 per cubic cell).
double fcc_lattice_constant(double density);
// fcc_state's box: `m`'s lengths rounded to whole cubic cells of the lattice at `density` (`cells` of
// them per axis); returns its particle count (4 per cell). Throws Error beyond 1024 cells an axis or
// 2^28 particles.
uint32_t fcc_box(Model& m, double density, uint32_t cells[3]);
// An fcc lattice like LAMMPS' `lattice fcc` at `density`: the box lengths are rounded to whole cubic
// cells (at least one per axis; at least 3 r_c along periodic axes is checked later by grid_for) and
// set in `m`; the sites are shifted by a quarter cell so none lies on a wall. 4 cells^3 particles,
// species from `species_of`, thermal velocities.
State fcc_state(Model& m, double density, SpeciesOf species_of);

}  // namespace particles
