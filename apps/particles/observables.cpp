// SPDX-License-Identifier: MIT
#include "observables.hpp"

#include <cmath>
#include <cstdio>

namespace particles {

Observables measure(const Model& m, const Snapshot& s) {
  Observables o;
  const uint32_t n = s.size();
  double mv2 = 0, virial_c = 0, virial = 0, neighbours = 0, z[2] = {0, 0};
  double kin[6] = {}, wc[6] = {}, w[6] = {};  // xx yy zz xy xz yz
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
    o.potential_gravity += mass * m.gravity * s.pos[4 * i + 2];
    ++o.count[sp];
    const double v[3] = {s.vel[4 * i], s.vel[4 * i + 1], s.vel[4 * i + 2]};
    const int a[6] = {0, 1, 2, 0, 0, 1}, b[6] = {0, 1, 2, 1, 2, 2};
    for (int k = 0; k < 6; ++k) kin[k] += mass * v[a[k]] * v[b[k]];
    if (s.virial.size() == 16 * size_t(n)) {
      const float* t = &s.virial[16 * size_t(i)];
      const int at[6] = {0, 1, 2, 4, 5, 6};  // where xx yy zz xy xz yz sit in each 8-float half
      for (int k = 0; k < 6; ++k) {
        wc[k] += t[at[k]];
        w[k] += t[8 + at[k]];
      }
      o.potential += t[3];
    }
  }
  const double volume = double(m.lx) * m.ly * m.lz;
  o.temperature = n ? mv2 / (3.0 * n) : 0.0;
  o.momentum_norm = std::sqrt(o.momentum[0] * o.momentum[0] + o.momentum[1] * o.momentum[1] +
                              o.momentum[2] * o.momentum[2]);
  o.pairs = neighbours / 2.0;
  o.mean_neighbours = n ? neighbours / n : 0.0;
  o.pressure = (mv2 + virial_c) / (3.0 * volume);
  o.pressure_all = (mv2 + virial) / (3.0 * volume);
  o.kinetic = mv2 / 2.0;
  for (int k = 0; k < 6; ++k) {
    o.tensor[k] = (kin[k] + wc[k]) / volume;
    o.tensor_all[k] = (kin[k] + w[k]) / volume;
  }
  for (int sp = 0; sp < 2; ++sp) o.mean_z[sp] = o.count[sp] ? z[sp] / o.count[sp] : 0.0;
  return o;
}

const char* observables_header() {
  return "step,time,T,kinetic,potential,potential_gravity,px,py,pz,P,P_all,"
         "Pxx,Pyy,Pzz,Pxy,Pxz,Pyz,Pxx_all,Pyy_all,Pzz_all,Pxy_all,Pxz_all,Pyz_all";
}

std::string observables_row(const Model& m, uint64_t step, const Observables& o) {
  std::string row = std::to_string(step);
  auto add = [&](double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, ",%.10g", x);
    row += buf;
  };
  add(double(step) * m.dt);
  for (double x : {o.temperature, o.kinetic, o.potential, o.potential_gravity}) add(x);
  for (double x : o.momentum) add(x);
  add(o.pressure);
  add(o.pressure_all);
  for (double x : o.tensor) add(x);
  for (double x : o.tensor_all) add(x);
  return row;
}

}  // namespace particles
