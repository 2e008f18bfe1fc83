// SPDX-License-Identifier: MIT
#include "mpi/exchange_plan.hpp"

#include <algorithm>
#include <climits>

namespace vksort::mpi::detail {

std::vector<uint64_t> offsets_of(std::span<const uint64_t> counts) {
  std::vector<uint64_t> offsets(counts.size() + 1, 0);
  for (size_t i = 0; i < counts.size(); ++i) offsets[i + 1] = offsets[i] + counts[i];
  return offsets;
}

bool fits_one_alltoallv(std::span<const uint64_t> send_counts, std::span<const uint64_t> recv_counts,
                        uint64_t max_message_elements) {
  const uint64_t limit = std::min<uint64_t>(INT_MAX, max_message_elements);
  for (auto counts : {send_counts, recv_counts}) {
    // The last displacement is offsets[p - 1]; the total offsets[p] itself need not fit.
    const std::vector<uint64_t> offsets = offsets_of(counts);
    for (size_t i = 0; i < counts.size(); ++i)
      if (counts[i] > limit || offsets[i] > uint64_t(INT_MAX)) return false;
  }
  return true;
}

std::vector<Chunk> chunks_of(uint64_t count, uint64_t max_message_elements) {
  const uint64_t step = std::clamp<uint64_t>(max_message_elements, 1, INT_MAX);
  std::vector<Chunk> chunks;
  chunks.reserve(count / step + 1);
  for (uint64_t offset = 0; offset < count; offset += step)
    chunks.push_back({offset, int(std::min(step, count - offset))});
  return chunks;
}

uint64_t max_message_elements(uint64_t max_message_bytes, uint64_t element_bytes) {
  const uint64_t bytes = max_message_bytes ? max_message_bytes : uint64_t(1) << 30;
  return std::clamp<uint64_t>(bytes / std::max<uint64_t>(element_bytes, 1), 1, INT_MAX);
}

std::vector<uint64_t> rebalance_counts(std::span<const uint64_t> have, std::span<const uint64_t> target, int me) {
  const std::vector<uint64_t> from = offsets_of(have), to = offsets_of(target);
  std::vector<uint64_t> counts(target.size(), 0);
  const uint64_t lo = from[size_t(me)], hi = from[size_t(me) + 1];
  for (size_t j = 0; j < target.size(); ++j) {
    const uint64_t a = std::max(lo, to[j]), b = std::min(hi, to[j + 1]);
    counts[j] = b > a ? b - a : 0;
  }
  return counts;
}

}  // namespace vksort::mpi::detail
