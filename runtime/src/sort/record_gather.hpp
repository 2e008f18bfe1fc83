// SPDX-License-Identifier: MIT
// Record sorting after Ha, Krüger & Silva (seed 003, section 4.7): records of any size that is a
// multiple of 4 bytes do not travel through the sort's passes. The sort carries (key, index) pairs,
// index[i] = i written by index_fill; then the records are moved once, by one gather
// records[i] = copy[index[i]] from a copy taken before the sort. Whatever algorithm sorts the pairs,
// stably, the records end in the stable order. Records dispatches only; owns its three small kernels.
//
// Scratch (after the inner sort's own, which keeps its place at offset 0): the index array, then the
// record copy, each 16-byte aligned.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"

namespace vksort::algo {

class RecordGather {
 public:
  // Throws vksort::Error unless record_bytes is a multiple of 4 in [4, max_record_bytes]. (Sorts carry
  // 4-byte values themselves; argsort and segmented sort gather 4-byte keys and values too.)
  RecordGather(gpu::Context& ctx, uint32_t record_bytes);

  static constexpr uint32_t max_record_bytes = 256;

  struct Layout {
    VkDeviceSize index = 0, copy = 0, bytes = 0;  // offsets in scratch, and the whole scratch size
  };
  // Where index and copy go for n records after `inner_bytes` of the inner sort's scratch.
  Layout layout(VkDeviceSize inner_bytes, uint64_t n) const;

  // Where a sort of n records (or of min(*count, n), with count != 0) puts what.
  struct Target {
    VkDeviceAddress records = 0;  // the caller's records
    VkDeviceAddress index = 0;    // scratch: n words
    VkDeviceAddress copy = 0;     // scratch: n records, 16-byte aligned
    VkDeviceAddress count = 0;    // a GPU-side count, or 0
    uint32_t n = 0;
  };
  // Before the inner sort: index[i] = i and copy = records. Ends with a barrier.
  void record_stage(gpu::Recorder& rec, const Target& t) const;
  // copy = records, without the index and without a barrier (for a second gather sharing one index).
  void record_copy(gpu::Recorder& rec, const Target& t) const;
  // After the inner sort (its writes made visible by this call's leading barrier): records[i] = copy[index[i]].
  void record_gather(gpu::Recorder& rec, const Target& t) const;

  uint32_t record_bytes() const { return record_bytes_; }

  // What a sort of n records records around the sort of its (key, index) pairs, record_stage before
  // it and record_gather after it (Sorter; nothing at all below 2 records): index_fill and the copy,
  // a barrier; a barrier, the gather. Per record by design: the index written by index_fill and read
  // by the gather, the record read and written by the copy and again by the gather.
  static constexpr uint32_t dispatches = 3, global_barriers = 2;
  double bytes_per_record() const { return 2 * 4.0 + 4.0 * record_bytes_; }
  // Adds those to the inner sort's facts `dispatches`, `global_barriers` and `bytes_per_key`, where it
  // reports them (radix sort), for a sort of n records: the facts then describe the whole record sort.
  void add_facts(std::vector<std::pair<std::string, double>>& facts, uint32_t n) const;

 private:
  // The widest chunk kernel whose chunk divides the record size and both addresses' alignment.
  const gpu::Kernel& kernel_for(VkDeviceAddress a, VkDeviceAddress b, uint32_t* chunk_words) const;
  void dispatch_gather(gpu::Recorder& rec, const Target& t, VkDeviceAddress src, VkDeviceAddress dst,
                       VkDeviceAddress index) const;

  uint32_t record_bytes_ = 0;
  uint32_t workgroup_ = 0;
  gpu::Kernel index_fill_;
  gpu::Kernel gather_[3];  // chunks of 1, 2 and 4 words; only those dividing record_bytes are built
};

}  // namespace vksort::algo
