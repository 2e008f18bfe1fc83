// vksort/buffer.hpp — device memory vksort can sort in, and references to the application's buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <vulkan/vulkan_core.h>

#include "vksort/device.hpp"

namespace vksort {

// A range of a VkBuffer that vksort reads or writes. The buffer must have been created with
// VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (scratch buffers also
// VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT), bound to memory allocated with
// VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT. `offset` must be a multiple of 8.
struct BufferRef {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;  // bytes from offset; VK_WHOLE_SIZE is not accepted
  bool empty() const { return buffer == VK_NULL_HANDLE; }
};

// Device-local memory owned by vksort, usable as keys, values or scratch (all usage flags above).
class VKSORT_API Buffer {
 public:
  Buffer() = default;
  // Allocates `bytes` (at least 1) on `device`; `purpose` names it in error messages ("keys", ...).
  Buffer(Device& device, VkDeviceSize bytes, const std::string& purpose = "buffer");
  ~Buffer();
  Buffer(Buffer&&) noexcept;
  Buffer& operator=(Buffer&&) noexcept;

  VkDeviceSize size() const;
  BufferRef ref() const;                  // the whole buffer
  VkBuffer vk_buffer() const;
  VkDeviceAddress address() const;

  // Copy through staging memory; submits and waits on the device's queue.
  void upload(std::span<const std::byte> data, VkDeviceSize offset = 0);
  void download(std::span<std::byte> data, VkDeviceSize offset = 0) const;

  struct Impl;
 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vksort
