// SPDX-License-Identifier: MIT
// Segmented sort of small segments: one workgroup per segment sorts it in shared memory (bitonic, on
// (key, position in segment) pairs: stable), for segments of up to max_keys() keys; segments of a few
// keys instead one per invocation (insertion sort, no barriers). Records one or two dispatches; owns
// its kernels, one per tile size and the serial one, made when first needed.
#pragma once

#include <array>
#include <optional>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class SegmentTiles {
 public:
  // Throws vksort::Error if the device's shared memory holds no tile of min_tile keys.
  SegmentTiles(gpu::Context& ctx, const SortOptions& options);

  // The largest segment the kernels sort (a power of two, what the device's shared memory allows, at
  // most 2048).
  uint32_t max_keys() const { return max_tile_; }
  // Segments of at most this many keys are sorted one per invocation (no shared memory, no barriers).
  uint32_t serial_limit() const { return serial_keys_; }

  // Sorts every segment of at most `largest` keys (largest <= max_keys(); the tile is the smallest
  // power of two >= largest) in place, and leaves larger ones as they are; with index != 0, index[i] =
  // the input position of output slot i in the segments sorted, the other words left as they are (the
  // caller fills index with the identity first: larger segments, and keys outside every segment when
  // offsets[0] > 0 or offsets[segments] < n). offsets: segments + 1 words; count: a GPU-side key count or 0.
  void record(gpu::Recorder& rec, VkDeviceAddress keys, VkDeviceAddress index, VkDeviceAddress offsets,
              VkDeviceAddress count, uint32_t n, uint32_t segments, uint32_t largest);

 private:
  static constexpr uint32_t min_tile = 64;
  const gpu::Kernel& kernel_for(uint32_t tile);
  const gpu::Kernel& serial_kernel();

  gpu::Context& ctx_;
  SortOptions options_;
  uint32_t max_tile_ = 0, max_workgroup_ = 0;
  uint32_t serial_keys_ = 0;  // segments of at most this many keys: one per invocation
  std::array<std::optional<gpu::Kernel>, 32> kernels_;  // by log2(tile)
  std::optional<gpu::Kernel> serial_;                   // segments of a few keys, one per invocation
};

}  // namespace vksort::algo
