// SPDX-License-Identifier: MIT
#include "gpu_context.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <vksort/error.hpp>

#include "model.hpp"

namespace particles::gpu {

namespace {
std::atomic<uint64_t> g_messages{0};
std::mutex g_last_mutex;
std::string g_last;

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  ++g_messages;
  std::lock_guard lock(g_last_mutex);
  g_last = data && data->pMessage ? data->pMessage : "(no text)";
  std::fprintf(stderr, "validation: %s\n", g_last.c_str());
  return VK_FALSE;
}

bool layer_available(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& l) { return std::string(l.layerName) == name; });
}
}  // namespace

uint64_t validation_message_count() { return g_messages.load(); }
std::string last_validation_message() {
  std::lock_guard lock(g_last_mutex);
  return g_last;
}

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw Error(std::string(what) + ": " + vksort::result_name(r));
}

vksort::DeviceListing choose_device(const ContextOptions& options) {
  try {
    return vksort::choose_device({.select = options.select});
  } catch (const vksort::Error& e) {
    const char* env = std::getenv("VKSORT_DEVICE");
    const bool from_env = options.select.empty() && env && *env;
    throw Error((from_env ? "VKSORT_DEVICE: " : "--device: ") + std::string(e.what()));
  }
}

Context::Context(const ContextOptions& options) {
  const char* layer = "VK_LAYER_KHRONOS_validation";
  if (options.validation && !layer_available(layer))
    throw Error("--validation: VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "particles";
  app.apiVersion = VK_API_VERSION_1_2;
  const char* debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (options.validation) {
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &debug_ext;
    ici.pNext = &messenger;  // also catches messages from vkCreateInstance / vkDestroyInstance
  }
  check(vkCreateInstance(&ici, nullptr, &instance_), "creating the Vulkan instance");
  if (options.validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    check(create(instance_, &messenger, nullptr, &messenger_), "creating the validation messenger");
  }

  // The device vksort::Device would choose (--device, else $VKSORT_DEVICE, else the best), by vksort's
  // own rule (an all-digit selector is an index only), found in this instance by its UUID.
  const vksort::DeviceListing pick = choose_device(options);
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &ids};
    vkGetPhysicalDeviceProperties2(d, &p);
    if (std::memcmp(ids.deviceUUID, pick.info.uuid, VK_UUID_SIZE) == 0) {
      physical_ = d;
      break;
    }
  }
  if (!physical_) throw Error("device " + std::to_string(pick.index) + " (" + pick.info.name + ") is not in this Vulkan instance");
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  name_ = props.deviceName;
  timestamp_period_ns_ = props.limits.timestampPeriod;
  max_groups_x_ = props.limits.maxComputeWorkGroupCount[0];

  uint32_t qcount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qcount, nullptr);
  std::vector<VkQueueFamilyProperties> families(qcount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qcount, families.data());
  family_ = qcount;
  for (uint32_t i = 0; i < qcount; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      family_ = i;
      break;
    }
  if (family_ == qcount) throw Error(name_ + ": no compute queue");
  timestamp_bits_ = families[family_].timestampValidBits;  // 0: this queue cannot write timestamps

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  // Kept: vksort is told what was enabled (BorrowedVulkan::enabled_features) and checks it.
  enabled12_.bufferDeviceAddress = VK_TRUE;
  if (options.atomic64) {
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    vkGetPhysicalDeviceFeatures2(physical_, &f);
    if (f.features.shaderInt64 && f12.shaderBufferInt64Atomics) {
      enabled_.features.shaderInt64 = VK_TRUE;
      enabled12_.shaderBufferInt64Atomics = VK_TRUE;
    }
  }
  enabled_.pNext = &enabled12_;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &enabled_};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  check(vkCreateDevice(physical_, &dci, nullptr, &device_), "creating the Vulkan device");
  vkGetDeviceQueue(device_, family_, 0, &queue_);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pci.queueFamilyIndex = family_;
  check(vkCreateCommandPool(device_, &pci, nullptr, &pool_), "creating a command pool");
}

Context::~Context() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

vksort::BorrowedVulkan Context::borrowed() const {
  vksort::BorrowedVulkan b;
  b.instance = instance_;
  b.physical_device = physical_;
  b.device = device_;
  b.queue = queue_;
  b.queue_family = family_;
  b.get_instance_proc_addr = vkGetInstanceProcAddr;
  b.enabled_features = &enabled_;
  return b;
}

void Context::submit_and_wait(const std::function<void(VkCommandBuffer)>& record) const {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(device_, &ai, &cmd), "allocating a command buffer");
  VkFence fence = VK_NULL_HANDLE;
  try {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "beginning a command buffer");
    record(cmd);
    check(vkEndCommandBuffer(cmd), "recording simulation steps");
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(device_, &fci, nullptr, &fence), "creating a fence");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(vkQueueSubmit(queue_, 1, &si, fence), "submitting simulation steps");
    check(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), "waiting for the GPU");
  } catch (...) {
    if (fence) vkDestroyFence(device_, fence, nullptr);
    vkFreeCommandBuffers(device_, pool_, 1, &cmd);
    throw;
  }
  vkDestroyFence(device_, fence, nullptr);
  vkFreeCommandBuffers(device_, pool_, 1, &cmd);
}

}  // namespace particles::gpu
