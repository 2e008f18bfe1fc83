// SPDX-License-Identifier: MIT
// exchange_plan.hpp — how one all-to-all exchange is carried out when its counts may not fit MPI's int
// counts and displacements (MPI-3; Open MPI 4 has no MPI_Alltoallv_c). Pure functions, no MPI calls, so
// the arithmetic is unit-tested at sizes no test machine could send.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vksort::mpi::detail {

// Element offsets of p consecutive pieces of the given sizes (exclusive prefix sums), p + 1 entries.
std::vector<uint64_t> offsets_of(std::span<const uint64_t> counts);

// True when a single MPI_Alltoallv can carry the exchange: every count and every displacement (of both
// the sending and the receiving side, in elements) fits an int and no count exceeds
// max_message_elements.
bool fits_one_alltoallv(std::span<const uint64_t> send_counts, std::span<const uint64_t> recv_counts,
                        uint64_t max_message_elements);

// One point-to-point message of a chunked exchange: `count` elements from element `offset` of the
// piece exchanged with one peer.
struct Chunk {
  uint64_t offset = 0;
  int count = 0;
};

// The messages that carry a piece of `count` elements, each at most max_message_elements (>= 1, and
// never above INT_MAX: MPI counts are int). The same on the sending and the receiving side, so the two
// sides post matching messages; MPI's non-overtaking rule matches them in order under one tag.
std::vector<Chunk> chunks_of(uint64_t count, uint64_t max_message_elements);

// The largest message, in elements of `element_bytes`, that max_message_bytes allows (0: 2^30 bytes),
// at least 1 and at most INT_MAX.
uint64_t max_message_elements(uint64_t max_message_bytes, uint64_t element_bytes);

// keep_counts: the pieces rank `me` sends to every rank so that ranks end with `target` keys each,
// when rank j holds the global positions [offsets(have)[j], + have[j]) of the sorted sequence and rank j
// must end with the positions [offsets(target)[j], + target[j]). Both vectors hold one count per rank
// and have the same sum. The receiving side is the same function with the roles swapped:
// rebalance_counts(target, have, me) are the counts `me` receives.
std::vector<uint64_t> rebalance_counts(std::span<const uint64_t> have, std::span<const uint64_t> target, int me);

}  // namespace vksort::mpi::detail
