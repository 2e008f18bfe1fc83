// SPDX-License-Identifier: MIT
// bucket_workloads.hpp — inputs for bucket lists (vksort::BucketLists) and the CPU check of their
// result, shared by `vksort bench-buckets` and the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vksort::workloads {

constexpr uint32_t no_element = 0xFFFFFFFFu;  // BucketLists::null

// The elements of bucket b in list order, following at most n + 1 links (a longer walk means a cycle
// or an index >= n: *broken is then set).
std::vector<uint32_t> walk_bucket(const std::vector<uint32_t>& head, const std::vector<uint32_t>& next, uint32_t b,
                                  size_t n, bool* broken = nullptr);

// "" when head (M words) and next (n words) are exactly the lists of `ids` (elements with ids >= M in no
// list, their next null): every element in exactly one list, its own bucket's, lists as long as the
// CPU's counts, no cycles. Otherwise the first thing wrong, e.g. "bucket 7: 3 elements listed, 4 belong
// there".
std::string check_bucket_lists(const std::vector<uint32_t>& head, const std::vector<uint32_t>& next,
                               const std::vector<uint32_t>& ids, uint32_t m);

// n ids drawn uniformly from [0, m), seeded.
std::vector<uint32_t> uniform_bucket_ids(size_t n, uint32_t m, uint32_t seed);

// Particles bunched around three centres: a handful of buckets hold most elements.
std::vector<uint32_t> clustered_bucket_ids(size_t n, uint32_t m, uint32_t seed);

// Moves round(fraction * n) elements, chosen at random, each to a different random bucket (none when
// m == 1); *moved says how many.
std::vector<uint32_t> move_some_ids(std::vector<uint32_t> ids, uint32_t m, double fraction, uint32_t seed,
                                    size_t* moved);

}  // namespace vksort::workloads
