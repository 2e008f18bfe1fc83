// SPDX-License-Identifier: MIT
// One device as the runtime sees it: handles, function tables, limits, queue, command pool,
// pipeline cache and the validation messages reported for it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gpu/vulkan.hpp"
#include "vksort/device_types.hpp"

namespace vksort::gpu {

// The instance-level entry points the runtime calls, loaded per instance (volk 1.3.239 has no
// instance table, and its globals would be shared by every instance).
struct InstanceFns {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkGetDeviceProcAddr vkGetDeviceProcAddr = nullptr;
  PFN_vkDestroyInstance vkDestroyInstance = nullptr;
  PFN_vkEnumeratePhysicalDevices vkEnumeratePhysicalDevices = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 vkGetPhysicalDeviceProperties2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 vkGetPhysicalDeviceFeatures2 = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties vkGetPhysicalDeviceMemoryProperties = nullptr;
  PFN_vkGetPhysicalDeviceQueueFamilyProperties vkGetPhysicalDeviceQueueFamilyProperties = nullptr;
  PFN_vkEnumerateDeviceExtensionProperties vkEnumerateDeviceExtensionProperties = nullptr;
  PFN_vkCreateDevice vkCreateDevice = nullptr;
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
  void load(PFN_vkGetInstanceProcAddr gipa, VkInstance instance);
};

class StagingPool;
class Kernel;

// What the driver compiled one pipeline into (VK_KHR_pipeline_executable_properties): the statistics
// as the driver names and orders them, e.g. RADV's "VGPRs", "Spilled VGPRs", "Scratch size".
struct CompiledPipeline {
  std::string kernel;      // the embedded shader's name
  std::string constants;   // "workgroup W, spec ID=V, ..."
  std::string executable;  // the driver's name for the executable
  std::vector<std::pair<std::string, std::string>> statistics;
  // The statistic `name` as a number; false where the driver reports no such number.
  bool number(const std::string& name, double& value) const;
};

struct Context {
  // Handles. `owns_device` is false for a borrowed device: then nothing here is destroyed but what
  // vksort created itself (command pool, and the pipeline cache when `owns_pipeline_cache`).
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  bool owns_device = false;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  bool owns_pipeline_cache = false;
  // The application's host allocator (BorrowedVulkan::allocator), or null: passed to every create,
  // allocate, destroy and free vksort calls on `device`.
  const VkAllocationCallbacks* allocator = nullptr;

  InstanceFns ifn;
  VolkDeviceTable vk{};  // every device-level call goes through this table
  DeviceInfo info;
  VkPhysicalDeviceMemoryProperties memory{};
  bool validation = false;
  // VKSORT_PIPELINE_STATS on a device that offers VK_KHR_pipeline_executable_properties (enabled):
  // every Kernel reports what the driver compiled (gpu/pipeline_statistics.hpp), kept in `compiled`.
  bool pipeline_statistics = false;
  std::mutex compiled_mutex;
  std::vector<CompiledPipeline> compiled;
  // DeviceOptions::phase_clocks (VK_KHR_shader_clock enabled): the single-pass radix sort builds its
  // instrumented pass kernels (shaders/radix/onesweep_clocks.glsl).
  bool phase_clocks = false;
  // VK_EXT_external_memory_host, enabled where offered on a device vksort creates (it costs nothing):
  // memory the host allocated may back a buffer (test_read_bounds puts sorts' ranges next to
  // inaccessible pages with it, so that a shader's read past a range faults on lavapipe).
  bool host_pointer_import = false;
  // VK_KHR_push_descriptor and shaderStorageBufferArrayDynamicIndexing, enabled on a device vksort
  // creates where offered: kernels may then reach buffers through storage-buffer bindings pushed at
  // record time (gpu::Recorder::push_buffers) instead of device addresses, which CPU drivers access
  // several times faster (Kernel's `buffer_bindings`).
  bool push_descriptors = false;
  VkDeviceSize min_storage_offset_alignment = 0;  // minStorageBufferOffsetAlignment, where push_descriptors

  // DeviceOptions::pretend.device_memory (0: none) and the device-local bytes DeviceBuffers hold now.
  uint64_t memory_budget = 0;
  // DeviceOptions::pretend.lookback_stall_percent: the single-pass radix sort's look-back finds this
  // share of predecessor tiles unpublished (0: never pretends).
  uint32_t lookback_stall_percent = 0;
  // DeviceOptions::pretend.dirty_memory: DeviceBuffer fills each new device-local buffer with a
  // pattern; `dirty_buffers` counts them, so each gets its own.
  bool dirty_memory = false;
  std::atomic<uint32_t> dirty_buffers{0};
  // DeviceOptions::pretend.dirty_shared_memory: the kernel (util/dirty_shared.comp) every Recorder
  // dispatches, `dirty_shared_groups` workgroups of it, before each of its own; `dirty_dispatches`
  // numbers them, each fill's seed.
  std::unique_ptr<Kernel> dirty_shared;
  uint32_t dirty_shared_groups = 0;
  std::atomic<uint32_t> dirty_dispatches{0};
  std::atomic<uint64_t> device_local_in_use{0};

