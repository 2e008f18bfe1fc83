// SPDX-License-Identifier: MIT
#include "bench_suite.hpp"

#include <algorithm>

#include "cli_error.hpp"

namespace vksort::cli {

namespace {

// Powers of four from `from` up to max_n (always including max_n itself): 2^16, 2^18, 2^20.
std::vector<std::string> sizes_up_to(uint64_t from, uint64_t max_n) {
  std::vector<std::string> sizes;
  for (uint64_t n = std::min(from, max_n); n < max_n; n *= 4) sizes.push_back(std::to_string(n));
  sizes.push_back(std::to_string(max_n));
  return sizes;
}

BenchCommand run(std::vector<std::string> algorithms, std::vector<std::string> types, std::vector<std::string> sizes,
                 std::vector<std::string> distributions, bool values = false) {
  BenchCommand c;
  c.algorithms = std::move(algorithms);
  c.types = std::move(types);
  c.sizes = std::move(sizes);
  c.distributions = std::move(distributions);
  c.values = values;
  return c;
}

}  // namespace

std::vector<std::string> suite_names() { return {"paper"}; }

uint64_t default_suite_max_n(const DeviceInfo& device) {
  // A CPU driver sorts a few million keys per second: 2^20 keeps the suite within minutes there.
  return device.type == "cpu" ? uint64_t(1) << 20 : uint64_t(1) << 24;
}

std::vector<Experiment> suite_experiments(const std::string& name, const DeviceInfo& device, uint64_t max_n) {
  if (name != "paper") throw UsageError("--suite: unknown suite '" + name + "' (known: paper)");
  if (max_n == 0) max_n = default_suite_max_n(device);
  // Brick sort's rounds grow with n / tile on random input: a sixteenth of the size keeps it in step.
  const uint64_t brick_max = std::max<uint64_t>(std::min<uint64_t>(max_n, max_n / 16), 1);
  const std::vector<std::string> skewed = {"uniform", "gaussian", "zipf", "sorted", "all_equal"};
  std::vector<Experiment> e;
  e.push_back({"Ha, Krueger & Silva: radix sort over sizes and distributions (u32)",
               run({"radix"}, {"u32"}, sizes_up_to(1 << 16, max_n), skewed)});
  e.push_back({"Ha, Krueger & Silva, Figure 4: keys with 32-bit values (index sorting); keys alone are in the table above",
               run({"radix"}, {"u32"}, sizes_up_to(1 << 16, max_n), {"uniform"}, true)});
  e.push_back({"Dehne & Zaboli, Figures 3 and 5: sample sort of 64-bit keys over distributions, radix alongside",
               run({"sample", "radix"}, {"u64"}, sizes_up_to(max_n / 4, max_n), skewed)});
  for (uint32_t samples : {16u, 32u, 64u, 128u}) {
    BenchCommand c = run({"sample"}, {"u64"}, {std::to_string(max_n)}, {"uniform"});
    c.tuning.samples = samples;
    e.push_back({"Dehne & Zaboli, Figure 8: samples per sublist s = " + std::to_string(samples), c});
  }
  e.push_back({"Brick sort (odd-even transposition), block variant: random against nearly sorted input",
               run({"brick"}, {"u32"}, sizes_up_to(1 << 12, brick_max), {"uniform", "nearly_sorted:1"})});
  // The seed's element-wise form needs up to n phases on random input: small sizes only.
  e.push_back({"Brick sort, the seed's element-wise form: random against nearly sorted input",
               run({"brick"}, {"u32"}, sizes_up_to(1 << 10, std::min<uint64_t>(brick_max, 1 << 12)),
                   {"uniform", "nearly_sorted:1"})});
  e.back().run.variants = {"pairs"};
  return e;
}

BucketBenchCommand suite_bucket_tables(const DeviceInfo& device, uint64_t max_n) {
  if (max_n == 0) max_n = default_suite_max_n(device);
  BucketBenchCommand c;
  c.sizes = sizes_up_to(1 << 16, max_n);
  return c;
}

}  // namespace vksort::cli
