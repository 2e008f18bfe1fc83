// SPDX-License-Identifier: MIT
// vksort/device.hpp — the GPU vksort runs on: created by vksort, or borrowed from the application.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vksort/device_types.hpp"
#include "vksort/error.hpp"
#include "vksort/export.hpp"

namespace vksort {

namespace gpu { struct Context; }
namespace detail {
class HostSorters;
struct Internals;
}  // namespace detail
struct AutoProfile;

// One GPU. Cheap to copy (copies share the device); thread-safe for separate Sorters and Buffers.
// The shared state lives until the last Device copy, Sorter, Buffer and BucketLists made from it is
// gone; only then is a device vksort created (and its instance) destroyed.
class VKSORT_API Device {
 public:
  // Creates an instance and a device of its own (see DeviceOptions). Never throws: the Device, or a
  // Status: unsupported when there is no Vulkan loader, no usable device or no requested validation
  // layer; invalid_argument when no device matches `select` or the auto profile cannot be read; the
  // Vulkan codes when instance or device creation fails.
  static Result<Device> create(const DeviceOptions& options = {}) noexcept;
  // Uses the application's handles (see BorrowedVulkan) and destroys none of them. Never throws: the
  // Device, or a Status: invalid_argument when a handle is null; unsupported when the device lacks (or
  // was created without enabling) a feature vksort needs.
  static Result<Device> create(const BorrowedVulkan& borrowed) noexcept;
  // The same, throwing vksort::Error (carrying the Status's code, result and message) instead.
  explicit Device(const DeviceOptions& options = {});
  explicit Device(const BorrowedVulkan& borrowed);
  ~Device();
  Device(const Device&);
  Device& operator=(const Device&);

  // Never throw; the handles stay owned by whoever created them (vksort or the application).
  const DeviceInfo& info() const;
  VkDevice vk_device() const;
  VkPhysicalDevice vk_physical_device() const;
  bool validation_enabled() const;

  // How Algorithm::automatic chooses on this device; Sorters read it when they are created. A borrowed
  // device starts from the user's cached profile, like DeviceOptions::auto_profile = "". The reference
  // is to the state set_auto_profile replaces: copy it where another thread may set it meanwhile.
  const AutoProfile& auto_profile() const;
  // Replaces it for the Sorters created afterwards, on this Device and every copy of it; safe while
  // other threads create Sorters and sort (they read it under a lock). The host sorts' kept Sorters
  // (vksort::sort on spans) go too: idle ones now, ones in use on another thread when that call ends.
  void set_auto_profile(const AutoProfile& profile);

  // Frees the memory and pipelines vksort keeps between host-data calls on this Device and every copy
  // of it: the Sorters and device buffers of vksort::sort / sort_host (up to four sets of options, up
  // to 16 MiB each), argsort's and segmented sort's pipelines, and the staging memory uploads and
  // downloads reuse (up to four buffers of up to 16 MiB). Otherwise they live until the last Device
  // copy is gone. Never throws. Later calls work as before, making (and keeping) what they need anew.
  // Safe while other threads sort on this Device: what a call in progress is using is not freed
  // under it, and is freed (not kept) when that call ends. Sorters, Buffers and BucketLists you made
  // yourself are yours, and untouched.
  void release_cached_memory();

 private:
  friend struct detail::Internals;  // the runtime's own layers reach the context through it (api/internals.hpp)
  Device(std::shared_ptr<gpu::Context> ctx, const AutoProfile& profile);
  std::shared_ptr<gpu::Context> ctx_;
  std::shared_ptr<AutoProfile> profile_;
  std::shared_ptr<detail::HostSorters> host_sorters_;
};

// The physical devices as the system lists them (for `vksort info` and VKSORT_DEVICE by index), from a
// temporary instance of its own. Throws vksort::Error when no Vulkan loader or no Vulkan driver is
// installed (an empty list: a driver that finds no device).
VKSORT_API std::vector<DeviceListing> list_devices();

// The physical device that Device(options) would create, by the same rule (options.select, else
// VKSORT_DEVICE, else the best by type), from a temporary instance and without creating a device: for
// programs that create their own VkDevice for vksort to borrow (match DeviceInfo::uuid against
// VkPhysicalDeviceIDProperties::deviceUUID). Throws vksort::Error as Device does when nothing matches
// or the match is not usable.
VKSORT_API DeviceListing choose_device(const DeviceOptions& options = {});

// True when VK_LAYER_KHRONOS_validation is installed (DeviceOptions::validation = 1 then works).
// Throws vksort::Error when no Vulkan loader is installed.
VKSORT_API bool validation_layer_available();

}  // namespace vksort
