// SPDX-License-Identifier: MIT
// Records the builds and resorts of bucket lists (seed 002): repeated scatter with GPU-side
// compaction, the heavy-bucket fallback, the sort-based build and the resort. Owns nothing but its
// kernels (and the sort it may use); the buffers come in a BucketTarget.
//
// Resort (section 2.2), with work beyond one streaming pass proportional to the moved elements:
//   gather_moved  one pass over the n elements (ids against buckets): the moved ones are appended to
//                 list slot 1 through an atomic counter (no shared memory, no barrier) and flagged
//   scan_blocks   MOVED: the count becomes the dispatch arguments of everything after, so a resort
//                 that moved nothing ends here
//   unlink        CUT: each run of consecutive moved elements in a list is cut out by its first element,
//                 found through prev pointers (an O(moved) walk, not a pass over every element and
//                 head as in the paper); PRELINK: new buckets, next = the new bucket's head
//   scatter, then the build's iterations for the moved elements alone.
// prev[N] costs 4 N bytes. Builds do not keep it (on lavapipe that made them 10-20% slower): the first
// resort after a build derives it from next (one random store per element: on lavapipe about twice
// the gather's time), fused into the gather (FIND_PREV) on the recording path, in a pass of its own
// once the convenience path knows it will insert rather than build; the insertion iterations and
// fallback keep it (KEEP_PREV), so resorts of resorts need no such pass. The gather has no barrier
// (on lavapipe the old compaction's barriers cost 9 ms at 2^20 even with every workgroup returning
// at once), and everything after it is an indirect dispatch sized by the moved count (zero groups
// when none moved). Measured on a busy 2-core lavapipe, 2^16 - 2^20 elements, 4 per bucket, resort /
// build of the same run: 0.05-0.07 with none moved (the gather alone; 0.33-0.40 with the old
// mark_moved + unlink-every-element + compaction), 0.24-0.30 with 2% right after a build (the prev
// pass is half of it at 2^20), 0.13-0.25 for a resort of a resort (0.45-0.54 before); a first resort
// costs a build at 35-40% moved, hence BucketOptions::rebuild_above.
//
// Iterations (Listing 1, with the active elements compacted after each):
//   link        active elements read their bucket's head: the winner is placed, the others point
//               their next at it; per-tile counts of those still racing
//   scan_blocks one workgroup: exclusive offsets of the counts; the next list's count and the
//               indirect dispatch arguments of the kernels that walk it (zero groups once empty)
//   compact     survivors move to the other list slot and scatter their index into their bucket's head
// K = max_iterations are recorded; the GPU makes the ones after the last useful one empty. The gate
// stops the iterations early once the fallback is inevitable: when the survivors outnumber
// (buckets that had racers) x (iterations left), some bucket holds more than the remaining
// iterations can place, and further iterations would only shrink the fallback slowly. What is left
// (only from buckets with many elements, and with partial update any part not admitted yet, bad ids
// included) is sorted by bucket with a stable LSD radix sort built from the same compaction kernels,
// one split per bit of M in which the leftover keys differ (an element without a bucket sorts as M,
// after every bucket: fallback_key in buckets.glsl; no split for one bucket), sized by the GPU's
// counts, and each run is linked in front of its list. So the
// all-in-one-bucket input costs one iteration and no split, not N iterations, and there is no host
// round trip.
#pragma once

#include <optional>

#include "../../shaders/common/interface.h"
#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "sort/any_sort.hpp"
#include "vksort/bucket_lists.hpp"

