// SPDX-License-Identifier: MIT
// observables.hpp — what the table reports and the tests check, computed on the host from a snapshot
// (in double precision).
#pragma once

#include <cstdint>

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
  double mean_z[2] = {};       // mean height per species (0 when a species has no particles)
  uint32_t count[2] = {};
};

Observables measure(const Model& m, const Snapshot& s);

}  // namespace particles
