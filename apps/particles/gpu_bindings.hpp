// SPDX-License-Identifier: MIT
// gpu_bindings.hpp — one descriptor set of storage buffers that every particle kernel binds: the
// per-slot arrays (dpd_interface.h's DPD_BIND_*), reached by descriptor rather than by address.
//   Why: lavapipe (Mesa 22's gallivm) loads and stores through a buffer device address one lane and
// one component at a time, a loop over the lanes per component, but through a storage buffer binding
// all components of a lane in one loop over the lanes. The force kernel took 11 ms a step instead of
// 19 (32000 particles), the reordering 0.8 instead of 2.7. GPUs reach both the same way.
#pragma once

#include <span>
#include <string>

#include <vulkan/vulkan_core.h>

#include "gpu_context.hpp"

namespace particles::gpu {

class Bindings {
 public:
  struct Buffer {
    VkBuffer buffer;
    VkDeviceSize bytes;
    std::string what;  // for errors
  };
  // Binding k of set 0 is buffers[k], whole, as a storage buffer visible to compute shaders. Throws
  // Error if the device binds fewer storage buffers per shader (maxPerStageDescriptorStorageBuffers,
  // 4 or more) or a buffer is larger than one binding may be (maxStorageBufferRange, 128 MiB or more).
  Bindings(const Context& ctx, std::span<const Buffer> buffers);
  ~Bindings();
  Bindings(const Bindings&) = delete;
  Bindings& operator=(const Bindings&) = delete;

  // The constructor's check, given the limits (a test can pass any).
  static void check_limits(std::span<const Buffer> buffers, const VkPhysicalDeviceLimits& limits);

  VkDescriptorSetLayout layout() const { return layout_; }
  VkDescriptorSet set() const { return set_; }

 private:
  const Context& ctx_;
  VkDescriptorSetLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace particles::gpu
