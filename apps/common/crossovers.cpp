// SPDX-License-Identifier: MIT
#include "crossovers.hpp"

#include <algorithm>
#include <map>

namespace vksort::workloads {

Crossovers find_crossovers(std::span<const Timing> timings) {
  // The winner of each size, in ascending n.
  std::map<uint64_t, Timing> best;
  for (const Timing& t : timings) {
    auto [it, fresh] = best.try_emplace(t.n, t);
    if (!fresh && t.ms < it->second.ms) it->second = t;
  }
  Crossovers c;
  for (const auto& [n, t] : best) {
    if (t.algorithm != Algorithm::brick) break;
    c.brick_up_to = n;
  }
  for (auto it = best.rbegin(); it != best.rend() && it->second.algorithm == Algorithm::sample; ++it)
    c.sample_from = it->first;
  // A size both ranges claim (brick won everywhere, or sample did) goes to the smaller-n rule.
  if (c.sample_from && c.sample_from <= c.brick_up_to) c.sample_from = 0;
  return c;
}

}  // namespace vksort::workloads
