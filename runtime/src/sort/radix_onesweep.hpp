// SPDX-License-Identifier: MIT
// The single-pass radix sort: Onesweep (Adinets & Merrill 2022) with Decoupled Fallback (Smith, Levien
// & Owens, SPAA 2025). RadixSort (radix_sort.hpp) holds one and uses it where it applies. Records
// dispatches only; owns nothing but its kernels.
//
// A sort records:
//   init       one workgroup: control words, per-pass words and histograms cleared, n fixed;
//   histogram  one read of the keys: every pass's digit histogram and the adjacent inversions
//              (shaders/radix/onesweep_histogram.comp); clears tile-state region 0;
//   plan       one workgroup: digit start positions per pass; which passes run (none if sorted,
//              none whose digit is constant), from which buffer, on which state region;
//   pass p     one dispatch per digit: take a tile id, rank the tile's keys by the digit (counter
//              columns or subgroup ballots), publish its counts, look back for its offsets (falling
//              back to counting a predecessor that has not published), scatter;
//   finish     the copy home, only when the data ended in scratch.
// Passes ping-pong between the caller's buffers (raw keys) and scratch (encoded keys), as in
// reduce-then-scan; the plan says which buffer each pass reads.
//
// Scratch: the control words (ONESWEEP_CONTROL_WORDS), passes * RADIX digit words, two tile-state
// regions of tiles * RADIX words each, the alternate keys and values.
#pragma once

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "../../shaders/common/interface.h"
#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "sort/sort_target.hpp"
#include "sort/tile_shape.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class RadixOnesweep {
 public:
  // `ranking` is columns, ballot or match (RadixSort resolves automatic). Throws vksort::Error when that
  // ranking cannot be built on this device with these options.
  RadixOnesweep(gpu::Context& ctx, const SortOptions& options, uint32_t radix_bits, uint32_t begin_bit,
                uint32_t end_bit, RadixRanking ranking);

  // The ranking a device would get by default: columns where workgroups are small and hold many keys
  // (CPU drivers), else ballot where the device has subgroup ballot, else columns.
  static RadixRanking default_ranking(const DeviceInfo& info);

  // Whether a ranking's kernels reach their buffers through bindings on this device (where the target's
  // buffers allow: record()): push descriptors, no phase clocks, and the columns ranking unless
  // VKSORT_BOUND_BUFFERS is 0, the ballot ranking where it is 1 (an experiment for GPUs); never the match.
  static bool binds_buffers(const gpu::Context& ctx, RadixRanking ranking);

  // The ballot and match rankings' workgroup where Tuning::workgroup_size is 0 (radix_onesweep.cpp
  // says why: GPUs 384 invocations for 32-bit keys alone where their tile stages early, else 256).
  static uint32_t default_ballot_workgroup(const DeviceInfo& info, Key key, bool values, uint32_t radix_bits);
  // Their keys per invocation where Tuning::items_per_thread is 0, for a `workgroup` (radix_onesweep.cpp:
  // GPUs 16 for every key kind; CPU drivers as many as the column ranking's tile). The constructor then
  // halves it until the staged tile fits.
  static uint32_t default_ballot_items(const DeviceInfo& info, uint32_t workgroup);

  uint32_t tile() const { return shape_.tile(); }
  // The most keys one sort may have: what tile counts hold (ONESWEEP_MAX_KEYS), and what this device's
  // grids hold, a workgroup per tile (maxComputeWorkGroupCount: 2^30 keys on every real GPU, a few
  // thousand on a device pretending a grid of 7^3). RadixSort takes reduce-then-scan beyond it.
  uint64_t max_keys() const;
  bool columns() const { return columns_; }
  uint32_t passes() const { return (end_bit_ - begin_bit_ + radix_bits_ - 1) / radix_bits_; }
  VkDeviceSize scratch_bytes(uint64_t n) const;
  // Marks record() writes when it names every phase: histogram, one per pass, finish.
  uint32_t timestamp_marks() const { return passes() + 2; }
  void record(gpu::Recorder& rec, const SortTarget& target, bool name_phases) const;
  std::vector<std::pair<std::string, double>> facts(const uint32_t* control, uint32_t n) const;

 private:
  struct Layout {
    uint32_t tiles = 0;
    VkDeviceSize digits = 0, state = 0, alt_keys = 0, alt_values = 0, bytes = 0;  // offsets in scratch
  };
  Layout layout(uint64_t n) const;
  uint32_t histogram_items(uint64_t n) const;
  // The passes of the histogram's first read, which checks the order: all on GPUs; on CPU drivers'
  // columns one or two, the rest read by the same dispatch, or for blocks that found no inversion
  // before any other block did, by a second one once the input is known out of order (onesweep_histogram.comp).
  uint32_t histogram_first_passes() const;
  // The four buffers the bound kernels bind (onesweep_bound.glsl), or false where this target cannot
  // bind them: no bound kernels, a buffer known by address alone, a range beyond maxStorageBufferRange
  // or an offset off minStorageBufferOffsetAlignment.
  bool bound_buffers(const SortTarget& t, const Layout& l, VkDescriptorBufferInfo (&buffers)[4]) const;
  // A pass's ballot kernel refused (ONESWEEP_CONTROL_REFUSED in `control`): says so, and what the
  // caller's buffers hold.
  [[noreturn]] void throw_refused(const uint32_t* control) const;

  gpu::Context& ctx_;
  SortOptions options_;
  uint32_t radix_bits_ = 0, begin_bit_ = 0, end_bit_ = 0;
  bool columns_ = true;
  bool match_ = false;   // ballot's kernel, peers by subgroup partition (RadixRanking::match)
  bool values_ = false;
  bool staged_ = false;  // ballot ranking stages the tile in shared memory (coalesced writes)
  bool early_ = false;   // ... each key as soon as it is ranked, in memory of its own (RadixStaging::early)
  bool count_aggregate_ = false;  // the ballot pass counts a round's first-digit group by one atomic (experiment)
  bool round_barrier_ = false;    // the ballot ranking's rounds by one subgroup barrier on shared memory (experiment)
  bool builtin_lanes_ = false;    // full subgroups' lanes from the builtins, where the pass requires them (experiment)
  bool leader_atomic_ = false;    // 32-bit rows' places moved by a shared atomic add (experiment)
  bool first_window_ = false;     // the per-digit look-back's first round reads a whole window (experiment)
  uint32_t row_bits_ = 0;  // the ballot ranking's histogram counters: 32, or 16 where 32 do not fit (0: columns)
  bool full_subgroups_ = false;  // the ballot pass requires full subgroups: rows for the subgroups there are
  uint32_t subgroups_ = 0;       // the ballot pass's histogram rows: the most subgroups a workgroup may have
  uint32_t window_ = 1;  // predecessors the look-back reads per round (SPEC_ONESWEEP_WINDOW)
  bool per_digit_ = false;  // each invocation owns at most one digit: digits look back on their own
  TileShape shape_;
  uint32_t histogram_replicas_ = 1;  // copies of each histogram counter (VKSORT_HISTOGRAM_REPLICAS forces)
  uint32_t histogram_column_passes_ = 0;  // CPU drivers' columns: passes one read of the keys counts (1 or 2; 0: atomics)
  uint32_t histogram_items_ = 0;  // keys per invocation of the histogram kernel, at most
  gpu::Kernel init_, histogram_, plan_, pass_, finish_;
  // The histogram and pass through storage-buffer bindings (onesweep_bound.glsl), where binds_buffers
  // says so (CPU drivers: their columns ranking); empty elsewhere.
  gpu::Kernel bound_histogram_, bound_pass_;
  // Whether the latest record() bound its buffers (the fact bound_buffers; a Sorter reports the facts
  // of the sort it just recorded and ran).
  mutable std::atomic<bool> recorded_bound_{false};
};

}  // namespace vksort::algo
