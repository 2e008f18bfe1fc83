// SPDX-License-Identifier: MIT
// merge_runs.hpp — the last step of the distributed sort: the p runs a rank received (each sorted, laid
// out one after another in the order of their source ranks) merged into one, stably: on equal keys the
// run from the lower rank first, which is the (key, rank, position) order of the whole sort.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace vksort::mpi::detail {

// Merges keys[a, b) and keys[b, c) into out[a, c) (values along when `with_values`), left run first on ties.
template <class U>
void merge_two(const U* keys, const uint32_t* values, U* out_keys, uint32_t* out_values, uint64_t a, uint64_t b,
               uint64_t c, bool with_values) {
  uint64_t i = a, j = b, o = a;
  while (i < b && j < c) {
    // Take the right run's key only when it is strictly smaller: that is what keeps the merge stable.
    const bool right = keys[j] < keys[i];
    const uint64_t from = right ? j++ : i++;
    out_keys[o] = keys[from];
    if (with_values) out_values[o] = values[from];
    ++o;
  }
  for (; i < b; ++i, ++o) {
    out_keys[o] = keys[i];
    if (with_values) out_values[o] = values[i];
  }
  for (; j < c; ++j, ++o) {
    out_keys[o] = keys[j];
    if (with_values) out_values[o] = values[j];
  }
}

// Merges the runs that start at offsets[0..k-1] (offsets[k] = the end) by rounds of pairwise merges of
// neighbouring runs (log2 k passes, each a sequential sweep), ping-ponging between (keys, values) and
// the scratch vectors. Leaves the result in keys / values.
template <class U>
void merge_runs(std::vector<U>& keys, std::vector<uint32_t>& values, std::vector<uint64_t> offsets, bool with_values) {
  if (offsets.size() <= 2) return;
  std::vector<U> other_keys(keys.size());
  std::vector<uint32_t> other_values(with_values ? values.size() : 0);
  while (offsets.size() > 2) {
    std::vector<uint64_t> merged{0};
    const size_t runs = offsets.size() - 1;
    for (size_t r = 0; r < runs; r += 2) {
      if (r + 1 < runs) {
        merge_two(keys.data(), values.data(), other_keys.data(), other_values.data(), offsets[r], offsets[r + 1],
                  offsets[r + 2], with_values);
        merged.push_back(offsets[r + 2]);
      } else {
        // An odd run out is copied as it is (it is the last, so order among runs is kept).
        merge_two(keys.data(), values.data(), other_keys.data(), other_values.data(), offsets[r], offsets[r + 1],
                  offsets[r + 1], with_values);
        merged.push_back(offsets[r + 1]);
      }
    }
    std::swap(keys, other_keys);
    if (with_values) std::swap(values, other_values);
    offsets = std::move(merged);
  }
}

}  // namespace vksort::mpi::detail
