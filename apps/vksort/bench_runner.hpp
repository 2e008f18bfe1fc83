// SPDX-License-Identifier: MIT
// bench_runner.hpp — running benchmark cases: every (configuration, size, distribution) of a matrix
// sorted R times after a warm-up, each result checked against the CPU reference, with the CPU
// baselines and the copy-bandwidth yardstick alongside. `vksort bench` and `vksort tune` share it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <vksort/vksort.hpp>

#include "bench_report.hpp"
#include "commands.hpp"
#include "distributions.hpp"
#include "option_values.hpp"

namespace vksort::cli {

// The lists of one bench run, parsed and checked before any device work.
struct Matrix {
  std::string title;  // the experiment, in a suite
  BenchCommand run;   // repeat, seed, values, order come from here
  std::vector<Size> sizes;
  std::vector<workloads::DistributionSpec> dists;
  std::vector<Key> keys;
  std::vector<Algorithm> algorithms;
  std::vector<BrickVariant> variants;
  uint32_t value_bytes = 0;  // 0 (keys only), 4 (--values) or a record size (--value-bytes)
  Tuning tuning;
};

// Throws UsageError naming the option at fault.
Matrix parse_matrix(const std::string& title, const BenchCommand& c);

// Throws UsageError when a size cannot fit the device (before anything is generated).
void check_fits(const DeviceInfo& device, const Matrix& m);

struct RunOptions {
  bool cpu_baselines = true;  // time std::sort, std::stable_sort and the LSD radix sort too
  bool roofline = true;       // time the copy kernel on each case's bytes (CaseResult::copy_ms)
};

// Runs every case of `matrices` in order, appending each to `results` as it completes (so what was
// measured survives a later failure), with a progress bar on a terminal. Every Sorter is set up before
// the first case, so an unsupported combination fails at once. Throws UsageError (refusals),
// RuntimeFailure (a wrong result) or vksort::Error.
void run_matrices(Device& device, const std::vector<Matrix>& matrices, const RunOptions& options,
                  std::vector<CaseResult>& results);

}  // namespace vksort::cli
