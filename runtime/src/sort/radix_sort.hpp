// SPDX-License-Identifier: MIT
// LSD radix sort after Ha, Krüger & Silva (seed 003), generalised from 2-bit to 2-, 4- or 8-bit digits.
// Records dispatches only; owns nothing but its kernels.
//
// Two ways to find where keys go (Tuning::radix_scan): the single pass (radix_onesweep.hpp, Onesweep
// with Decoupled Fallback: one dispatch per digit), used wherever it applies, and reduce-then-scan,
// described below, the portable reference that needs no communication inside a dispatch.
//
// A pass sorts stably by one digit of the encoded key, over blocks of B = workgroup * items keys:
//   count   each block's digit histogram, digit-major (counts[digit * blocks + block]), and its
//           adjacent inversions (the order check, fused into the same read);
//   scan    exclusive prefix sum over the whole counts array (ExclusiveScan, reduce-then-scan);
//   gate    one invocation: data sorted -> stop (every later dispatch empty); one digit covers all n
//           keys -> skip the scatter; else run it and flip the current buffer;
//   scatter each block ranks its keys by the digit, stably, and writes key (and value) to
//           P_d[block] + rank (the paper's equation 1). Ranking is by four-way splits in shared
//           memory (scatter.comp, the paper's, for wide workgroups) or by per-invocation counter
//           columns (scatter_columns.comp, for small workgroups of many keys: CPU drivers).
// Passes ping-pong between the caller's buffers (raw keys) and scratch copies (encoded keys); which
// one holds the data is a control word the kernels read, since the GPU decides skips and the stop.
// A final gated copy brings the data home when it ended in scratch (never in the normal case).
//
// Scratch: the control words (RADIX_CONTROL_*), the counts ((RADIX + 1) * blocks + 1 words: the digit
// rows, the inversion row and one entry that the scan turns into the grand total), the scan's chunk
// sums, the alternate keys and values, and with column ranking every block's counter columns.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include <memory>

#include "sort/exclusive_scan.hpp"
#include "sort/radix_onesweep.hpp"
#include "sort/sort_target.hpp"
#include "sort/tile_shape.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class RadixSort {
 public:
  RadixSort(gpu::Context& ctx, const SortOptions& options);

  // Keys per tile (block) of the path that sorts most sizes: the single pass where it is built.
  uint32_t tile() const { return single_pass_ ? single_pass_->tile() : shape_.tile(); }
  uint32_t radix_bits() const { return radix_bits_; }
  // Passes recorded for n keys: ceil((end_bit - begin_bit) / radix_bits), 0 below 2 keys.
  uint32_t passes_for(uint64_t n) const;
  VkDeviceSize scratch_bytes(uint64_t n) const;
  uint32_t control_words() const;
  // Throws vksort::Error for a size this configuration cannot sort.
  void check_size(uint64_t n) const;
  void record(gpu::Recorder& rec, const SortTarget& target) const { record(rec, target, timestamp_budget); }
  // The same; names every phase ("count", "scan", "scatter" per pass, "finish") if that takes at most
  // `mark_budget` timestamp marks, else times the whole sort as one phase, "passes".
  void record(gpu::Recorder& rec, const SortTarget& target, uint32_t mark_budget) const;
  // Timestamp marks record() writes when it names every phase of every pass (reduce-then-scan: 3 per
  // pass + finish; single pass: radix_onesweep.hpp).
  uint32_t timestamp_marks(uint64_t n) const {
    return n < 2 ? 0 : uses_single_pass(n) ? single_pass_->timestamp_marks() : 3 * passes_for(n) + 1;
  }
  // Facts of a finished sort from its control words (read back by the caller).
  std::vector<std::pair<std::string, double>> facts(const uint32_t* control, uint32_t n) const;

  // Sorter::sort's timestamp pool (api/sorter.cpp) holds 256 marks, 2 of them its own. A sort needing
  // more than the rest would be timed as one phase, "passes"; no key width and digit width does.
  static constexpr uint32_t timestamp_budget = 254;

 private:
  struct Layout {
    uint32_t blocks = 0;
    uint32_t count_words = 0;  // (RADIX + 1) * blocks + 1
    ExclusiveScan::Plan scan;
    VkDeviceSize counts = 0, sums = 0, alt_keys = 0, alt_values = 0, columns = 0, bytes = 0;  // offsets in scratch
  };
  Layout layout(uint64_t n) const;
  // The single pass sorts n keys when it is built and n fits its counts; reduce-then-scan otherwise.
  bool uses_single_pass(uint64_t n) const { return single_pass_ && n <= ONESWEEP_MAX_KEYS; }
  void record_reduce_then_scan(gpu::Recorder& rec, const SortTarget& target, uint32_t mark_budget) const;
  std::vector<std::pair<std::string, double>> reduce_then_scan_facts(const uint32_t* control, uint32_t n) const;
  // Column ranking: the count hands each block's counter columns (a word per digit and invocation)
  // to the scatter through scratch.
  uint32_t column_words_per_block() const { return (1u << radix_bits_) * shape_.workgroup_size; }

  gpu::Context& ctx_;
  SortOptions options_;
  uint32_t radix_bits_ = 0;
  bool columns_ = false;  // scatter ranks with counter columns (scatter_columns.comp), else splits
  uint32_t begin_bit_ = 0, end_bit_ = 0;
  TileShape shape_;        // scatter and finish; B = shape_.tile()
  TileShape count_shape_;  // same B, a workgroup small enough for its per-invocation histograms
  ExclusiveScan scan_;
  gpu::Kernel init_, count_, gate_, scatter_, finish_;
  bool reduce_then_scan_ = false;  // its kernels above are built (else only the single pass sorts)
  std::unique_ptr<RadixOnesweep> single_pass_;
};

}  // namespace vksort::algo
