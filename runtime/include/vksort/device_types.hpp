// SPDX-License-Identifier: MIT
// vksort/device_types.hpp — the vocabulary of devices: what vksort knows about one (DeviceInfo), how it
// chooses and creates one (DeviceOptions), the handles of one it borrows (BorrowedVulkan), and how the
// system lists them (DeviceListing). Plain data only, shared by vksort::Device and the runtime's Vulkan
// layer, which needs the words but not the class.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "vksort/export.hpp"  // the language check

namespace vksort {

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
  bool subgroup_partitioned = false;     // VK_NV_shader_subgroup_partitioned in compute, enabled by vksort
                                         // (false on a borrowed device: vksort cannot see its extensions)
  // Pipelines can require full subgroups (VK_EXT_subgroup_size_control's computeFullSubgroups, enabled by
  // vksort; on a borrowed device only where BorrowedVulkan::enabled_features says the application
  // enabled it) for workgroups of a multiple of max_subgroup_size invocations.
  bool full_subgroups = false;
  uint32_t max_subgroup_size = 0;        // maxSubgroupSize where the extension is offered, else 0
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
    bool no_full_subgroups = false;          // as if pipelines could not require full subgroups
    // As if a CPU driver (DeviceInfo::type "cpu", e.g. lavapipe) were a GPU ("discrete"): the shapes and
    // choices vksort makes for GPUs run there, so that tests reach them.
    bool gpu = false;
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
    // As if the driver handed out memory that still holds an earlier user's bytes (as GPU drivers do
    // when they recycle freed memory within a process): every device-local buffer vksort allocates is
    // filled with a nonzero pattern, different per buffer, before it is used. A kernel that reads a word
    // nobody wrote this sort then shows, where fresh zeroed memory would hide it: for tests.
    bool dirty_memory = false;
    // As if workgroup memory held an earlier kernel's bytes, as a GPU's does (nothing clears it between
    // workgroups): before every kernel vksort dispatches, a kernel of its own fills workgroup memory with
    // a pattern, new each time. A kernel that reads a word of workgroup memory before writing it then
    // shows on lavapipe, whose workers keep their workgroup memory from one dispatch to the next: surely
    // with LP_NUM_THREADS=1, likely with more threads, never with 0 (memory per dispatch). For tests;
    // each dispatch costs one more.
    bool dirty_shared_memory = false;
  } pretend{};
  // Diagnostic: where the single-pass radix sort's passes spend their time. Its pass kernels read the
  // shader clock at the end of each phase of each tile (taking the tile, loading and counting, offsets,
  // ranking, look-back, staging, writing) and SortStats::facts gives each phase's share of the ticks
  // (`clock_share_<phase>`, summing to 1) and `clock_ticks_per_tile` (on GPUs, multiprocessor cycles).
  // The instrumented kernels have a barrier or two more than the plain ones: read the shares, not
  // their times. Needs VK_KHR_shader_clock's shaderSubgroupClock: Device::create refuses (unsupported)
  // a device that lacks it.
  bool phase_clocks = false;
  // How Algorithm::automatic chooses (vksort/auto_profile.hpp): "" = the profile `vksort tune` saved in
  // the user's cache for this device and driver, if any, else the built-in defaults; "builtin" = the
  // built-in defaults; otherwise the path of a profile file (an error if it cannot be read or parsed).
  std::string auto_profile;
};

// Handles of a Vulkan device the application already has. vksort uses them and never destroys them,
// never changes global state the application owns, and submits on `queue` only from the calls that
// submit and wait (Sorter::sort, Buffer's upload/download/copy_from, the host-data sorts, BucketLists'
// own); Sorter::record submits nothing. The caller must not use the queue from another thread meanwhile.
struct BorrowedVulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  // The family of `queue`: one of the physical device's, with compute (else Device::create refuses it,
  // invalid_argument; vksort's command pool is made for this family).
  uint32_t queue_family = 0;
  // The application's loader entry point; null means the system Vulkan loader's.
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  // The features the application ENABLED at vkCreateDevice: the VkPhysicalDeviceFeatures2 chain it
  // passed (VkPhysicalDeviceVulkan12Features or VkPhysicalDeviceBufferDeviceAddressFeatures in it), read
  // during Device::create only. vksort needs bufferDeviceAddress; a device created without it is refused
  // with Status::Code::unsupported, as is one where the features are supported but were not enabled.
  // Null: not stated, so vksort can only check what the device supports (kept for older callers; an
  // engine should give it). Where the chain also turns on computeFullSubgroups
  // (VkPhysicalDeviceVulkan13Features, or VkPhysicalDeviceSubgroupSizeControlFeatures with its
  // extension), vksort's kernels may require full subgroups (DeviceInfo::full_subgroups): the single-pass
  // radix sort's ballot ranking then needs histogram rows only for the subgroups there are, leaving
  // more shared memory to stage its tile.
  const VkPhysicalDeviceFeatures2* enabled_features = nullptr;
  // The application's pipeline cache: every pipeline vksort creates on this device goes through it (and
  // adds to it), so the application's saved cache covers vksort's pipelines. VK_NULL_HANDLE: vksort
  // makes a cache of its own. Sorters may be created on several threads at once, so the cache must not
  // be VK_PIPELINE_CACHE_CREATE_EXTERNALLY_SYNCHRONIZED_BIT; it must outlive every vksort object on
  // this device.
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  // The application's host allocator, given to every vkCreate* / vkAllocate* / vkDestroy* / vkFree* call
  // vksort makes on this device (pipelines, layouts, shader modules, buffers, memory, command pool, query
  // pools, fences). Null: the driver's. Must outlive every vksort object on this device.
  const VkAllocationCallbacks* allocator = nullptr;
  // The device must have been created with Vulkan 1.2+ and the bufferDeviceAddress feature enabled,
  // from an instance whose VkApplicationInfo::apiVersion is 1.2 or later: a 1.0 or 1.1 instance leaves
  // the device without the 1.2 functions vksort calls (Device::create refuses it, unsupported).
};

// A physical device as the system lists it (vksort::list_devices()).
struct DeviceListing {
  uint32_t index = 0;
  DeviceInfo info;
  bool usable = false;      // meets vksort's requirements
  std::string unusable_why; // the missing feature, when not usable
  bool chosen = false;      // the one DeviceOptions{} would pick
};
}  // namespace vksort
