// SPDX-License-Identifier: MIT
// Recording compute work into a command buffer: dispatches (split into a 3-D grid where one dimension
// would exceed maxComputeWorkGroupCount), indirect dispatches, fills, barriers and phase timestamps.
#pragma once

#include <span>
#include <string>

#include "gpu/context.hpp"
#include "gpu/kernel.hpp"
#include "gpu/timestamps.hpp"

namespace vksort::gpu {

// A grid of workgroups covering `count` logical groups. Shaders recover the logical id with
// linear_group_id() (shaders/common/grid.glsl) and return when it is >= count.
struct Grid {
  uint32_t x = 0, y = 1, z = 1;
};
Grid grid_for(const Context& ctx, uint64_t groups);
// The most workgroups grid_for lays out on this device (maxComputeWorkGroupCount x * y * z).
uint64_t grid_capacity(const DeviceInfo& info);

// One global memory barrier: `src` stages' `src_access` writes before `dst` stages' `dst_access`.
void memory_barrier(Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access);

class Recorder {
 public:
  Recorder(Context& ctx, VkCommandBuffer cmd, Timestamps* timestamps = nullptr)
      : ctx_(ctx), cmd_(cmd), timestamps_(timestamps) {}

  Context& context() const { return ctx_; }
  // The command buffer, for recording into it directly (checked as cmd() checks it).
  VkCommandBuffer command_buffer() const { return cmd(); }

  // Dispatches `groups` logical workgroups of `kernel` with push constants `push` (the caller puts the
  // logical count into `push` as the shader expects). Nothing is recorded for zero groups.
  template <class Push>
  void dispatch(const Kernel& kernel, const Push& push, uint64_t groups) {
    dispatch_raw(kernel, &push, sizeof(Push), groups);
  }
  // Dispatches with a VkDispatchIndirectCommand that the GPU wrote at `args` + `offset`.
  template <class Push>
  void dispatch_indirect(const Kernel& kernel, const Push& push, VkBuffer args, VkDeviceSize offset) {
    dispatch_indirect_raw(kernel, &push, sizeof(Push), args, offset);
  }

  // Pushes `kernel`'s storage-buffer bindings (Kernel::buffer_bindings): `buffers` holds every
  // binding's descriptors in binding order, each binding's array element 0 first. They stay bound for
  // later dispatches of kernels with the same set layout until pushed again.
  void push_buffers(const Kernel& kernel, std::span<const VkDescriptorBufferInfo> buffers);
  // Fills `bytes` at `offset` with the 32-bit `value`, after every earlier shader access, indirect read
  // and fill (a barrier of its own), and makes it visible to following shaders.
  void fill(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes, uint32_t value);
  // Shader writes before -> shader reads/writes and indirect-argument reads after.
  void compute_barrier();
  // Another recorder (a nested Sorter's) bound pipelines into the same command buffer: bind again.
  void forget_binding() { bound_ = VK_NULL_HANDLE; }
  // Starts phase `name` in the timestamps (if any); "end" closes the last phase.
  void phase(const std::string& name);

 private:
  void bind(const Kernel& kernel, const void* push, uint32_t bytes);
  // DeviceOptions::pretend.dirty_shared_memory: dispatches the context's fill of workgroup memory
  // (nothing where the option is off). Shader memory accesses need no barrier: it touches no buffer.
  void dirty_shared_memory();
  void dispatch_raw(const Kernel& kernel, const void* push, uint32_t bytes, uint64_t groups);
  void dispatch_indirect_raw(const Kernel& kernel, const void* push, uint32_t bytes, VkBuffer args, VkDeviceSize offset);
  // cmd_, checked once before the first thing is recorded into it (after the callers' argument checks,
  // which tests prove record nothing by handing over a pretend handle): it must be a command buffer of
  // ctx_'s VkDevice. Throws Error otherwise.
  VkCommandBuffer cmd() const;
  Context& ctx_;
  VkCommandBuffer cmd_;
  Timestamps* timestamps_;
  VkPipeline bound_ = VK_NULL_HANDLE;
  mutable bool cmd_checked_ = false;
};

}  // namespace vksort::gpu