namespace vksort::algo {

// One of a BucketLists object's buffers: its handle (for fills and indirect arguments) and address.
struct BucketSpan {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;
};

// Everything one build or resort works on.
struct BucketTarget {
  VkDeviceAddress ids = 0;  // the caller's n bucket ids
  BucketSpan bucket;        // capacity words: the bucket each element is listed in
  BucketSpan head;          // M words
  BucketSpan next;          // capacity words
  BucketSpan list[2];       // capacity words each: the two active-list slots (sort keys / values)
  BucketSpan blocks;        // block_words(capacity) words: two per tile
  BucketSpan prev;          // capacity words: the element before each listed one (resort's unlink)
  BucketSpan control;       // BUCKET_CONTROL_WORDS words
  BucketSpan sort_scratch;  // sort_scratch_bytes(capacity) bytes, when sorts()
  uint32_t n = 0;
  bool prev_valid = false;  // prev describes the lists (the last work on them was a resort's)
};

class BucketBuilder {
 public:
  BucketBuilder(gpu::Context& ctx, const BucketOptions& options);

  uint32_t tile() const { return workgroup_size_ * items_; }
  uint32_t workgroup_size() const { return workgroup_size_; }
  bool subgroups() const { return subgroups_; }  // the subgroup-arithmetic kernels are in use
  uint32_t block_words(uint32_t n) const;
  // True when builds or resorts sort (pairs) and need sort_scratch.
  bool sorts() const { return sort_.has_value(); }
  VkDeviceSize sort_scratch_bytes(uint32_t n) const;
  // Elements per part of the partial update for a build of n (0: off).
  uint32_t part_size(uint32_t n) const;
  uint32_t max_iterations() const { return options_.max_iterations; }

  // The whole of a build or resort (the recording path).
  void record_build(gpu::Recorder& rec, const BucketTarget& t) const;
  void record_resort(gpu::Recorder& rec, const BucketTarget& t) const;

  // The same in pieces, so the convenience path can read the GPU's count between submissions and stop
  // once nothing is left. A repeated-scatter build or resort is start + iterations [0, K) in any
  // number of calls + fallback; sort-based ones are start only (returns false: nothing to iterate).
  bool record_build_start(gpu::Recorder& rec, const BucketTarget& t) const;
  bool record_resort_start(gpu::Recorder& rec, const BucketTarget& t) const;
  // record_resort_start in two steps, so that the convenience path can read the moved count (the
  // report's MOVED word) in between: gather (false: deterministic, the sort-based build is recorded
  // instead), then unlink, prelink and the first scatter.
  bool record_resort_gather(gpu::Recorder& rec, const BucketTarget& t) const;
  void record_resort_unlink(gpu::Recorder& rec, const BucketTarget& t) const;
  // The prev pointers from next, alone: for a gather recorded with prev_valid set although it was not
  // (so that a resort that then builds does not pay for them).
  void record_find_prev(gpu::Recorder& rec, const BucketTarget& t) const;
  // Iterations [begin, end) of a build (resort: of a resort).
  void record_iterations(gpu::Recorder& rec, const BucketTarget& t, bool resort, uint32_t begin, uint32_t end) const;
  // Links what the iterations left (it finds it through the control words).
  void record_fallback(gpu::Recorder& rec, const BucketTarget& t, bool resort) const;
  // The list slot iteration k walks.
  static uint32_t slot_of(bool resort, uint32_t k) { return (k + (resort ? 1 : 0)) & 1; }

 private:
  shader::BucketPush base_push(const BucketTarget& t) const;
  // The control block's first state: list `slot` holds `count` elements (the fallback's list too when
  // `fallback`), nothing admitted beyond `next_part`, every counter zero.
  void write_control(gpu::Recorder& rec, const BucketTarget& t, uint32_t slot, uint32_t count, uint32_t next_part,
                     bool fallback = false) const;
  void record_sorted_build(gpu::Recorder& rec, const BucketTarget& t) const;
  VkDeviceSize args_offset(uint32_t slot) const;

  gpu::Context& ctx_;
  BucketOptions options_;
  uint32_t workgroup_size_ = 0, items_ = 0;
  bool subgroups_ = false;
  bool cpu_device_ = false;
  uint32_t max_x_ = 0, max_y_ = 0;
  gpu::Kernel init_, link_, scan_, compact_, scatter_, split_count_, link_runs_, gather_moved_, unlink_, leftover_bits_;
  std::optional<AnySort> sort_;
};

}  // namespace vksort::algo
