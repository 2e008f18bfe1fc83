// SPDX-License-Identifier: MIT
// Property test: thousands of random (algorithm, key type, order, values or records, size, distribution) cases,
// each compared byte for byte with the CPU reference. The run's seed is printed; a failure names the
// seed and the case, and VKSORT_PROPERTY_SEED=<seed> replays the run exactly (VKSORT_PROPERTY_CASES
// changes the count). Sorters are cached per configuration, as an application would keep them.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "support/sort_check.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// A random valid parameter for the kinds that take one, else the kind's default.
workloads::DistributionSpec random_spec(std::mt19937_64& rng) {
  const auto names = workloads::distribution_names();
  const auto kind = workloads::parse_distribution(names[rng() % names.size()])->kind;
  workloads::DistributionSpec spec = workloads::default_spec(kind);
  switch (kind) {
    case workloads::Distribution::nearly_sorted: spec.param = double(rng() % 101); break;
    case workloads::Distribution::few_unique: spec.param = double(1 + rng() % 300); break;
    case workloads::Distribution::entropy: spec.param = double(1 + rng() % 8); break;
    case workloads::Distribution::zipf: spec.param = double(rng() % 300) / 100.0; break;
    default: break;
  }
  return workloads::invalid_reason(spec).empty() ? spec : workloads::default_spec(kind);
}

// Mostly small (where tiles, padding and edge cases live), log-uniform up to 2^15, with the sizes that
// break sorts mixed in.
uint64_t random_size(std::mt19937_64& rng, uint32_t tile) {
  switch (rng() % 8) {
    case 0: return rng() % 4;
    case 1: return tile + (rng() % 3) - 1;
    case 2: return (uint64_t(1) << (rng() % 15)) + (rng() % 3) - 1;
    default: return uint64_t(std::exp2(double(rng() % 15000) / 1000.0));
  }
}

}  // namespace

TEST_CASE("property: random cases of every algorithm, key type, order, values and distribution") {
  const uint64_t seed = env_number("VKSORT_PROPERTY_SEED", uint64_t(std::chrono::system_clock::now().time_since_epoch().count()));
  const uint64_t cases = env_number("VKSORT_PROPERTY_CASES", 2000);
  MESSAGE("property test: " << cases << " cases, VKSORT_PROPERTY_SEED=" << seed);
  std::mt19937_64 rng(seed);
  const Algorithm algorithms[] = {Algorithm::radix, Algorithm::sample, Algorithm::brick, Algorithm::automatic};
  const Key keys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};
  std::map<std::tuple<Algorithm, Key, Order, uint32_t>, Sorter> sorters;
  std::map<Algorithm, uint64_t> per_algorithm;
  for (uint64_t i = 0; i < cases; ++i) {
    const Algorithm a = algorithms[rng() % std::size(algorithms)];
    const Key k = keys[rng() % std::size(keys)];
    const Order o = rng() % 2 ? Order::descending : Order::ascending;
    // Half the cases carry values; a quarter of those are records (value_bytes > 4).
    constexpr uint32_t record_sizes[] = {8, 12, 36};
    const bool values = rng() % 2;
    const uint32_t value_bytes = !values ? 0 : rng() % 4 ? 4 : record_sizes[rng() % std::size(record_sizes)];
    auto [it, fresh] = sorters.try_emplace({a, k, o, value_bytes}, test::device(),
                                           SortOptions{.key = k, .order = o, .algorithm = a, .value_bytes = value_bytes});
    Sorter& sorter = it->second;
    test::SortCase c{random_spec(rng), random_size(rng, sorter.tile_size()), rng()};
    // Brick sort's rounds grow with n / tile on random input: keep its cases small.
    if (a == Algorithm::brick) c.n = std::min<uint64_t>(c.n, 4 * sorter.tile_size());
    const std::string diff = test::check_sort(sorter, c);
    if (!diff.empty())
      FAIL("VKSORT_PROPERTY_SEED=" << seed << ", case " << i << ": " << test::describe(sorter, c) << ": " << diff);
    ++per_algorithm[a];
  }
  for (const auto& [a, count] : per_algorithm) MESSAGE(to_string(a) << ": " << count << " cases");
  CHECK(per_algorithm.size() == std::size(algorithms));
}
