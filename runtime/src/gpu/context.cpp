// SPDX-License-Identifier: MIT
#include "gpu/context.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "gpu/device_select.hpp"
#include "gpu/kernel.hpp"
#include "gpu/pipeline_statistics.hpp"
#include "gpu/staging_pool.hpp"
#include "vksort/error.hpp"
#include "../../shaders/common/interface.h"

namespace vksort::gpu {

namespace {

std::atomic<uint64_t> g_validation_count{0};
std::mutex g_last_message_mutex;
std::string g_last_message;

// volk opens the system loader once per process; its (privately named) globals are ours alone.
PFN_vkGetInstanceProcAddr system_loader() {
  static const VkResult result = volkInitialize();
  if (result != VK_SUCCESS)
    throw Error(Status::Code::unsupported, "loading the Vulkan loader (libvulkan.so.1): is a Vulkan loader installed?", result);
  return vkGetInstanceProcAddr;
}

// Any error or warning from the validation layer is a defect: keep it so the next vksort call raises it.
VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                     void* user) {
  if (!(severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)))
    return VK_FALSE;
  std::string text = std::string(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning") +
                     ": " + (data && data->pMessage ? data->pMessage : "(no message)");
  g_validation_count.fetch_add(1);
  {
    std::lock_guard lock(g_last_message_mutex);
    g_last_message = text;
  }
  if (auto* ctx = static_cast<Context*>(user)) {
    std::lock_guard lock(ctx->messages_mutex);
    ctx->messages.emplace_back(std::this_thread::get_id(), std::move(text));
  }
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(Context* ctx) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_validation_message;
  info.pUserData = ctx;
  return info;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

bool layer_installed(PFN_vkGetInstanceProcAddr gipa, const char* layer) {
  auto enumerate = reinterpret_cast<PFN_vkEnumerateInstanceLayerProperties>(
      gipa(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties"));
  uint32_t count = 0;
  if (!enumerate || enumerate(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (enumerate(&count, layers.data()) != VK_SUCCESS) return false;
  return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, layer) == 0; });
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

// A queue family with compute; prefer one with timestamps, then a compute-only one (less contention).
int pick_queue_family(const std::vector<VkQueueFamilyProperties>& families) {
  int best = -1, best_score = -1;
  for (size_t i = 0; i < families.size(); ++i) {
    const auto& f = families[i];
    if (!(f.queueFlags & VK_QUEUE_COMPUTE_BIT) || f.queueCount == 0) continue;
    int score = (f.timestampValidBits > 0 ? 2 : 0) + ((f.queueFlags & VK_QUEUE_GRAPHICS_BIT) ? 0 : 1);
    if (score > best_score) best = int(i), best_score = score;
  }
  return best;
}

}  // namespace

uint32_t partial_subgroup_lanes(const DeviceInfo& info) {
  const uint32_t size = std::max(1u, info.subgroup_size);
  if (info.driver_name == "llvmpipe") return std::min(size, llvmpipe_compute_lanes);
  return std::max(1u, size / 2);
}

bool offers_extension(const InstanceFns& f, VkPhysicalDevice pd, const char* name) {
  uint32_t count = 0;
  if (!f.vkEnumerateDeviceExtensionProperties || f.vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkExtensionProperties> offered(count);
  if (f.vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, offered.data()) != VK_SUCCESS) return false;
  for (const VkExtensionProperties& e : offered)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

namespace {

struct Probe {
  DeviceInfo info;
  DeviceFacts facts;
  int queue_family = -1;
};

Probe probe(const InstanceFns& f, VkPhysicalDevice pd, int forced_family = -1) {
  Probe p;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &driver};
  VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, &subgroup};
  VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &ids};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3};
  // Only chained where the extension is offered (an unknown structure in the chain is invalid).
  const bool size_control = offers_extension(f, pd, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  VkPhysicalDeviceSubgroupSizeControlPropertiesEXT size_props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
  if (size_control) size_props.pNext = std::exchange(m3.pNext, &size_props);
  f.vkGetPhysicalDeviceProperties2(pd, &props);
  const auto& l = props.properties.limits;
  DeviceInfo& i = p.info;
  i.name = props.properties.deviceName;
  i.type = type_name(props.properties.deviceType);
  i.vendor_id = props.properties.vendorID;
  i.device_id = props.properties.deviceID;
  i.api_version = props.properties.apiVersion;
  i.driver_version = props.properties.driverVersion;
  i.driver_name = driver.driverName;
  i.driver_info = driver.driverInfo;
  std::memcpy(i.uuid, ids.deviceUUID, VK_UUID_SIZE);
  const bool compute_subgroups = subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  i.subgroup_size = compute_subgroups ? subgroup.subgroupSize : 0;
  i.subgroup_arithmetic = compute_subgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  i.subgroup_ballot = compute_subgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
  i.subgroup_shuffle = compute_subgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
  // The operation bit says the device accepts the capability; the extension is what create_context enables.
  i.subgroup_partitioned = compute_subgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV) &&
                           offers_extension(f, pd, VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME);
  if (size_control && compute_subgroups) {
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT size_features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &size_features};
    f.vkGetPhysicalDeviceFeatures2(pd, &query);
    i.max_subgroup_size = size_props.maxSubgroupSize;
    // llvmpipe reports subgroups of its vector width / 32 lanes but runs compute shaders at most
    // llvmpipe_compute_lanes wide: at LP_NATIVE_VECTOR_WIDTH=1024 (the tests' GPU shapes) it reports 32
    // and its subgroups have 16 lanes, so it cannot run full subgroups of the size it reports.
    const bool llvmpipe_beyond_vectors =
        driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE && subgroup.subgroupSize > llvmpipe_compute_lanes;
    i.full_subgroups = size_features.computeFullSubgroups && size_props.maxSubgroupSize > 0 && !llvmpipe_beyond_vectors;
  }
  i.max_shared_memory = l.maxComputeSharedMemorySize;
  i.max_workgroup_invocations = l.maxComputeWorkGroupInvocations;
  for (int d = 0; d < 3; ++d) i.max_workgroup_count[d] = l.maxComputeWorkGroupCount[d];
  i.max_storage_buffer_range = l.maxStorageBufferRange;
  i.max_allocation_size = m3.maxMemoryAllocationSize;
  i.max_push_constants = l.maxPushConstantsSize;
  i.timestamp_period_ns = l.timestampPeriod;

