// SPDX-License-Identifier: MIT
// What an application embedding vksort does around Sorter::record: its own command pool and buffer,
// its own barriers, its own submission. Tests use it to exercise the recording path as a user would.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "gpu/context.hpp"
#include "vksort/vksort.hpp"

namespace vksort::test {

class AppCommands {
 public:
  explicit AppCommands(Device& device);  // pool + one primary command buffer, already recording
  ~AppCommands();
  AppCommands(const AppCommands&) = delete;
  AppCommands& operator=(const AppCommands&) = delete;

  VkCommandBuffer cmd() const { return cmd_; }
  // A global memory barrier as the application would record it between its passes.
  void barrier(VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst, VkAccessFlags dst_access);
  // Exactly the barrier sorter.hpp's contract asks of the caller between two sorts (its "before"): the
  // earlier compute shader writes made available and visible to compute shader reads and writes. No
  // transfer or indirect stage: vksort orders its own fills and indirect reads.
  void documented_barrier();
  // Ends, submits on the device's queue, waits; then raises any validation message.
  void submit_and_wait();
  // Submits the ended command buffer once more (it was not recorded for one submission only) and waits.
  void submit_again_and_wait();

 private:
  gpu::Context& ctx_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

// Records two sorts of different inputs into one application command buffer, sharing one scratch
// buffer with the contract's barrier (documented_barrier, nothing more) between them, and checks both
// against the reference; also that too little scratch is a Status, not an exception. Works for any
// algorithm `options` names.
void check_two_recorded_sorts(const SortOptions& options);

// Records sorters[i] on ns[i] keys (keys_of(i)) with u32 values, one after the other into one
// application command buffer, all on ONE scratch buffer with only documented_barrier between them,
// submits once (validation, synchronization validation where on, must stay silent) and checks every
// result against the reference. A later sort's fills and indirect reads of the scratch must come after
// the earlier sort's shader writes without more from the caller: sorter.hpp's contract.
void check_sorts_sharing_scratch(std::span<Sorter* const> sorters, std::span<const uint64_t> ns,
                                 const std::function<std::vector<std::byte>(int)>& keys_of);

}  // namespace vksort::test
