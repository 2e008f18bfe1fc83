// SPDX-License-Identifier: MIT
// stats.hpp — summaries of repeated measurements. Medians, because a noisy machine's outliers are one-sided.
#pragma once

#include <vector>

namespace vksort::cli {

struct Summary {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
};

// The median (mean of the middle two for an even count), min and max of `samples`, which must not be empty.
Summary summarize(std::vector<double> samples);

}  // namespace vksort::cli
