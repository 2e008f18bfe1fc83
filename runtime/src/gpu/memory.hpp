// SPDX-License-Identifier: MIT
// Buffers with device addresses: device-local storage and host-visible staging memory.
#pragma once

#include <string>

#include "gpu/context.hpp"

namespace vksort::gpu {

enum class MemoryKind { device_local, staging };

// One VkBuffer with its own VkDeviceMemory. Move-only; destroys both when it goes.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `purpose` names the buffer in error messages: "allocating 1.5 GiB for keys on \"llvmpipe\": ...".
  DeviceBuffer(Context& ctx, VkDeviceSize bytes, MemoryKind kind, const std::string& purpose);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  VkDeviceAddress address() const { return address_; }
  void* mapped() const { return mapped_; }  // staging memory only; host-coherent
  explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

 private:
  // DeviceOptions::pretend.dirty_memory: fills the new buffer with a nonzero word (releases it on failure).
  void fill_with_stale_bytes(Context& ctx, const std::string& what);
  void release() noexcept;
  Context* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkDeviceAddress address_ = 0;
  void* mapped_ = nullptr;
  VkDeviceSize counted_ = 0;  // bytes counted against Context::memory_budget
};

// The device address of byte `offset` of `buffer` (which must have SHADER_DEVICE_ADDRESS usage).
VkDeviceAddress buffer_address(Context& ctx, VkBuffer buffer, VkDeviceSize offset);

// The most bytes a range of `buffer` (a valid VkBuffer of ctx's device) may span: a DeviceBuffer's
// (vksort::Buffer's) exact size; for the application's buffers the size of their memory requirements,
// which may exceed the size they were created with by alignment padding (Vulkan offers no query of
// that size), so it catches ranges beyond the memory bound to the buffer, not the padding.
VkDeviceSize buffer_extent(Context& ctx, VkBuffer buffer);

// The Context (another vksort::Device) whose DeviceBuffer `buffer` is, when ctx made no buffer of that
// handle and another live Context did; nullptr otherwise (ctx's own, or the application's). Vulkan
// cannot tell the devices' handles apart, so passing one to the other would be undefined behaviour.
const Context* made_elsewhere(const Context& ctx, VkBuffer buffer);

}  // namespace vksort::gpu
