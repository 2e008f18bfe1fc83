// SPDX-License-Identifier: MIT
// structure.hpp — the radial distribution function g(r) averaged over snapshots, and the mean-square
// displacement of the unwrapped positions with the diffusion coefficient it gives. Host-side, double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"
#include "simulation.hpp"

namespace particles {

class RadialDistribution {
 public:
  // `bins` bins over [0, r_max). Throws Error when r_max is not positive or exceeds half a periodic
  // box length (the minimum image would miss pairs).
  RadialDistribution(const Model& m, uint32_t bins, double r_max);
  void add(const Snapshot& s);  // one more snapshot in the average (all pairs within r_max)
  uint32_t samples() const { return samples_; }
  // g at each bin centre: pairs in the shell over the ideal gas's, (N - 1) / V. With walls the ideal
  // count ignores the walls, so g falls off within r of them.
  std::vector<double> values() const;
  double bin_centre(size_t bin) const { return (double(bin) + 0.5) * width_; }
  std::string csv() const;  // "r,g" and a line per bin

 private:
  Model m_;
  double r_max_, width_;
  std::vector<double> counts_;  // ordered pairs (each pair twice)
  double normal_ = 0;           // sum over samples of N (N - 1) / V
  uint32_t samples_ = 0;
};

class MeanSquareDisplacement {
 public:
  explicit MeanSquareDisplacement(const Model& m) : m_(m) {}
  // The first sample is the reference; the others add (step, <|r(t) - r(0)|^2> per axis).
  void add(const Snapshot& s);
  // D = slope / (2 d) of a least-squares line through the second half of the samples (past the
  // ballistic start), over the d periodic axes (x y, and z when periodic). NaN with fewer than 4 samples.
  double diffusion() const;
  // "# D = ...", then step,time,msd_x,msd_y,msd_z,msd; msd sums the axes D is fitted over (with walls
  // in z, x and y: the walls bound z, whose displacement does not grow with time).
  std::string csv() const;

 private:
  Model m_;
  std::vector<double> reference_;  // unwrapped positions at the first sample
  struct Row {
    uint64_t step;
    double msd[3];
  };
  double total(const Row& r) const;  // the msd over the periodic axes
  std::vector<Row> rows_;
};

}  // namespace particles
