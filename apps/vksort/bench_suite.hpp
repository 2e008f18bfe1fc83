// SPDX-License-Identifier: MIT
// bench_suite.hpp — `vksort bench --suite paper`: the papers' experiments as lists of ordinary bench
// runs, sized for the device at hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vksort/device.hpp>

#include "commands.hpp"

namespace vksort::cli {

// One experiment: a title that names the paper's figure or table, and the bench run that measures it.
struct Experiment {
  std::string title;
  BenchCommand run;  // algorithms, types, sizes, distributions, values, tuning
};

// The suites by name ("paper"); the empty list for an unknown name.
std::vector<std::string> suite_names();

// The sort experiments of suite `name` for a device, with sizes up to `max_n` keys (0: 2^20 on CPU
// devices, 2^24 elsewhere). Throws UsageError for an unknown suite.
std::vector<Experiment> suite_experiments(const std::string& name, const DeviceInfo& device, uint64_t max_n);

// The bucket-list tables of the suite (Rozen et al. Tables 1-3), at sizes up to `max_n` elements.
BucketBenchCommand suite_bucket_tables(const DeviceInfo& device, uint64_t max_n);

// The largest size a suite runs at on this device when the user gave none.
uint64_t default_suite_max_n(const DeviceInfo& device);

}  // namespace vksort::cli
