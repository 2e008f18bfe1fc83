// SPDX-License-Identifier: MIT
// Segmented sort's one kernel of its own: the segment of each sorted input position, found by binary
// search in the offsets (which the GPU reads when it runs). Records one dispatch; owns its kernel.
#pragma once

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"

namespace vksort::algo {

class SegmentIds {
 public:
  explicit SegmentIds(gpu::Context& ctx);
  // segment[i] = s with offsets[s] <= index[i] < offsets[s + 1], for i < n (or i < min(*count, n) with a
  // GPU-side count, count != 0); segments >= 1.
  void record(gpu::Recorder& rec, VkDeviceAddress index, VkDeviceAddress segment, VkDeviceAddress offsets,
              VkDeviceAddress count, uint32_t n, uint32_t segments) const;

 private:
  uint32_t workgroup_ = 0;
  gpu::Kernel kernel_;
};

}  // namespace vksort::algo
