// SPDX-License-Identifier: MIT
// Segmented sort by composed keys (32-bit keys): the kernels that turn every key into a 64-bit
// (segment << 32 | encoded key) key, whose one radix sort on bits [0, 32 + ceil(log2(segments)))
// sorts every segment, and that take the keys back out of the sorted composed keys. Records the two
// dispatches; the sort between them is the caller's (a Sorter of u64 keys). Owns its two kernels.
#pragma once

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class SegmentCompose {
 public:
  // options.key must be a 32-bit key (u32, i32, f32); its order and encoding go into the composed keys.
  SegmentCompose(gpu::Context& ctx, const SortOptions& options);

  // composed[p] = (segment of p) << 32 | encoded keys[p] for p < n (or < min(*count, n), count != 0),
  // the segment by binary search in offsets (segments + 1 words, segments >= 1), read when it runs.
  void record_compose(gpu::Recorder& rec, VkDeviceAddress keys, VkDeviceAddress composed, VkDeviceAddress offsets,
                      VkDeviceAddress count, uint32_t n, uint32_t segments) const;
  // keys[p] = the key decoded from composed[p]'s low word, for the same positions.
  void record_decompose(gpu::Recorder& rec, VkDeviceAddress composed, VkDeviceAddress keys, VkDeviceAddress count,
                        uint32_t n) const;

 private:
  void dispatch(gpu::Recorder& rec, const gpu::Kernel& kernel, VkDeviceAddress keys, VkDeviceAddress composed,
                VkDeviceAddress offsets, VkDeviceAddress count, uint32_t n, uint32_t segments) const;

  uint32_t workgroup_ = 0;
  gpu::Kernel compose_, decompose_;
};

}  // namespace vksort::algo
