// SPDX-License-Identifier: MIT
#include "initial_state.hpp"

#include <cmath>
#include <string>

namespace particles {

void thermal_velocities(const Model& m, State& s) {
  const uint32_t n = s.size();
  s.vel.assign(4 * size_t(n), 0.0f);
  for (uint32_t i = 0; i < n; ++i) {
    const double mass = m.mass[s.pos[4 * i + 3] != 0.0f ? 1 : 0];
    for (int k = 0; k < 3; ++k) {
      // Box-Muller: a normal with variance kBT / m per component.
      const double u1 = unit_random(m.seed, 3 + 2 * k, i), u2 = unit_random(m.seed, 4 + 2 * k, i);
      const double g = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      s.vel[4 * i + k] = float(g * std::sqrt(m.kbt / mass));
    }
  }
  paper_starts(m, s);
  zero_momentum_exact_temperature(m, s);
}

void paper_starts(const Model& m, State& s) {
  for (uint32_t i = 0; i < s.size(); ++i) s.vel[4 * i + 3] = float(unit_random(m.seed, 10, i));
}

void zero_momentum_exact_temperature(const Model& m, State& s) {
  const uint32_t n = s.size();
  if (n == 0) return;
  double p[3] = {0, 0, 0}, mass_sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const double mass = m.mass[s.pos[4 * i + 3] != 0.0f ? 1 : 0];
    for (int k = 0; k < 3; ++k) p[k] += mass * s.vel[4 * i + k];
    mass_sum += mass;
  }
  double mv2 = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const double mass = m.mass[s.pos[4 * i + 3] != 0.0f ? 1 : 0];
    for (int k = 0; k < 3; ++k) {
      const double v = s.vel[4 * i + k] - p[k] / mass_sum;
      mv2 += mass * v * v;
    }
  }
  // One particle has no thermal motion left once its momentum is removed: leave it at rest.
  const double scale = mv2 > 0 ? std::sqrt(double(m.kbt) * 3.0 * n / mv2) : 0.0;
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) s.vel[4 * i + k] = float((s.vel[4 * i + k] - p[k] / mass_sum) * scale);
}

double fcc_lattice_constant(double density) { return std::cbrt(4.0 / density); }

uint32_t fcc_box(Model& m, double density, uint32_t cells[3]) {
  if (!(density > 0)) throw Error("the lattice density must be positive");
  const double a = fcc_lattice_constant(density);
  float* length[3] = {&m.lx, &m.ly, &m.lz};
  for (int k = 0; k < 3; ++k) {
    const double c = std::max(1.0, std::round(double(*length[k]) / a));
    if (c > 1024) throw Error("the fcc lattice would have more than 1024 cells along an axis");
    cells[k] = uint32_t(c);
    *length[k] = float(c * a);
  }
  const uint64_t n = 4ull * cells[0] * cells[1] * cells[2];
  if (n > (1ull << 28)) throw Error("the fcc lattice would have more than 2^28 particles");
  return uint32_t(n);
}

State fcc_state(Model& m, double density, SpeciesOf species_of) {
  const double a = fcc_lattice_constant(density);
  uint32_t cells[3];
  const uint32_t n = fcc_box(m, density, cells);
  // The four sites of the conventional cubic cell, in cell units.
  static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  State s;
  s.pos.resize(4 * size_t(n));
  uint32_t i = 0;
  for (uint32_t z = 0; z < cells[2]; ++z)
    for (uint32_t y = 0; y < cells[1]; ++y)
      for (uint32_t x = 0; x < cells[0]; ++x)
        for (const auto& b : basis) {
          const uint32_t c[3] = {x, y, z};
          float r[3];
          for (int k = 0; k < 3; ++k) r[k] = float((c[k] + b[k] + 0.25) * a);
          for (int k = 0; k < 3; ++k) s.pos[4 * size_t(i) + k] = r[k];
          s.pos[4 * size_t(i) + 3] = float(species_of(m, r[0], r[1], r[2], i));
          ++i;
        }
  thermal_velocities(m, s);
  return s;
}

}  // namespace particles
