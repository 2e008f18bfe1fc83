// SPDX-License-Identifier: MIT
// Deterministic sample sort after Dehne & Zaboli (seed 004, Algorithm 1), all nine steps on the GPU.
// Records dispatches only; owns nothing but its kernels.
//
// Every step orders (encoded key, original index) pairs, so all elements are distinct: the sort is
// stable, and ties (all-equal or few-unique input) cannot unbalance the buckets.
//   1-3 sublist_sort   sublists of TILE keys (what one workgroup's shared memory holds) sorted by a
//                      bitonic network; s equidistant samples each, taken in the write-back
//   4   sample_sort    the s * m samples sorted by a bitonic network in global memory (in-tile
//                      steps in shared memory)
//   5   global_samples s - 1 splitters: every m-th sorted sample
//   6   locate         each splitter in each sublist by the paper's parallel binary search
//   7   prefix_sum     bucket sizes in bucket-major (column) order, ExclusiveScan
//   8   relocate       every sublist's piece of bucket j to its place in segment j (coalesced)
//   9   bucket_sort    every bucket sorted in its segment; the last stage writes the result, decoded
//
// The bound (Dehne & Zaboli's Lemma, with m' = m sublists of L = TILE, n' = m * L including the last
// sublist's padding): sublist i has a_i samples <= splitter j-1 and b_i <= splitter j, so its part of
// bucket j is at most (b_i - a_i + 1) * L / s elements; the sums of a_i and b_i are j * m and
// (j + 1) * m, so bucket j has at most 2 * m * L / s = 2 n' / s elements. The recording does not read
// back sizes, so step 9 sorts fixed segments of P = ceil_pow2(2 n' / s) slots per bucket, padded: a
// bitonic sort of every segment at once (in shared memory when P <= TILE, otherwise with its long-
// distance steps in global memory), the same kernels that sort the samples.
//
// Scratch: control words (SAMPLE_CONTROL_*), the sorted sublists (keys, indices), the samples, the
// splitters, the bucket counts and starts, the scan's sums, the segments, and a copy of the values.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "../../shaders/common/interface.h"
#include "sort/exclusive_scan.hpp"
#include "sort/sort_target.hpp"
#include "sort/tile_shape.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class SampleSort {
 public:
  SampleSort(gpu::Context& ctx, const SortOptions& options);

  uint32_t tile() const { return shape_.tile(); }
  uint32_t samples() const { return samples_; }
  VkDeviceSize scratch_bytes(uint64_t n) const;
  uint32_t control_words() const;
  // Throws vksort::Error for a size this configuration cannot sort.
  void check_size(uint64_t n) const;
  void record(gpu::Recorder& rec, const SortTarget& target) const;
  // Facts of a finished sort from its control words (read back by the caller).
  std::vector<std::pair<std::string, double>> facts(const uint32_t* control, uint32_t n) const;

 private:
  struct Layout {
    uint32_t sublists = 0;         // m
    uint64_t padded = 0;           // n' = m * TILE
    uint32_t sample_slots = 0;     // s * m rounded up to a power of two, at least TILE
    uint32_t segment = 0;          // P: slots per bucket in step 9
    uint64_t segment_slots = 0;    // s * P
    ExclusiveScan::Plan scan;
    VkDeviceSize sub_keys = 0, sub_idx = 0, smp_keys = 0, smp_idx = 0, spl_keys = 0, spl_idx = 0, counts = 0,
                 starts = 0, sums = 0, seg_keys = 0, seg_idx = 0, values = 0, bytes = 0;  // offsets in scratch
  };
  Layout layout(uint64_t n) const;
  // Sorts every segment of `segment` pairs of the array at keys/idx (`count` pairs, both powers of two,
  // count >= TILE). With `final`, the last stage writes the result to the caller (step 9).
  void record_bitonic(gpu::Recorder& rec, shader::SamplePush push, VkDeviceAddress keys, VkDeviceAddress idx,
                      uint64_t count, uint32_t segment, bool final) const;

  gpu::Context& ctx_;
  SortOptions options_;
  TileShape shape_;
  uint32_t samples_ = 0;
  ExclusiveScan scan_;
  gpu::Kernel sublist_sort_, bitonic_local_, bitonic_global_, global_samples_, locate_, relocate_;
};

}  // namespace vksort::algo
