// SPDX-License-Identifier: MIT
// The README's "Sorting host data" example, as written there, so the README cannot drift from the API.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <vksort/vksort.hpp>

#include "support/test_device.hpp"

TEST_CASE("README: sorting host data") {
  std::vector<double> keys = {2.5, -0.0, std::numeric_limits<double>::quiet_NaN(), 0.0, -7.0, 2.5};
  // --- as in README.md ---
  std::vector<uint32_t> ids(keys.size());
  std::iota(ids.begin(), ids.end(), 0u);
  vksort::Device& gpu = vksort::test::device();  // README: vksort::Device gpu;
  vksort::SortStats stats = vksort::sort(gpu, std::span(keys), std::span(ids),
                                         {.key = vksort::Key::f64, .order = vksort::Order::descending});
  // --- end ---
  // Descending IEEE total order: +NaN first, then 2.5 (stable: index 0 before 5), ..., +0.0 before -0.0.
  CHECK(std::isnan(keys[0]));
  CHECK(ids == std::vector<uint32_t>{2, 0, 5, 3, 1, 4});
  CHECK_FALSE(std::signbit(keys[3]));
  CHECK(std::signbit(keys[4]));
  CHECK(keys[5] == -7.0);
  CHECK(stats.timed() == gpu.info().timestamps);
}
