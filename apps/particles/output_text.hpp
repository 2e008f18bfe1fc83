// SPDX-License-Identifier: MIT
// output_text.hpp — particle files for other programs, in particle-id order, written atomically.
#pragma once

#include <string>

#include "model.hpp"
#include "simulation.hpp"

namespace particles {

// Extended XYZ (OVITO, ASE): Lattice, pbc (T T F with walls), Properties species:S:1:pos:R:3:velo:R:3,
// Time and step; species named L (light, 0) and H (heavy, 1).
void write_xyz(const std::string& path, const Model& m, const Snapshot& s);
// Legacy VTK polydata points (ParaView) with species and velocity as point data.
void write_vtk(const std::string& path, const Model& m, const Snapshot& s);

}  // namespace particles
