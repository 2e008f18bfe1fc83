// SPDX-License-Identifier: MIT
#include "species.hpp"

#include <sstream>

#include "model.hpp"

namespace particles {

bool is_element(const std::string& symbol) {
  static const char* const table =
      " H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr"
      " Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm"
      " Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No"
      " Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og ";
  return !symbol.empty() && symbol.find(' ') == std::string::npos &&
         std::string(table).find(" " + symbol + " ") != std::string::npos;
}

SpeciesNames parse_species(const std::string& list) {
  std::vector<std::string> names;
  std::istringstream in(list);
  for (std::string s; std::getline(in, s, ',');) names.push_back(s);
  // getline drops an empty field after a last comma: "Ne," was taken for "Ne" alone.
  if (!list.empty() && list.back() == ',') names.emplace_back();
  if (names.empty() || names.size() > 2)
    throw Error("--species takes one or two element symbols, e.g. Ne,Ar (got '" + list + "')");
  SpeciesNames out;
  for (size_t k = 0; k < names.size(); ++k) out.name[k] = names[k];
  if (names.size() == 1) out.name[1] = names[0] == "Ar" ? "Kr" : "Ar";
  check_species(out, "--species");
  return out;
}

void check_species(const SpeciesNames& s, const std::string& where) {
  for (const std::string& name : s.name)
    if (!is_element(name))
      throw Error(where + ": '" + name + "' is not an element symbol (readers such as ASE need one, e.g. Ar)");
  if (s.name[0] == s.name[1]) throw Error(where + ": the two species need different symbols");
}

int species_index(const SpeciesNames& s, const std::string& symbol) {
  for (int k = 0; k < 2; ++k)
    if (s.name[k] == symbol) return k;
  return -1;
}

std::string not_a_species(const SpeciesNames& s, const std::string& symbol) {
  return "species '" + symbol + "' is neither " + s.name[0] + " nor " + s.name[1] + " (set --species)";
}

}  // namespace particles
