// SPDX-License-Identifier: MIT
#include "gpu/recorder.hpp"

#include <vector>

#include "vksort/error.hpp"
#include "../../shaders/common/interface.h"

namespace vksort::gpu {

uint64_t grid_capacity(const DeviceInfo& info) {
  return uint64_t(info.max_workgroup_count[0]) * info.max_workgroup_count[1] * info.max_workgroup_count[2];
}

Grid grid_for(const Context& ctx, uint64_t groups) {
  const uint64_t mx = ctx.info.max_workgroup_count[0], my = ctx.info.max_workgroup_count[1],
                 mz = ctx.info.max_workgroup_count[2];
  if (groups <= mx) return {uint32_t(groups), 1, 1};
  // Fewest layers first, then rows, then the narrowest row that still covers every group; the shader
  // drops the few excess groups of the last layer.
  const uint64_t z = (groups + mx * my - 1) / (mx * my);
  if (z > mz)
    throw Error("a dispatch of " + std::to_string(groups) + " workgroups exceeds maxComputeWorkGroupCount (" +
                std::to_string(mx) + " x " + std::to_string(my) + " x " + std::to_string(mz) + ") of \"" +
                ctx.info.name + "\"");
  const uint64_t per_layer = (groups + z - 1) / z;
  const uint64_t y = (per_layer + mx - 1) / mx;
  const uint64_t x = (per_layer + y - 1) / y;
  return {uint32_t(x), uint32_t(y), uint32_t(z)};
}

void memory_barrier(Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  ctx.vk.vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

VkCommandBuffer Recorder::cmd() const {
  if (cmd_checked_) return cmd_;
  if (cmd_ == VK_NULL_HANDLE) throw Error("no command buffer to record into");
  // Through the Vulkan loader every dispatchable handle starts with its dispatch table, and a command
  // buffer gets its device's (the loader-driver interface; vkAllocateCommandBuffers sets it): another
  // device's command buffer has another. Recorded into, it called that device's driver with this
  // device's pipelines (a crash inside the validation layer; undefined behaviour without it).
  if (*reinterpret_cast<void* const*>(cmd_) != *reinterpret_cast<void* const*>(ctx_.device))
    throw Error("the command buffer was allocated on another VkDevice than the vksort::Device's (" + ctx_.info.name +
                "): record into a command buffer of the Device's own VkDevice");
  cmd_checked_ = true;
  return cmd_;
}

void Recorder::bind(const Kernel& kernel, const void* push, uint32_t bytes) {
  if (bytes != kernel.push_bytes())
    throw Error("internal: push constants for " + kernel.name() + " are " + std::to_string(bytes) + " bytes, expected " +
                std::to_string(kernel.push_bytes()));
  if (bound_ != kernel.pipeline()) {
    ctx_.vk.vkCmdBindPipeline(cmd(), VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline());
    bound_ = kernel.pipeline();
  }
  if (bytes) ctx_.vk.vkCmdPushConstants(cmd(), kernel.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, push);
}

void Recorder::dirty_shared_memory() {
  if (!ctx_.dirty_shared) return;
  shader::DirtySharedPush push{};
  push.seed = ctx_.dirty_dispatches.fetch_add(1, std::memory_order_relaxed);
  bind(*ctx_.dirty_shared, &push, sizeof(push));
  ctx_.vk.vkCmdDispatch(cmd(), ctx_.dirty_shared_groups, 1, 1);
}

void Recorder::dispatch_raw(const Kernel& kernel, const void* push, uint32_t bytes, uint64_t groups) {
  if (groups == 0) return;
  Grid g = grid_for(ctx_, groups);
  dirty_shared_memory();
  bind(kernel, push, bytes);
  ctx_.vk.vkCmdDispatch(cmd(), g.x, g.y, g.z);
}

void Recorder::dispatch_indirect_raw(const Kernel& kernel, const void* push, uint32_t bytes, VkBuffer args,
                                     VkDeviceSize offset) {
  dirty_shared_memory();
  bind(kernel, push, bytes);
  ctx_.vk.vkCmdDispatchIndirect(cmd(), args, offset);
}

void Recorder::push_buffers(const Kernel& kernel, std::span<const VkDescriptorBufferInfo> buffers) {
  const std::vector<uint32_t>& bindings = kernel.buffer_bindings();
  size_t expected = 0;
  for (uint32_t count : bindings) expected += count;
  if (buffers.size() != expected)
    throw Error("internal: " + kernel.name() + " binds " + std::to_string(expected) + " storage buffers, given " +
                std::to_string(buffers.size()));
  // One write per binding, all its array elements at once (lavapipe 22.3 ignored a push-descriptor write
  // that named array element 1 alone).
  std::vector<VkWriteDescriptorSet> writes;
  size_t first = 0;
  for (uint32_t k = 0; k < bindings.size(); ++k) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstBinding = k;
    w.descriptorCount = bindings[k];
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = buffers.data() + first;
    first += bindings[k];
    writes.push_back(w);
  }
  ctx_.vk.vkCmdPushDescriptorSetKHR(cmd(), VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout(), 0, uint32_t(writes.size()),
                                    writes.data());
}

void Recorder::fill(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes, uint32_t value) {
  // A fill is a transfer write: the callers' barrier contracts (sorter.hpp) name only the compute
  // stage, so nothing of theirs orders it after an earlier sort's shader accesses and indirect reads
  // of the same scratch (automatic alternates brick and radix sort on one scratch). This barrier does.
  memory_barrier(ctx_, cmd(),
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_WRITE_BIT);
  ctx_.vk.vkCmdFillBuffer(cmd(), buffer, offset, bytes, value);
  memory_barrier(ctx_, cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

void Recorder::compute_barrier() {
  memory_barrier(ctx_, cmd(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

void Recorder::phase(const std::string& name) {
  if (timestamps_) timestamps_->mark(cmd(), name);
}

}  // namespace vksort::gpu
