// SPDX-License-Identifier: MIT
// Argsort's 64-bit indices: every sort carries a 32-bit index (n < 2^31), and one kernel widens it into
// the caller's uint64_t array. Records one dispatch; owns its kernel.
#pragma once

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"

namespace vksort::algo {

class WidenIndex {
 public:
  explicit WidenIndex(gpu::Context& ctx);
  // wide[i] = narrow[i] for i < n (wide: 8-byte aligned).
  void record(gpu::Recorder& rec, VkDeviceAddress narrow, VkDeviceAddress wide, uint32_t n) const;

 private:
  uint32_t workgroup_ = 0;
  gpu::Kernel kernel_;
};

}  // namespace vksort::algo
