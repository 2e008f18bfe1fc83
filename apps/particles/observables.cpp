// SPDX-License-Identifier: MIT
#include "observables.hpp"

#include <cmath>

namespace particles {

Observables measure(const Model& m, const Snapshot& s) {
  Observables o;
  const uint32_t n = s.size();
  double mv2 = 0, virial_c = 0, virial = 0, neighbours = 0, z[2] = {0, 0};
  for (uint32_t i = 0; i < n; ++i) {
    const int sp = s.pos[4 * i + 3] != 0.0f ? 1 : 0;
    const double mass = m.mass[sp];
    for (int k = 0; k < 3; ++k) {
      const double v = s.vel[4 * i + k];
      mv2 += mass * v * v;
      o.momentum[k] += mass * v;
    }
    neighbours += s.aux[4 * i + 0];
    virial_c += s.aux[4 * i + 1];
    virial += s.aux[4 * i + 2];
    z[sp] += s.pos[4 * i + 2];
    ++o.count[sp];
  }
  const double volume = double(m.lx) * m.ly * m.lz;
  o.temperature = n ? mv2 / (3.0 * n) : 0.0;
  o.momentum_norm = std::sqrt(o.momentum[0] * o.momentum[0] + o.momentum[1] * o.momentum[1] +
                              o.momentum[2] * o.momentum[2]);
  o.pairs = neighbours / 2.0;
  o.mean_neighbours = n ? neighbours / n : 0.0;
  o.pressure = (mv2 + virial_c) / (3.0 * volume);
  o.pressure_all = (mv2 + virial) / (3.0 * volume);
  for (int sp = 0; sp < 2; ++sp) o.mean_z[sp] = o.count[sp] ? z[sp] / o.count[sp] : 0.0;
  return o;
}

}  // namespace particles
