// SPDX-License-Identifier: MIT
#include "stats.hpp"

#include <algorithm>
#include <cassert>

namespace vksort::cli {

Summary summarize(std::vector<double> samples) {
  assert(!samples.empty());
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  const double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return {median, samples.front(), samples.back()};
}

}  // namespace vksort::cli
