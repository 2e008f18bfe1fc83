// SPDX-License-Identifier: MIT
// observables_series.hpp — the --observables time series, streamed as the run goes: CSV, or JSON when
// the file name ends in .json (a list of one object per row, keyed by the CSV's column names, with the
// CSV's numbers). Valid after every row, like the trajectories.
#pragma once

#include <string>

#include "observables.hpp"
#include "trajectory.hpp"

namespace particles {

class ObservablesSeries {
 public:
  // Throws Error when `path` cannot take a file.
  explicit ObservablesSeries(const std::string& path);
  void add(const Model& m, uint64_t step, const Observables& o);
  void close() { file_.close(); }

 private:
  GrowingFile file_;
  bool json_;
  bool first_ = true;
};

}  // namespace particles
