// SPDX-License-Identifier: MIT
// LSD radix sort after Ha, Krüger & Silva (seed 003), generalised from 2-bit to 2-, 4- or 8-bit digits.
// Records dispatches only; owns nothing but its kernels.
//
// Two ways to find where keys go (Tuning::radix_scan): the single pass (radix_onesweep.hpp, Onesweep
// with Decoupled Fallback: one dispatch per digit), used wherever it applies, and reduce-then-scan,
// described below, the portable reference that needs no communication inside a dispatch.
//
// A pass sorts stably by one digit of the encoded key. The keys form tiles (blocks) of B = workgroup *
// items keys, and a fixed number of workgroups, sized to the device (groups()), each take a contiguous
// range of tiles, so the spine of counts is groups x radix, not tiles x radix:
//   count   each group's digit histogram over its tiles, digit-major (counts[digit * groups + group]),
//           and its adjacent inversions (the order check, fused into the same read);
//   spine   ONE workgroup: the exclusive prefix sum of the counts in place, and the verdicts, taken in
//           parallel: data sorted -> stop (every later dispatch empty); one digit covers all n keys ->
//           skip the scatter; else run it and flip the current buffer;
//   scatter each group walks its tiles in order, ranks each tile's keys by the digit, stably, and
//           writes key (and value) to P_d[group] + (keys of d in its earlier tiles) + rank (the
//           paper's equation 1 over groups). Ranking is by four-way splits in shared memory
//           (scatter.comp, the paper's, for wide workgroups) or by per-invocation counter columns
//           (scatter_columns.comp, for small workgroups of many keys: CPU drivers).
// Passes ping-pong between the caller's buffers (raw keys) and scratch copies (encoded keys); which
// one holds the data is a control word the kernels read, since the GPU decides skips and the stop.
// A final gated copy brings the data home when it ended in scratch (never in the normal case).
//
// Scratch: the control words (RADIX_CONTROL_*), the counts ((RADIX + 1) * groups words: the digit rows
// and the inversion row), the alternate keys and values, and with column ranking every tile's counter
// columns.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <memory>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "sort/radix_onesweep.hpp"
#include "sort/radix_plain_scans.hpp"
#include "sort/sort_target.hpp"
#include "sort/tile_shape.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class RadixSort {
 public:
  // `single_pass_shape` (AutoCrossovers::single_pass_workgroup and _items, measured by `vksort tune`):
  // the single pass's workgroup x keys per invocation where it ranks by ballots or partitions and
  // Tuning leaves both to the device; 0 x 0, or a shape the device refuses: the built-in one.
  RadixSort(gpu::Context& ctx, const SortOptions& options, TileShape single_pass_shape = {});

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
  // Timestamp marks record() writes when it names every phase of every pass (reduce-then-scan: count,
  // scan (the spine) and scatter per pass + finish; single pass: radix_onesweep.hpp).
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
    uint32_t blocks = 0;           // tiles
    uint32_t groups = 0;           // workgroups of count and scatter
    uint32_t tiles_per_group = 0;  // the last group may have fewer
    uint32_t count_words = 0;      // (RADIX + 1) * groups
    VkDeviceSize counts = 0, alt_keys = 0, alt_values = 0, columns = 0, bytes = 0;  // offsets in scratch
  };
  Layout layout(uint64_t n) const;
  // The single pass sorts n keys when it is built and n fits its counts; reduce-then-scan otherwise.
  bool uses_single_pass(uint64_t n) const { return single_pass_ && n <= single_pass_most_; }
  void record_reduce_then_scan(gpu::Recorder& rec, const SortTarget& target, uint32_t mark_budget) const;
  std::vector<std::pair<std::string, double>> reduce_then_scan_facts(const uint32_t* control, uint32_t n) const;
  // Column ranking: the count hands each block's counter columns (a word per digit and invocation)
  // to the scatter through scratch.
  uint32_t column_words_per_block() const { return (1u << radix_bits_) * shape_.workgroup_size; }
  // Loop iterations per tile of the count and the scatter, by a generous count of their loops: a group
  // takes at most (loop_budget - per group) / that many tiles (loop_budget.hpp).
  uint32_t loops_per_tile() const;
  // The spine's loop iterations per invocation for `groups` groups.
  uint32_t spine_loops(uint64_t groups) const;
  gpu::Context& ctx_;
  SortOptions options_;
  uint32_t radix_bits_ = 0;
  bool columns_ = false;  // scatter ranks with counter columns (scatter_columns.comp), else splits
  uint32_t begin_bit_ = 0, end_bit_ = 0;
  TileShape shape_;        // scatter and finish; B = shape_.tile()
  TileShape count_shape_;  // same B, a workgroup small enough for its per-invocation histograms
  uint32_t target_groups_ = 0;    // groups the device wants busy; more where tiles would exceed the budget
  uint32_t most_tiles_per_group_ = 0;
  gpu::Kernel init_, count_, spine_, scatter_, finish_;
  PlainScans plain_scans_;  // which of count_, spine_, scatter_ scan without subgroups anyway
  bool reduce_then_scan_ = false;  // its kernels above are built (else only the single pass sorts)
  std::unique_ptr<RadixOnesweep> single_pass_;
  // The most keys the single pass sorts: its max_keys(), and on CPU drivers where reduce-then-scan is
  // built beside it (automatic), as many as one storage-buffer binding holds (beyond, the single pass
  // would take device addresses, slower there than reduce-then-scan).
  uint64_t single_pass_most_ = 0;
  bool shape_from_profile_ = false;  // the single pass took the profile's shape (fact shape_from_profile)
};

}  // namespace vksort::algo
