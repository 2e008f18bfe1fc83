// SPDX-License-Identifier: MIT
// vksort/device.hpp — the GPU vksort runs on: created by vksort, or borrowed from the application.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vksort/export.hpp"

namespace vksort {

namespace gpu { struct Context; }
namespace detail { class HostSorters; }
struct AutoProfile;

// What the sorting code needs to know about a device, read from its properties (never assumed).
struct DeviceInfo {
  std::string name;
  std::string type;                      // "discrete", "integrated", "virtual", "cpu", "other"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t api_version = 0;              // VK_MAKE_API_VERSION
  uint32_t driver_version = 0;
  std::string driver_name;               // from VkPhysicalDeviceDriverProperties
  std::string driver_info;
  uint8_t uuid[VK_UUID_SIZE] = {};
  uint32_t subgroup_size = 0;            // 0 when the device reports none usable in compute
  bool subgroup_arithmetic = false;      // subgroup add/min/max in the compute stage
  bool subgroup_ballot = false;
  bool subgroup_shuffle = false;
  uint32_t max_shared_memory = 0;        // maxComputeSharedMemorySize, bytes
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_count[3] = {};
  uint64_t max_storage_buffer_range = 0; // bytes one descriptor can see (vksort uses addresses instead)
  uint64_t max_allocation_size = 0;      // maxMemoryAllocationSize, bytes
  uint64_t device_local_bytes = 0;       // size of the largest device-local heap
  uint32_t max_push_constants = 0;
  bool timestamps = false;               // the chosen queue can write timestamps
  double timestamp_period_ns = 0.0;
  uint32_t timestamp_valid_bits = 0;
  uint32_t queue_family = 0;
};

// How vksort::Device chooses and creates a device.
struct DeviceOptions {
  // Which physical device: "" means the VKSORT_DEVICE environment variable if set, else the best by
  // type (discrete > integrated > virtual > cpu). Otherwise an index into list_devices() or a
  // case-insensitive substring of the device name.
  std::string select;
  // Enable VK_LAYER_KHRONOS_validation and raise any error or warning it reports as vksort::Error.
  // -1: follow VKSORT_VALIDATION (=1 enables); 0 off; 1 on (an error if the layer is not installed).
  int validation = -1;
  // Pretend the device is smaller than it is (0 keeps the real limit), so the code paths for small
  // devices run anywhere: tests use it; users may, to reproduce a smaller device's behaviour.
  struct PretendLimits {
    uint32_t max_shared_memory = 0;          // bytes
    uint32_t max_workgroup_invocations = 0;
    uint32_t max_workgroup_count = 0;        // in each dimension
    bool no_timestamps = false;              // as if the queue could not write timestamps
    bool no_subgroups = false;               // as if compute had no subgroup operations: shared-memory paths
    // Device-local bytes vksort may hold at once (0: no pretend budget); allocations beyond it fail
    // with VK_ERROR_OUT_OF_DEVICE_MEMORY as a full device's would.
    uint64_t device_memory = 0;
    // Submissions that succeed before the device is lost (0: never): the next one fails with
    // VK_ERROR_DEVICE_LOST without reaching the driver, and so does every one after it.
    uint32_t lose_device_after = 0;
    // The single-pass radix sort's look-back finds this percentage of predecessor tiles unpublished, as
    // a device without forward-progress guarantees might leave them, so its fallback (counting the
    // predecessor's keys itself) runs at that rate: for tests. 0: never; values above 100 mean 100.
    uint32_t lookback_stall_percent = 0;
  } pretend{};
  // How Algorithm::automatic chooses (vksort/auto_profile.hpp): "" = the profile `vksort tune` saved in
  // the user's cache for this device and driver, if any, else the built-in defaults; "builtin" = the
  // built-in defaults; otherwise the path of a profile file (an error if it cannot be read or parsed).
  std::string auto_profile;
};

// Handles of a Vulkan device the application already has. vksort uses them and never destroys them,
// never changes global state the application owns, and submits on `queue` only from Sorter::sort and
// Buffer helpers (the caller must then not use the queue from another thread at the same time).
struct BorrowedVulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  // The application's loader entry point; null means the system Vulkan loader's.
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  // The device must have been created with Vulkan 1.2+ and the bufferDeviceAddress feature enabled.
};

// One GPU. Cheap to copy (copies share the device); thread-safe for separate Sorters and Buffers.
// The shared state lives until the last Device copy, Sorter, Buffer and BucketLists made from it is
// gone; only then is a device vksort created (and its instance) destroyed.
class VKSORT_API Device {
 public:
  // Creates an instance and a device of its own (see DeviceOptions). Throws vksort::Error when there is
  // no Vulkan loader, no usable device, no device matching `select`, or a requested validation layer,
  // and when instance or device creation fails.
  explicit Device(const DeviceOptions& options = {});
  // Uses the application's handles (see BorrowedVulkan) and destroys none of them. Throws
  // vksort::Error when a handle is null or the device lacks a feature vksort needs.
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
  // device starts from the user's cached profile, like DeviceOptions::auto_profile = "".
  const AutoProfile& auto_profile() const;
  // Replaces it for the Sorters created afterwards, on this Device and every copy of it. Not to be
  // called while another thread creates a Sorter on the same device.
  void set_auto_profile(const AutoProfile& profile);

  gpu::Context& context() const { return *ctx_; }  // internal: for the runtime's own layers
  // Internal: the Sorters and buffers vksort::sort on host data keeps between calls (shared by every
  // copy of this Device; null on the copies those Sorters hold), and such a copy.
  detail::HostSorters* host_sorters() const { return host_sorters_.get(); }
  Device without_host_sorters() const;

 private:
  std::shared_ptr<gpu::Context> ctx_;
  std::shared_ptr<AutoProfile> profile_;
  std::shared_ptr<detail::HostSorters> host_sorters_;
};

// A physical device as the system lists it (for `vksort info` and VKSORT_DEVICE by index).
// list_devices() uses a temporary instance of its own; throws vksort::Error when no Vulkan loader is
// installed.
struct DeviceListing {
  uint32_t index = 0;
  DeviceInfo info;
  bool usable = false;      // meets vksort's requirements
  std::string unusable_why; // the missing feature, when not usable
  bool chosen = false;      // the one DeviceOptions{} would pick
};
VKSORT_API std::vector<DeviceListing> list_devices();

// True when VK_LAYER_KHRONOS_validation is installed (DeviceOptions::validation = 1 then works).
// Throws vksort::Error when no Vulkan loader is installed.
VKSORT_API bool validation_layer_available();

}  // namespace vksort
