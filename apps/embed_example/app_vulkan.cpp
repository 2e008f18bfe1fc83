// SPDX-License-Identifier: MIT
#include "app_vulkan.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>

namespace app {

namespace {

uint32_t g_messages = 0;
const char* g_program = "embed_example";

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  ++g_messages;
  std::fprintf(stderr, "validation: %s\n", data->pMessage);
  return VK_FALSE;
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    default: return 3;
  }
}

uint32_t find_memory_type(const Gpu& gpu, uint32_t type_bits, VkMemoryPropertyFlags wanted) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(gpu.physical, &props);
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
  fail("finding a memory type with the wanted properties");
}

}  // namespace

void set_program_name(const char* name) { g_program = name; }

void fail(const std::string& what) {
  std::fprintf(stderr, "%s: %s failed\n", g_program, what.c_str());
  std::exit(1);
}

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) fail(std::string(what) + " (VkResult " + std::to_string(r) + ")");
}

uint32_t validation_messages() { return g_messages; }

Gpu create_gpu(bool validate, const std::string& select, const uint8_t* uuid) {
  Gpu gpu;
  VkApplicationInfo app_info{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app_info.pApplicationName = "vksort embed_example";
  app_info.apiVersion = VK_API_VERSION_1_2;
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_message;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app_info;
  if (validate) {
    instance_info.enabledLayerCount = 1;
    instance_info.ppEnabledLayerNames = &layer;
    instance_info.enabledExtensionCount = 1;
    instance_info.ppEnabledExtensionNames = &extension;
    instance_info.pNext = &messenger_info;  // also covers instance creation and destruction
  }
  check(vkCreateInstance(&instance_info, nullptr, &gpu.instance), "vkCreateInstance");
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(gpu.instance, "vkCreateDebugUtilsMessengerEXT"));
    check(create(gpu.instance, &messenger_info, nullptr, &gpu.messenger), "vkCreateDebugUtilsMessengerEXT");
  }

  uint32_t count = 0;
  vkEnumeratePhysicalDevices(gpu.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(gpu.instance, &count, devices.data());
  int best_rank = 99;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (p.apiVersion < VK_API_VERSION_1_2) continue;
    if (uuid) {
      VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
      VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
      p2.pNext = &id;
      vkGetPhysicalDeviceProperties2(d, &p2);
      if (std::memcmp(id.deviceUUID, uuid, VK_UUID_SIZE) != 0) continue;
    }
    const int rank = select.empty() ? type_rank(p.deviceType) : (std::strstr(p.deviceName, select.c_str()) ? 0 : 99);
    if (rank < best_rank) {
      best_rank = rank;
      gpu.physical = d;
      gpu.name = p.deviceName;
    }
  }
  if (!gpu.physical) fail("finding a Vulkan 1.2 device" + (select.empty() ? "" : " named like " + select));

  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(gpu.physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> fams(families);
  vkGetPhysicalDeviceQueueFamilyProperties(gpu.physical, &families, fams.data());
  const auto compute = std::find_if(fams.begin(), fams.end(),
                                    [](const VkQueueFamilyProperties& f) { return f.queueFlags & VK_QUEUE_COMPUTE_BIT; });
  if (compute == fams.end()) fail("finding a compute queue");
  gpu.family = uint32_t(compute - fams.begin());
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gpu.physical, &props);
  if (compute->timestampValidBits > 0) gpu.timestamp_period_ns = props.limits.timestampPeriod;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = gpu.family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  gpu.enabled12.bufferDeviceAddress = VK_TRUE;  // what vksort (and these shaders) need
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &gpu.enabled12};
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = &features;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  check(vkCreateDevice(gpu.physical, &device_info, nullptr, &gpu.device), "vkCreateDevice");
  vkGetDeviceQueue(gpu.device, gpu.family, 0, &gpu.queue);
  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  check(vkCreatePipelineCache(gpu.device, &cache_info, nullptr, &gpu.pipeline_cache), "vkCreatePipelineCache");
  return gpu;
}

void destroy_gpu(Gpu& gpu) {
  if (gpu.pipeline_cache) vkDestroyPipelineCache(gpu.device, gpu.pipeline_cache, nullptr);
  if (gpu.device) vkDestroyDevice(gpu.device, nullptr);
  if (gpu.messenger) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(gpu.instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy(gpu.instance, gpu.messenger, nullptr);
  }
  if (gpu.instance) vkDestroyInstance(gpu.instance, nullptr);
  gpu = {};
}

Buffer create_buffer(const Gpu& gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible) {
  Buffer b;
  b.size = size;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  check(vkCreateBuffer(gpu.device, &info, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(gpu.device, b.buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = &flags;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = find_memory_type(gpu, req.memoryTypeBits,
                                           host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  check(vkAllocateMemory(gpu.device, &alloc, nullptr, &b.memory), "vkAllocateMemory");
  check(vkBindBufferMemory(gpu.device, b.buffer, b.memory, 0), "vkBindBufferMemory");
  if (host_visible) check(vkMapMemory(gpu.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = b.buffer;
  b.address = vkGetBufferDeviceAddress(gpu.device, &address);
  return b;
}

void destroy_buffer(const Gpu& gpu, Buffer& b) {
  if (b.buffer) vkDestroyBuffer(gpu.device, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(gpu.device, b.memory, nullptr);
  b = {};
}

Pipeline create_pipeline(const Gpu& gpu, std::span<const uint32_t> spirv, uint32_t push_bytes) {
  Pipeline p;
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  check(vkCreatePipelineLayout(gpu.device, &layout_info, nullptr, &p.layout), "vkCreatePipelineLayout");
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = spirv.size_bytes();
  module_info.pCode = spirv.data();
  VkShaderModule module;
  check(vkCreateShaderModule(gpu.device, &module_info, nullptr, &module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = p.layout;
  const VkResult r = vkCreateComputePipelines(gpu.device, gpu.pipeline_cache, 1, &info, nullptr, &p.pipeline);
  vkDestroyShaderModule(gpu.device, module, nullptr);
  check(r, "vkCreateComputePipelines");
  return p;
}

void destroy_pipeline(const Gpu& gpu, Pipeline& p) {
  if (p.pipeline) vkDestroyPipeline(gpu.device, p.pipeline, nullptr);
  if (p.layout) vkDestroyPipelineLayout(gpu.device, p.layout, nullptr);
  p = {};
}

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace app
