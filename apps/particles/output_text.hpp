// SPDX-License-Identifier: MIT
// output_text.hpp — particle files for other programs, in particle-id order, written atomically.
#pragma once

#include <string>

#include "model.hpp"
#include "simulation.hpp"
#include "species.hpp"

namespace particles {

// One extended XYZ frame (ASE, OVITO): Lattice, pbc (T T F with walls), Time and step, and
// Properties species:S:1:pos:R:3:velo:R:3:masses:R:1:momenta:R:3. The species are element symbols
// (ASE refuses others); velo is OVITO's velocity, masses and momenta give ASE's get_velocities().
std::string xyz_frame(const Model& m, const SpeciesNames& species, const Snapshot& s);
void write_xyz(const std::string& path, const Model& m, const SpeciesNames& species, const Snapshot& s);
// Legacy VTK polydata points (ParaView) with species and velocity as point data.
void write_vtk(const std::string& path, const Model& m, const Snapshot& s);
// The file of one frame of a series: "out/a.vtk", step 10 -> "out/a_00000010.vtk" (ParaView opens
// such a series as one time-dependent dataset).
std::string frame_path(const std::string& path, uint64_t step);

// Reads the last frame of an extended XYZ file: a diagonal Lattice (its lengths are returned in
// box; positive lengths), pos, species (symbols of `species`; without a species column every particle
// is species 0) and velocities if there are any (velo, vel or velocities, or momenta / masses; momenta
// without masses are refused; else `vel` is left empty). Throws Error naming the file and line on
// anything else.
State read_xyz(const std::string& path, const SpeciesNames& species, float box[3]);

}  // namespace particles
