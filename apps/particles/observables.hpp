// SPDX-License-Identifier: MIT
// observables.hpp — what the table reports and the tests check, computed on the host from a snapshot
// (in double precision).
#pragma once

#include <cstdint>
#include <string>

#include "model.hpp"
#include "simulation.hpp"

namespace particles {

struct Observables {
  double temperature = 0;      // kinetic: sum m v^2 / (3 N)
  double momentum[3] = {};     // sum m v
  double momentum_norm = 0;
  double pairs = 0;            // pairs within r_c (each counted once)
  double mean_neighbours = 0;  // neighbours within r_c per particle
  // Virial pressure (sum m v^2 + sum_{i<j} r_ij . F_ij) / (3 V): with the conservative pair forces only
  // (the usual DPD equation of state), and with all three.
  double pressure = 0;
  double pressure_all = 0;
  double kinetic = 0;            // sum m v^2 / 2
  double potential = 0;          // conservative pair energy sum_{i<j} a r_c w^2 / 2 (from Snapshot::virial)
  double potential_gravity = 0;  // sum m g z
  // Pressure tensors (sum m v_a v_b + sum_{i<j} r_a F_b) / V as xx yy zz xy xz yz: conservative pair
  // forces only, and all three. From Snapshot::virial, so for the step the snapshot was taken at.
  double tensor[6] = {};
  double tensor_all[6] = {};
  double mean_z[2] = {};       // mean height per species (0 when a species has no particles)
  uint32_t count[2] = {};
};

Observables measure(const Model& m, const Snapshot& s);

// The column names of observables_row, in its order (CSV header).
const char* observables_header();
// One CSV row: step, time, the energies, momentum and pressures of `o`, full precision.
std::string observables_row(const Model& m, uint64_t step, const Observables& o);

}  // namespace particles
