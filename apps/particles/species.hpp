// SPDX-License-Identifier: MIT
// species.hpp — the element symbols the particle files give the two species, so readers that know
// elements (ASE, OVITO, VMD) accept them. DPD beads are not atoms: the symbols are labels only.
#pragma once

#include <string>
#include <vector>

namespace particles {

// Symbols of species 0 (light) and 1 (heavy).
struct SpeciesNames {
  std::string name[2] = {"Ne", "Ar"};
};

// "A,B" (one or two symbols, each a real element, e.g. "Ar,Ne"); throws Error otherwise.
SpeciesNames parse_species(const std::string& list);
bool is_element(const std::string& symbol);
// Throws Error, naming `where`, unless both names are element symbols and differ.
void check_species(const SpeciesNames& s, const std::string& where);
// The species index of `symbol` (ASE writes symbols capitalised), or -1.
int species_index(const SpeciesNames& s, const std::string& symbol);
// What a particle file's reader says of a `symbol` that species_index() does not find.
std::string not_a_species(const SpeciesNames& s, const std::string& symbol);

}  // namespace particles
