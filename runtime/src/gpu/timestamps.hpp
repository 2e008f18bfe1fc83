// SPDX-License-Identifier: MIT
// GPU timestamps around the phases of a recorded sort.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/context.hpp"

namespace vksort::gpu {

// A query pool plus the names of the marks written into it. Phase k runs from mark k to mark k+1;
// marks with the same name add up into one phase.
class Timestamps {
 public:
  Timestamps(Context& ctx, uint32_t capacity);
  ~Timestamps();
  Timestamps(const Timestamps&) = delete;
  Timestamps& operator=(const Timestamps&) = delete;

  bool available() const { return pool_ != VK_NULL_HANDLE; }  // false where the queue has no timestamps
  void reset(VkCommandBuffer cmd);                            // record before the first mark
  // Marks the start of phase `name` (or the end of the last phase, with name "end").
  void mark(VkCommandBuffer cmd, const std::string& name);
  // After the command buffer completed: per-phase milliseconds in first-seen order, and the total.
  // Empty / negative when unavailable. A first mark named "start" only anchors the total: its time
  // counts to the next phase, so the phases add up to the total.
  std::vector<std::pair<std::string, double>> phases_ms(double* total_ms) const;

 private:
  Context& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t capacity_ = 0;
  std::vector<std::string> names_;
};

}  // namespace vksort::gpu
