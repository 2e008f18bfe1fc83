// SPDX-License-Identifier: MIT
// Exclusive prefix sum of 32-bit words on the GPU, any length: reduce-then-scan over levels of chunks
// (shaders/scan). No workgroup waits for another, so it needs no forward-progress guarantee. Records
// dispatches only; the caller supplies the data and the scratch for the per-chunk sums.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"

namespace vksort::algo {

class ExclusiveScan {
 public:
  ExclusiveScan() = default;
  explicit ExclusiveScan(gpu::Context& ctx);

  // Words one workgroup scans.
  uint32_t chunk() const { return workgroup_size_ * items_; }

  // The levels for `count` words: level 0 is the data, level l + 1 holds the chunk sums of level l,
  // and the last level fits one chunk. Level l >= 1 lives at sums + offsets[l] (bytes).
  struct Plan {
    std::vector<uint32_t> sizes;       // words per level
    std::vector<uint64_t> offsets;     // byte offset of level l in the sums scratch (0 for level 0)
    uint64_t sums_bytes = 0;           // scratch the sums need
    // Dispatch slots: slot l is the grid of level l's dispatches (both kernels); the last is 1 group.
    std::vector<uint64_t> groups;
  };
  Plan plan(uint32_t count) const;

  // Where indirect dispatch arguments for the slots live, if the caller gates the scan on the GPU:
  // slot l at buffer + offset + l * stride (a VkDispatchIndirectCommand each).
  struct Indirect {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize stride = 0;
  };

  // Replaces the `plan.sizes[0]` words at `data` by their exclusive prefix sum (wrapping mod 2^32).
  // Ends with a compute barrier. With `indirect`, every dispatch takes its grid from there.
  void record(gpu::Recorder& rec, const Plan& plan, VkDeviceAddress data, VkDeviceAddress sums,
              const Indirect* indirect = nullptr) const;

 private:
  gpu::Context* ctx_ = nullptr;
  uint32_t workgroup_size_ = 0, items_ = 0;
  gpu::Kernel reduce_, exclusive_;
};

}  // namespace vksort::algo
