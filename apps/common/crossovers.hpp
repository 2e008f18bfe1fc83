// SPDX-License-Identifier: MIT
// crossovers.hpp — where one sorting algorithm stops being the fastest: the sizes `vksort tune` saves
// for Algorithm::automatic, found from measured medians.
#pragma once

#include <cstdint>
#include <span>

#include <vksort/types.hpp>

namespace vksort::workloads {

struct Timing {
  uint64_t n = 0;
  Algorithm algorithm = Algorithm::radix;
  double ms = 0;  // median GPU time of sorting n keys
};

struct Crossovers {
  uint64_t brick_up_to = 0;  // brick sort was the fastest at every measured n up to this; 0: at none
  uint64_t sample_from = 0;  // sample sort was the fastest at every measured n from this on; 0: never
};

// The fastest algorithm per measured n decides: brick sort's range is the prefix of sizes it won
// without a gap, sample sort's the suffix. A size where brick sort won after losing a smaller one
// does not count (noise, or a device that does not favour it): the choice must be monotone in n.
Crossovers find_crossovers(std::span<const Timing> timings);

}  // namespace vksort::workloads