  VkPhysicalDeviceMemoryProperties mem{};
  f.vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      i.device_local_bytes = std::max<uint64_t>(i.device_local_bytes, mem.memoryHeaps[h].size);

  uint32_t count = 0;
  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
  p.queue_family = forced_family >= 0 ? forced_family : pick_queue_family(families);
  if (p.queue_family >= 0 && size_t(p.queue_family) < families.size()) {
    i.queue_family = uint32_t(p.queue_family);
    i.timestamp_valid_bits = families[p.queue_family].timestampValidBits;
    i.timestamps = i.timestamp_valid_bits > 0 && l.timestampPeriod > 0 &&
                   (l.timestampComputeAndGraphics || (families[p.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT));
  }

  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  if (i.api_version >= VK_API_VERSION_1_2) f.vkGetPhysicalDeviceFeatures2(pd, &features);
  p.facts.name = i.name;
  p.facts.api_version = i.api_version;
  p.facts.buffer_device_address = f12.bufferDeviceAddress;
  p.facts.has_compute_queue = p.queue_family >= 0;
  p.facts.subgroup_properties = i.api_version >= VK_API_VERSION_1_1;
  p.facts.max_push_constants = i.max_push_constants;
  return p;
}

struct Instance {
  VkInstance handle = VK_NULL_HANDLE;
  InstanceFns fns;
};

Instance create_instance(PFN_vkGetInstanceProcAddr gipa, bool validation, Context* ctx) {
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  auto version = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (version) version(&loader_version);
  if (loader_version < VK_API_VERSION_1_2)
    throw Error(Status::Code::unsupported, "the Vulkan loader offers Vulkan " + std::to_string(VK_API_VERSION_MAJOR(loader_version)) + "." +
                std::to_string(VK_API_VERSION_MINOR(loader_version)) + "; vksort needs 1.2");

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vksort";
  app.pEngineName = "vksort";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  VkDebugUtilsMessengerCreateInfoEXT debug = messenger_info(ctx);
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (validation) {
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    info.pNext = &debug;  // also reports problems of instance creation and destruction
  }
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  Instance inst;
  const VkResult made = create(&info, nullptr, &inst.handle);
  // The loader's answer when it finds no driver (ICD) at all: say so, not only the code's name.
  if (made == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw Error(Status::Code::unsupported,
                "no Vulkan driver found: creating a Vulkan instance gave VK_ERROR_INCOMPATIBLE_DRIVER (is a Vulkan "
                "driver such as mesa-vulkan-drivers installed? VK_ICD_FILENAMES or VK_DRIVER_FILES may point elsewhere)",
                made);
  check(made, "creating a Vulkan instance");
  inst.fns.load(gipa, inst.handle);
  return inst;
}

std::vector<VkPhysicalDevice> physical_devices(const Instance& inst) {
  uint32_t count = 0;
  check(inst.fns.vkEnumeratePhysicalDevices(inst.handle, &count, nullptr), "listing Vulkan devices");
  std::vector<VkPhysicalDevice> pds(count);
  check(inst.fns.vkEnumeratePhysicalDevices(inst.handle, &count, pds.data()), "listing Vulkan devices");
  pds.resize(count);
  return pds;
}

std::vector<DeviceListing> listings(const Instance& inst, const std::vector<VkPhysicalDevice>& pds) {
  std::vector<DeviceListing> out;
  for (uint32_t k = 0; k < pds.size(); ++k) {
    Probe p = probe(inst.fns, pds[k]);
    DeviceListing d;
    d.index = k;
    d.info = p.info;
    d.unusable_why = missing_requirement(p.facts);
    d.usable = d.unusable_why.empty();
    out.push_back(std::move(d));
  }
  return out;
}

// The per-device table is filled through volk's (private) global vkGetDeviceProcAddr; the mutex keeps
// two threads creating devices from different loaders apart.
void load_device_table(Context& ctx) {
  static std::mutex m;
  std::lock_guard lock(m);
  vkGetDeviceProcAddr = ctx.ifn.vkGetDeviceProcAddr;
  volkLoadDeviceTable(&ctx.vk, ctx.device);
}

// What vksort creates on any device, owned or borrowed.
void finish_context(Context& ctx) {
  ctx.ifn.vkGetPhysicalDeviceMemoryProperties(ctx.physical, &ctx.memory);
  load_device_table(ctx);
  if (ctx.queue == VK_NULL_HANDLE) ctx.vk.vkGetDeviceQueue(ctx.device, ctx.info.queue_family, 0, &ctx.queue);
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool.queueFamilyIndex = ctx.info.queue_family;
  check(ctx.vk.vkCreateCommandPool(ctx.device, &pool, ctx.allocator, &ctx.command_pool), "creating a command pool");
  if (ctx.pipeline_cache) return;  // the application's
  VkPipelineCacheCreateInfo cache{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  check(ctx.vk.vkCreatePipelineCache(ctx.device, &cache, ctx.allocator, &ctx.pipeline_cache), "creating a pipeline cache");
  ctx.owns_pipeline_cache = true;
}

// The struct of type `type` in the feature chain the application passed to vkCreateDevice, or null.
template <class Feature>
const Feature* find_in_chain(const VkPhysicalDeviceFeatures2& features, VkStructureType type) {
  for (auto* s = static_cast<const VkBaseInStructure*>(features.pNext); s; s = s->pNext)
    if (s->sType == type) return reinterpret_cast<const Feature*>(s);
  return nullptr;
}

void apply_pretend_limits(DeviceInfo& info, const DeviceOptions::PretendLimits& p) {
  auto lower = [](uint32_t& limit, uint32_t pretend) {
    if (pretend && pretend < limit) limit = pretend;
  };
  lower(info.max_shared_memory, p.max_shared_memory);
  lower(info.max_workgroup_invocations, p.max_workgroup_invocations);
  for (uint32_t& count : info.max_workgroup_count) lower(count, p.max_workgroup_count);
  if (p.no_timestamps) info.timestamps = false;
  if (p.gpu && info.type == "cpu") info.type = "discrete";
  if (p.no_subgroups) {
    info.subgroup_size = 0;
    info.subgroup_arithmetic = info.subgroup_ballot = info.subgroup_shuffle = info.subgroup_partitioned = false;
  }
  if (p.no_subgroups || p.no_full_subgroups) info.full_subgroups = false;
  if (p.device_memory && (!info.device_local_bytes || p.device_memory < info.device_local_bytes))
    info.device_local_bytes = p.device_memory;
}

}  // namespace

bool enabled_buffer_device_address(const VkPhysicalDeviceFeatures2& features) {
  const auto* v12 = find_in_chain<VkPhysicalDeviceVulkan12Features>(features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  const auto* ext = find_in_chain<VkPhysicalDeviceBufferDeviceAddressFeatures>(
      features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES);
  return (v12 && v12->bufferDeviceAddress) || (ext && ext->bufferDeviceAddress);
}

bool enabled_compute_full_subgroups(const VkPhysicalDeviceFeatures2& features) {
  const auto* v13 = find_in_chain<VkPhysicalDeviceVulkan13Features>(features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  const auto* ext = find_in_chain<VkPhysicalDeviceSubgroupSizeControlFeaturesEXT>(
      features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT);
  return (v13 && v13->computeFullSubgroups) || (ext && ext->computeFullSubgroups);
}

void InstanceFns::load(PFN_vkGetInstanceProcAddr gipa, VkInstance instance) {
  vkGetInstanceProcAddr = gipa;
#define VKSORT_LOAD(name) name = reinterpret_cast<PFN_##name>(gipa(instance, #name))
  VKSORT_LOAD(vkGetDeviceProcAddr);
  VKSORT_LOAD(vkDestroyInstance);
  VKSORT_LOAD(vkEnumeratePhysicalDevices);
  VKSORT_LOAD(vkGetPhysicalDeviceProperties2);
  VKSORT_LOAD(vkGetPhysicalDeviceFeatures2);
  VKSORT_LOAD(vkGetPhysicalDeviceMemoryProperties);
  VKSORT_LOAD(vkGetPhysicalDeviceQueueFamilyProperties);
  VKSORT_LOAD(vkEnumerateDeviceExtensionProperties);
  VKSORT_LOAD(vkCreateDevice);
  VKSORT_LOAD(vkCreateDebugUtilsMessengerEXT);
  VKSORT_LOAD(vkDestroyDebugUtilsMessengerEXT);
#undef VKSORT_LOAD
}

Context::Context() = default;

Context::~Context() {
  staging.reset();  // its buffers belong to the device destroyed below
  dirty_shared.reset();  // and its pipeline
  if (device) {
    // An owned device may still run work the application submitted through vksort's queue helpers.
    // Not waited for: a device with no device-local memory that vksort never submitted to, which can
    // run nothing: a compiler without a GPU (RADV's null device, RADV_FORCE_FAMILY, which
    // test_kernel_compile uses), whose vkDeviceWaitIdle crashes.
    if (owns_device && (submitted || info.device_local_bytes != 0)) vk.vkDeviceWaitIdle(device);
    if (pipeline_cache && owns_pipeline_cache) vk.vkDestroyPipelineCache(device, pipeline_cache, allocator);
    if (command_pool) vk.vkDestroyCommandPool(device, command_pool, allocator);
    if (owns_device) vk.vkDestroyDevice(device, nullptr);
  }
  if (owns_device && instance) {
    if (messenger) ifn.vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
    ifn.vkDestroyInstance(instance, nullptr);
  }
}

namespace {
// Device(options)'s selector: options.select, else VKSORT_DEVICE, else "" (the best).
std::string selector(const DeviceOptions& options) {
  if (!options.select.empty()) return options.select;
  const char* env = std::getenv("VKSORT_DEVICE");
  return env ? env : "";
}

void raise_messages(const std::vector<std::string>& taken) {
  if (taken.empty()) return;
  std::string text = "Vulkan validation reported " + std::to_string(taken.size()) + " message(s): " + taken.front();
  throw Error(Status::Code::vulkan_error, text, VK_ERROR_VALIDATION_FAILED_EXT);
}
}  // namespace

void Context::raise_validation_messages() {
  std::vector<std::string> taken;
  {
    std::lock_guard lock(messages_mutex);
    for (auto& m : messages) taken.push_back(std::move(m.second));
    messages.clear();
  }
  raise_messages(taken);
}

void Context::raise_validation_messages_of_this_thread() {
  const std::thread::id me = std::this_thread::get_id();
  std::vector<std::string> taken;
  {
    std::lock_guard lock(messages_mutex);
    for (auto& m : messages)
      if (m.first == me) taken.push_back(std::move(m.second));
    std::erase_if(messages, [&](const auto& m) { return m.first == me; });
  }
  raise_messages(taken);
}

uint32_t Context::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const {
  for (uint32_t t = 0; t < memory.memoryTypeCount; ++t)
    if ((type_bits & (1u << t)) && (memory.memoryTypes[t].propertyFlags & required) == required) return t;
  return UINT32_MAX;
}

std::shared_ptr<Context> create_context(const DeviceOptions& options) {
  if (options.validation < -1 || options.validation > 1)
    throw Error("DeviceOptions::validation is " + std::to_string(options.validation) +
                "; it must be -1 (follow VKSORT_VALIDATION), 0 (off) or 1 (on)");
  PFN_vkGetInstanceProcAddr gipa = system_loader();
  bool validation = options.validation < 0 ? env_flag("VKSORT_VALIDATION") : options.validation > 0;
  if (validation && !layer_installed(gipa, "VK_LAYER_KHRONOS_validation"))
    throw Error(Status::Code::unsupported, "validation was requested but VK_LAYER_KHRONOS_validation is not installed "
                "(Debian/Ubuntu package: vulkan-validationlayers)");

  auto ctx = std::make_shared<Context>();
  ctx->staging = std::make_unique<StagingPool>();
  ctx->validation = validation;
  ctx->owns_device = true;
  Instance inst = create_instance(gipa, validation, ctx.get());
  ctx->instance = inst.handle;
  ctx->ifn = inst.fns;
  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(ctx.get());
    check(ctx->ifn.vkCreateDebugUtilsMessengerEXT(ctx->instance, &info, nullptr, &ctx->messenger),
          "creating the validation message callback");
  }

  std::vector<VkPhysicalDevice> pds = physical_devices(inst);
  std::vector<DeviceListing> list = listings(inst, pds);
  uint32_t chosen = choose_device(selector(options), list);
  ctx->physical = pds[chosen];
  ctx->info = list[chosen].info;
  apply_pretend_limits(ctx->info, options.pretend);
  ctx->memory_budget = options.pretend.device_memory;
  ctx->lookback_stall_percent = std::min(options.pretend.lookback_stall_percent, 100u);
  ctx->dirty_memory = options.pretend.dirty_memory;
  ctx->submits_before_loss = options.pretend.lose_device_after;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = ctx->info.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  std::vector<const char*> extensions;
  if (ctx->info.subgroup_partitioned) extensions.push_back(VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME);
  if (offers_extension(ctx->ifn, ctx->physical, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
    extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    ctx->host_pointer_import = true;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR statistics{};
  if (pipeline_statistics_requested()) {
    ctx->pipeline_statistics = add_pipeline_statistics(ctx->ifn, ctx->physical, extensions, statistics, &f12.pNext);
    if (!ctx->pipeline_statistics)
      std::fprintf(stderr, "vksort: VKSORT_PIPELINE_STATS: \"%s\" does not offer VK_KHR_pipeline_executable_properties; no pipeline statistics\n",
                   ctx->info.name.c_str());
  }
  // Full subgroups let kernels size per-subgroup memory by the subgroups there are (onesweep_ballot).
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT full{};
  if (ctx->info.full_subgroups)
    ctx->info.full_subgroups = add_extension_feature(ctx->ifn, ctx->physical, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME,
                                                     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT,
                                                     &VkPhysicalDeviceSubgroupSizeControlFeaturesEXT::computeFullSubgroups, full,
                                                     extensions, &f12.pNext);
  VkPhysicalDeviceShaderClockFeaturesKHR clock{};
  if (options.phase_clocks) {
    if (!add_extension_feature(ctx->ifn, ctx->physical, VK_KHR_SHADER_CLOCK_EXTENSION_NAME,
                               VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
                               &VkPhysicalDeviceShaderClockFeaturesKHR::shaderSubgroupClock, clock, extensions, &f12.pNext))
      throw Error(Status::Code::unsupported, "phase clocks (DeviceOptions::phase_clocks, vksort bench --phase-clocks): \"" + ctx->info.name +
                  "\" does not offer VK_KHR_shader_clock with shaderSubgroupClock");
    ctx->phase_clocks = true;
  }
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  {
    VkPhysicalDeviceFeatures2 offered{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    ctx->ifn.vkGetPhysicalDeviceFeatures2(ctx->physical, &offered);
    if (offered.features.shaderStorageBufferArrayDynamicIndexing &&
        offers_extension(ctx->ifn, ctx->physical, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
      extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
      features.features.shaderStorageBufferArrayDynamicIndexing = VK_TRUE;
      ctx->push_descriptors = true;
      VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
      ctx->ifn.vkGetPhysicalDeviceProperties2(ctx->physical, &props);
      ctx->min_storage_offset_alignment = props.properties.limits.minStorageBufferOffsetAlignment;
    }
  }
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  check(ctx->ifn.vkCreateDevice(ctx->physical, &info, nullptr, &ctx->device), "creating a device on \"" + ctx->info.name + "\"");
  finish_context(*ctx);
  if (options.pretend.dirty_shared_memory) {
    // A few workgroups per worker of a CPU driver (lavapipe hands its threads shares of a dispatch's
    // workgroups, though a worker that wakes late may find none left: only on one thread is every
    // kernel's first workgroup sure to find the fill), and on a GPU a few per multiprocessor.
    const uint32_t cpus = std::max(1u, std::thread::hardware_concurrency());
    ctx->dirty_shared_groups = list[chosen].info.type == "cpu" ? 4 * cpus : 4096;
    ctx->dirty_shared = std::make_unique<Kernel>(*ctx, "util_dirty_shared", 64,
                                                 std::initializer_list<SpecValue>{{SPEC_SHARED_WORDS, ctx->info.max_shared_memory / 4}},
                                                 uint32_t(sizeof(shader::DirtySharedPush)));
  }
  ctx->raise_validation_messages();
  return ctx;
}

std::shared_ptr<Context> borrow_context(const BorrowedVulkan& b) {
  if (!b.instance || !b.physical_device || !b.device || !b.queue)
    throw Error("borrowing a Vulkan device: instance, physical_device, device and queue must all be set");
  if (b.enabled_features && b.enabled_features->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
    throw Error("borrowing a Vulkan device: BorrowedVulkan::enabled_features must point at a VkPhysicalDeviceFeatures2");
  auto ctx = std::make_shared<Context>();
  ctx->staging = std::make_unique<StagingPool>();
  ctx->owns_device = false;
  ctx->instance = b.instance;
  ctx->physical = b.physical_device;
  ctx->device = b.device;
  ctx->queue = b.queue;
  ctx->ifn.load(b.get_instance_proc_addr ? b.get_instance_proc_addr : system_loader(), b.instance);
  // `queue_family` must name the queue's family, with compute: one out of range was taken silently
  // (info.queue_family stayed 0, or 2^32 - 1 made vksort pick a family), and vksort's command pool, made
  // for that family, then did not match the application's queue.
  uint32_t family_count = 0;
  ctx->ifn.vkGetPhysicalDeviceQueueFamilyProperties(b.physical_device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  ctx->ifn.vkGetPhysicalDeviceQueueFamilyProperties(b.physical_device, &family_count, families.data());
  if (b.queue_family >= family_count)
    throw Error("borrowing a Vulkan device: queue_family " + std::to_string(b.queue_family) + " is not one of the device's " +
                std::to_string(family_count) + " queue families (it must be the family of BorrowedVulkan::queue)");
  if (!(families[b.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    throw Error("borrowing a Vulkan device: queue family " + std::to_string(b.queue_family) +
                " has no compute (VK_QUEUE_COMPUTE_BIT); give a queue of a family with compute");
  Probe p = probe(ctx->ifn, b.physical_device, int(b.queue_family));
  // What the device supports, then, where the application says, what it enabled: a supported feature
  // left disabled at vkCreateDevice is as missing as an unsupported one.
  if (b.enabled_features) p.facts.buffer_device_address = enabled_buffer_device_address(*b.enabled_features);
  if (std::string why = missing_requirement(p.facts); !why.empty())
    throw Error(Status::Code::unsupported, "borrowing a Vulkan device: " + why +
                                               (b.enabled_features ? " (not enabled when the application created it)" : ""));
  ctx->info = p.info;
  // Whether the application enabled this extension is not known (no feature of it is in the chain).
  ctx->info.subgroup_partitioned = false;
  // Full subgroups where the device can run them and the application says it enabled them.
  ctx->info.full_subgroups =
      p.info.full_subgroups && b.enabled_features && enabled_compute_full_subgroups(*b.enabled_features);
  ctx->pipeline_cache = b.pipeline_cache;
  ctx->allocator = b.allocator;
  finish_context(*ctx);
  // A device of an instance created for Vulkan 1.0 or 1.1 has no 1.2 entry points even where the GPU
  // offers 1.2 (the instance's apiVersion caps the device's), and the instance's version cannot be
  // asked: a missing core 1.2 function tells. Sorter::record called the null pointer (SIGSEGV).
  if (!ctx->vk.vkGetBufferDeviceAddress)
    throw Error(Status::Code::unsupported,
                "borrowing a Vulkan device: it lacks Vulkan 1.2's functions (vkGetBufferDeviceAddress): create the "
                "instance with VkApplicationInfo::apiVersion VK_API_VERSION_1_2 or later");
  return ctx;
}

bool validation_layer_installed() { return layer_installed(system_loader(), "VK_LAYER_KHRONOS_validation"); }

uint64_t validation_message_count() { return g_validation_count.load(); }

std::string last_validation_message() {
  std::lock_guard lock(g_last_message_mutex);
  return g_last_message;
}

// The listing from a temporary instance of its own.
static std::vector<DeviceListing> listings_now() {
  PFN_vkGetInstanceProcAddr gipa = system_loader();
  Instance inst = create_instance(gipa, false, nullptr);
  std::vector<DeviceListing> list;
  try {
    list = listings(inst, physical_devices(inst));
  } catch (...) {
    inst.fns.vkDestroyInstance(inst.handle, nullptr);
    throw;
  }
  inst.fns.vkDestroyInstance(inst.handle, nullptr);
  return list;
}

std::vector<DeviceListing> list_devices_impl() {
  std::vector<DeviceListing> list = listings_now();
  try {
    list[choose_device(selector({}), list)].chosen = true;
  } catch (const Error&) {
    // No usable device: the listing says why for each one.
  }
  return list;
}

DeviceListing choose_device_impl(const DeviceOptions& options) {
  std::vector<DeviceListing> list = listings_now();
  DeviceListing& pick = list[choose_device(selector(options), list)];
  pick.chosen = true;
  return pick;
}

}  // namespace vksort::gpu
