// SPDX-License-Identifier: MIT
#include "gpu/submit.hpp"

#include "vksort/error.hpp"

namespace vksort::gpu {

namespace {
// Frees the command buffer and fence however submit_and_wait leaves.
struct OneShot {
  Context& ctx;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  ~OneShot() {
    if (fence) ctx.vk.vkDestroyFence(ctx.device, fence, ctx.allocator);
    if (cmd) {
      std::lock_guard lock(ctx.submit_mutex);
      ctx.vk.vkFreeCommandBuffers(ctx.device, ctx.command_pool, 1, &cmd);
    }
  }
};
}  // namespace

namespace {
// Throws the error of a lost device for `what`; remembers the first loss so later calls can name it.
[[noreturn]] void device_lost(Context& ctx, const std::string& what, const std::string& detail) {
  std::string message = what + ": " + detail + ": VK_ERROR_DEVICE_LOST";
  {
    std::lock_guard lock(ctx.submit_mutex);
    if (ctx.lost_while.empty()) ctx.lost_while = what;
    else message += " (the device was lost earlier, while " + ctx.lost_while + "; create a new vksort::Device)";
  }
  throw Error(message, VK_ERROR_DEVICE_LOST);
}
}  // namespace

void submit_and_wait(Context& ctx, const std::string& what, const std::function<void(VkCommandBuffer)>& record) {
  {
    std::unique_lock lock(ctx.submit_mutex);
    const bool lost = !ctx.lost_while.empty();
    const bool pretend_loss = ctx.submits_before_loss && ++ctx.submits > ctx.submits_before_loss;
    lock.unlock();
    if (lost || pretend_loss) device_lost(ctx, what, "submitting");
  }
  OneShot shot{ctx};
  {
    // The pool is shared by every thread using this device; Vulkan wants its use serialised. Recording
    // happens under the same lock because vkBeginCommandBuffer/vkCmd* touch the pool's memory.
    std::lock_guard lock(ctx.submit_mutex);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = ctx.command_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    check(ctx.vk.vkAllocateCommandBuffers(ctx.device, &alloc, &shot.cmd), what + " (allocating a command buffer)");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(ctx.vk.vkBeginCommandBuffer(shot.cmd, &begin), what + " (beginning a command buffer)");
    record(shot.cmd);
    check(ctx.vk.vkEndCommandBuffer(shot.cmd), what + " (ending the command buffer)");
  }
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(ctx.vk.vkCreateFence(ctx.device, &fence_info, ctx.allocator, &shot.fence), what + " (creating a fence)");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &shot.cmd;
  VkResult r = VK_SUCCESS;
  {
    std::lock_guard lock(ctx.submit_mutex);
    ctx.submitted = true;
    r = ctx.vk.vkQueueSubmit(ctx.queue, 1, &submit, shot.fence);
  }
  if (r == VK_ERROR_DEVICE_LOST) device_lost(ctx, what, "submitting");
  check(r, what + " (submitting)");
  r = ctx.vk.vkWaitForFences(ctx.device, 1, &shot.fence, VK_TRUE, UINT64_MAX);
  if (r == VK_ERROR_DEVICE_LOST) device_lost(ctx, what, "waiting for the GPU");
  check(r, what + " (waiting for the GPU)");
  ctx.raise_validation_messages();
}

}  // namespace vksort::gpu