  // A lost device stays lost: what was running then, so later calls fail at once and say so.
  // `submits_before_loss` is DeviceOptions::pretend.lose_device_after (0: no pretend loss).
  std::string lost_while;
  uint32_t submits_before_loss = 0;
  uint32_t submits = 0;
  // Whether vksort ever submitted work on `queue` (see ~Context).
  std::atomic<bool> submitted{false};

  // The size of every live DeviceBuffer (vksort::Buffer included), so that BufferRef ranges on them are
  // checked against the size they were created with (see buffer_extent in memory.hpp).
  std::mutex buffers_mutex;
  std::unordered_map<VkBuffer, VkDeviceSize> buffer_sizes;

  // Staging memory kept between copies (Buffer::upload / download); emptied first when the context goes.
  std::unique_ptr<StagingPool> staging;

  // Serialises use of `queue` and `command_pool` (Vulkan requires external synchronisation).
  std::mutex submit_mutex;

  // Validation messages (errors and warnings) not yet raised, each with the thread whose Vulkan call
  // reported it (the layer calls back on that thread).
  std::mutex messages_mutex;
  std::vector<std::pair<std::thread::id, std::string>> messages;

  Context();  // out of line, like the destructor: only there is StagingPool complete
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  // Throws vksort::Error listing the validation messages reported since the last call, if any.
  void raise_validation_messages();
  // The same for the messages the calling thread's own Vulkan calls reported: what a record() into the
  // application's command buffer caused, raised by that record() (it was raised by the next submission
  // of any thread, failing another thread's correct sort).
  void raise_validation_messages_of_this_thread();
  // The memory type index with `required` flags among `type_bits`, or UINT32_MAX.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const;
};

// The live invocations each subgroup of a workgroup of whole subgroups surely has where the pipeline does
// not require full subgroups, as far as vksort knows the driver: llvmpipe runs compute shaders at most
// llvmpipe_compute_lanes wide whatever subgroup size it reports (so at LP_NATIVE_VECTOR_WIDTH=2048 a
// workgroup has 4 times the subgroups its size of 64 makes); other drivers are counted on to fill at
// least half of each. Vulkan promises no such bound: kernels that size memory by it check it
// (onesweep_ballot.comp refuses).
constexpr uint32_t llvmpipe_compute_lanes = 16;  // Mesa's lp_state_cs.c: MIN2(lp_native_vector_width / 32, 16)
uint32_t partial_subgroup_lanes(const DeviceInfo& info);

// Whether `physical` offers the device extension `name`.
bool offers_extension(const InstanceFns& ifn, VkPhysicalDevice physical, const char* name);

// Where `physical` offers the device extension `name` and its feature `flag` (a VkBool32 of Feature,
// whose sType is `type`): adds the extension to `extensions`, makes `feature` ask for the flag and links
// it at *chain (vkCreateDevice's pNext chain), and returns true. Otherwise changes nothing: false.
template <class Feature>
bool add_extension_feature(const InstanceFns& ifn, VkPhysicalDevice physical, const char* name, VkStructureType type,
                           VkBool32 Feature::*flag, Feature& feature, std::vector<const char*>& extensions, void** chain) {
  if (!offers_extension(ifn, physical, name)) return false;
  Feature supported{};
  supported.sType = type;
  VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &supported};
  ifn.vkGetPhysicalDeviceFeatures2(physical, &query);
  if (!(supported.*flag)) return false;
  extensions.push_back(name);
  feature = {};
  feature.sType = type;
  feature.*flag = VK_TRUE;
  feature.pNext = *chain;
  *chain = &feature;
  return true;
}

// Whether a feature is on in the chain an application passed to vkCreateDevice (BorrowedVulkan::
// enabled_features): bufferDeviceAddress in Vulkan 1.2's feature struct or the extension's;
// computeFullSubgroups in Vulkan 1.3's or VK_EXT_subgroup_size_control's.
bool enabled_buffer_device_address(const VkPhysicalDeviceFeatures2& features);
bool enabled_compute_full_subgroups(const VkPhysicalDeviceFeatures2& features);

// Creates a context for the device that `options` selects (instance and device owned by it).
std::shared_ptr<Context> create_context(const DeviceOptions& options);
// Wraps the application's device (nothing of the application's is destroyed later).
std::shared_ptr<Context> borrow_context(const BorrowedVulkan& borrowed);

// Process-wide count of validation messages reported by any vksort messenger, including those at
// instance or device destruction that no call can raise any more. Tests check it stays 0.
bool validation_layer_installed();
uint64_t validation_message_count();
std::string last_validation_message();

}  // namespace vksort::gpu
