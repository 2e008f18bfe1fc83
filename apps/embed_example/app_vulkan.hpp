// SPDX-License-Identifier: MIT
// The application side of the embedding example: what an engine already has before it adds vksort —
// its own instance (with its own validation layer and debug messenger), device, queue, buffers and
// compute pipelines, all through the plain Vulkan loader. Nothing here knows vksort. Built without
// exceptions, as many engines are: a failure prints what failed and exits with status 1.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <vulkan/vulkan.h>

namespace app {

// Prints "<program>: <what> failed" and exits with status 1.
[[noreturn]] void fail(const std::string& what);
// The program fail() names (default "embed_example"); the other programs that share this setup set it.
void set_program_name(const char* name);
// fail() naming `what` and the result unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

struct Gpu {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  double timestamp_period_ns = 0.0;  // 0: the queue cannot write timestamps
  std::string name;
  // What vkCreateDevice enabled (bufferDeviceAddress), as libraries the engine hands its device to ask.
  VkPhysicalDeviceVulkan12Features enabled12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  // The engine's pipeline cache, which every pipeline made on its device goes through.
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
};

// Instance (Vulkan 1.2; with `validate`, VK_LAYER_KHRONOS_validation and a messenger that counts every
// warning and error), the first physical device whose name contains `select` ("" = prefer discrete,
// then integrated GPUs), and a device with one compute queue and bufferDeviceAddress. With `uuid`
// (VK_UUID_SIZE bytes), only the physical device of that UUID: two GPUs of one model share a name.
Gpu create_gpu(bool validate, const std::string& select, const uint8_t* uuid = nullptr);
void destroy_gpu(Gpu& gpu);
// Warnings and errors the messenger saw (printed to stderr as they came).
uint32_t validation_messages();

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;
  void* mapped = nullptr;  // host-visible buffers only
};
// A buffer with its own memory allocation, device addresses enabled; host-visible (mapped, coherent)
// or device-local.
Buffer create_buffer(const Gpu& gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible);
void destroy_buffer(const Gpu& gpu, Buffer& buffer);

// A compute pipeline from SPIR-V words with `push_bytes` of push constants and no descriptor sets.
struct Pipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};
Pipeline create_pipeline(const Gpu& gpu, std::span<const uint32_t> spirv, uint32_t push_bytes);
void destroy_pipeline(const Gpu& gpu, Pipeline& pipeline);

// One global memory barrier, as an engine records between its passes.
void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

}  // namespace app
