// SPDX-License-Identifier: MIT
// checkpoint.hpp — everything a run needs to continue bit for bit: the model (every parameter that
// affects the trajectory), the scenario's name, the species symbols, and the state at a step
// (positions, velocities with the paper generator's state, the dissipative velocities, periodic
// images). The counter noise is a function of the seed and the step, both stored. A small binary
// file of our own (little-endian as written, checksummed), written atomically.
#pragma once

#include <string>

#include "model.hpp"
#include "simulation.hpp"
#include "species.hpp"

namespace particles {

struct Checkpoint {
  std::string scenario;
  Model model;
  SpeciesNames species;
  State state;  // with step, vtilde and image
};

void write_checkpoint(const std::string& path, const std::string& scenario, const Model& m,
                      const SpeciesNames& species, const Snapshot& s);
// Throws Error naming the file when it cannot be read, is not a checkpoint, or is damaged.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace particles
