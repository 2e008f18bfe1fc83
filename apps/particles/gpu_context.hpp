// SPDX-License-Identifier: MIT
// gpu_context.hpp — the particle app's own Vulkan device: instance, physical device, device, one
// compute queue, a command pool. vksort borrows it (vksort::BorrowedVulkan), the way an engine that
// already owns a device would embed vksort. Calls go through the system Vulkan loader.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <vulkan/vulkan_core.h>

#include <vksort/device.hpp>

namespace particles::gpu {

struct ContextOptions {
  std::string select;       // as DeviceOptions::select: "" $VKSORT_DEVICE or the best, else an index or a name substring
  bool validation = false;  // VK_LAYER_KHRONOS_validation; every message is counted (and printed)
  // 64-bit buffer atomics (shaderInt64 + shaderBufferInt64Atomics) for the force sums, where the device
  // has them; false runs as if it had not (the tests cover both kernels).
  bool atomic64 = true;
};

// The physical device a Context of `options` uses, chosen by vksort's rule (an all-digit selector is an
// index only) without creating one: what a run is checked against before its state is made. Throws
// Error naming --device or VKSORT_DEVICE when nothing matches.
vksort::DeviceListing choose_device(const ContextOptions& options);

// Messages the validation layer reported since the process started (all contexts).
uint64_t validation_message_count();
std::string last_validation_message();

class Context {
 public:
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return family_; }
  const std::string& name() const { return name_; }
  bool timestamps() const { return timestamp_bits_ != 0; }
  double timestamp_period_ns() const { return timestamp_period_ns_; }
  uint32_t max_group_count_x() const { return max_groups_x_; }
  // Whether the device was created with 64-bit buffer atomics (ContextOptions::atomic64).
  bool atomic64() const { return enabled12_.shaderBufferInt64Atomics == VK_TRUE; }
  // The device lent to vksort, with the features it was created with; valid while this Context lives.
  vksort::BorrowedVulkan borrowed() const;

  // Records into a fresh primary command buffer, submits, waits. Throws on a Vulkan error.
  void submit_and_wait(const std::function<void(VkCommandBuffer)>& record) const;

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::string name_;
  uint32_t timestamp_bits_ = 0;
  double timestamp_period_ns_ = 0.0;
  uint32_t max_groups_x_ = 65535;
  // The features the device was created with (the chain passed to vkCreateDevice).
  VkPhysicalDeviceVulkan12Features enabled12_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 enabled_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
};

// Throws particles::Error naming `what` and the result when `r` is not VK_SUCCESS.
void check(VkResult r, const char* what);

}  // namespace particles::gpu
