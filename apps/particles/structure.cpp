// SPDX-License-Identifier: MIT
#include "structure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace particles {

namespace {
std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// Unwrapped coordinate k of particle i: wrapped position plus the periodic images crossed.
double unwrapped(const Model& m, const Snapshot& s, uint32_t i, int k) {
  const double l[3] = {m.lx, m.ly, m.lz};
  const double image = s.image.empty() ? 0.0 : double(s.image[4 * size_t(i) + k]);
  return double(s.pos[4 * size_t(i) + k]) + image * l[k];
}
}  // namespace

RadialDistribution::RadialDistribution(const Model& m, uint32_t bins, double r_max)
    : m_(m), r_max_(r_max), counts_(bins, 0.0) {
  if (bins == 0) throw Error("g(r) needs at least one bin");
  if (!(r_max > 0)) throw Error("g(r)'s r_max must be positive");
  const double half = std::min({double(m.lx), double(m.ly), m.periodic_z ? double(m.lz) : 1e300}) / 2;
  if (r_max > half)
    throw Error("g(r)'s r_max = " + num(r_max) + " exceeds half the periodic box (" + num(half) + ")");
  width_ = r_max / bins;
}

void RadialDistribution::add(const Snapshot& s) {
  // Particles binned into cells of edge >= r_max; each particle looks at the 27 cells around its own
  // (one cell along an axis with fewer than 3, so no cell is seen twice).
  const double l[3] = {m_.lx, m_.ly, m_.lz};
  const bool periodic[3] = {true, true, m_.periodic_z};
  // At most about two cells per particle: cells of edge >= r_max find the same pairs however large
  // they are, and a small r_max would otherwise take memory and time as (box / r_max)^3 (an --rdf-rmax
  // of 0.003 in a box of 4 asked for 57 GB for 300 particles).
  const uint32_t n = s.size();
  const double most = std::max(27.0, 2.0 * n);
  double want[3];
  for (int k = 0; k < 3; ++k) want[k] = std::clamp(std::floor(l[k] / r_max_), 1.0, double(1 << 20));
  while (want[0] * want[1] * want[2] > most) {
    const int k = int(std::max_element(want, want + 3) - want);
    want[k] = std::max(1.0, std::floor(want[k] / 2));
  }
  int cells[3];
  for (int k = 0; k < 3; ++k) cells[k] = want[k] < 3 ? 1 : int(want[k]);
  auto coord = [&](uint32_t i, int k) {
    return std::min(cells[k] - 1, std::max(0, int(double(s.pos[4 * size_t(i) + k]) / l[k] * cells[k])));
  };
  std::vector<std::vector<uint32_t>> members(size_t(cells[0]) * cells[1] * cells[2]);
  for (uint32_t i = 0; i < n; ++i)
    members[coord(i, 0) + cells[0] * (coord(i, 1) + cells[1] * size_t(coord(i, 2)))].push_back(i);
  const double r2_max = r_max_ * r_max_;
  for (uint32_t i = 0; i < n; ++i) {
    const int c[3] = {coord(i, 0), coord(i, 1), coord(i, 2)};
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int d[3] = {dx, dy, dz};
          int o[3];
          bool skip = false;
          for (int k = 0; k < 3; ++k) {
            if (cells[k] == 1 && d[k] != 0) skip = true;
            o[k] = c[k] + d[k];
            if (periodic[k]) o[k] = (o[k] + cells[k]) % cells[k];
            else if (o[k] < 0 || o[k] >= cells[k]) skip = true;
          }
          if (skip) continue;
          for (uint32_t j : members[o[0] + cells[0] * (o[1] + cells[1] * size_t(o[2]))]) {
            if (j == i) continue;
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
              double dk = double(s.pos[4 * size_t(i) + k]) - double(s.pos[4 * size_t(j) + k]);
              if (periodic[k]) dk -= l[k] * std::nearbyint(dk / l[k]);
              r2 += dk * dk;
            }
            if (r2 >= r2_max) continue;
            counts_[std::min(counts_.size() - 1, size_t(std::sqrt(r2) / width_))] += 1;
          }
        }
  }
  normal_ += double(n) * (double(n) - 1) / (l[0] * l[1] * l[2]);
  ++samples_;
}

std::vector<double> RadialDistribution::values() const {
  std::vector<double> g(counts_.size());
  for (size_t b = 0; b < counts_.size(); ++b) {
    const double r0 = b * width_, r1 = r0 + width_;
    const double shell = 4.0 / 3.0 * M_PI * (r1 * r1 * r1 - r0 * r0 * r0);
    g[b] = normal_ > 0 ? counts_[b] / (normal_ * shell) : 0.0;
  }
  return g;
}

std::string RadialDistribution::csv() const {
  std::string out = "r,g\n";
  const std::vector<double> g = values();
  for (size_t b = 0; b < g.size(); ++b) out += num(bin_centre(b)) + "," + num(g[b]) + "\n";
  return out;
}

void MeanSquareDisplacement::add(const Snapshot& s) {
  const uint32_t n = s.size();
  if (reference_.empty()) {
    reference_.resize(3 * size_t(n));
    for (uint32_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) reference_[3 * size_t(i) + k] = unwrapped(m_, s, i, k);
  }
  Row row{s.step, {0, 0, 0}};
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const double d = unwrapped(m_, s, i, k) - reference_[3 * size_t(i) + k];
      row.msd[k] += d * d;
    }
  for (double& x : row.msd) x /= n;
  rows_.push_back(row);
}

double MeanSquareDisplacement::total(const Row& r) const {
  double sum = 0;
  for (int a = 0; a < (m_.periodic_z ? 3 : 2); ++a) sum += r.msd[a];
  return sum;
}

double MeanSquareDisplacement::diffusion() const {
  if (rows_.size() < 4) return std::numeric_limits<double>::quiet_NaN();
  double st = 0, sm = 0, stt = 0, stm = 0, count = 0;
  for (size_t k = rows_.size() / 2; k < rows_.size(); ++k) {
    const double t = double(rows_[k].step - rows_[0].step) * m_.dt;
    st += t, sm += total(rows_[k]), stt += t * t, stm += t * total(rows_[k]), count += 1;
  }
  const double slope = (count * stm - st * sm) / (count * stt - st * st);
  return slope / (2.0 * (m_.periodic_z ? 3 : 2));
}

std::string MeanSquareDisplacement::csv() const {
  const bool z = m_.periodic_z;
  std::string out = "# D = " + num(diffusion()) + " (slope / " + (z ? "6" : "4") +
                    " of msd over the second half of the samples; msd = " +
                    (z ? "msd_x + msd_y + msd_z" : "msd_x + msd_y, walls in z") + ")\n";
  out += "step,time,msd_x,msd_y,msd_z,msd\n";
  for (const Row& r : rows_)
    out += std::to_string(r.step) + "," + num(double(r.step) * m_.dt) + "," + num(r.msd[0]) + "," + num(r.msd[1]) +
           "," + num(r.msd[2]) + "," + num(total(r)) + "\n";
  return out;
}

}  // namespace particles
