// SPDX-License-Identifier: MIT
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
// VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT. `offset` must be a multiple of 8 (keys, values, scratch; 4
// for a record_indirect count and a segmented sort's offsets, which hold uint32_t), and the range must
// lie inside the buffer.
struct BufferRef {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;  // bytes from offset; VK_WHOLE_SIZE is not accepted
  bool empty() const { return buffer == VK_NULL_HANDLE; }
};

// Device-local memory owned by vksort, usable as keys, values or scratch (all usage flags above).
// Move-only; shares the Device's state (the vksort::Device object may go first). Destroying it frees
// the memory at once: GPU work that uses it must have completed. One thread at a time per Buffer.
class VKSORT_API Buffer {
 public:
  Buffer();  // empty: size() 0, vk_buffer() VK_NULL_HANDLE
  // Allocates `bytes` on `device`; `purpose` names it in error messages ("keys", ...). 0 bytes gives a
  // 4-byte Buffer (Vulkan has no empty buffers; size() says 4), so that an empty sort has a buffer.
  // Throws vksort::Error (with VK_ERROR_OUT_OF_DEVICE_MEMORY and the like) when allocation fails.
  Buffer(Device& device, VkDeviceSize bytes, const std::string& purpose = "buffer");
  // The same without exceptions: the Buffer, or a Status (out_of_memory, invalid_argument, ...).
  static Result<Buffer> create(Device& device, VkDeviceSize bytes, const std::string& purpose = "buffer") noexcept;
  ~Buffer();
  Buffer(Buffer&&) noexcept;
  Buffer& operator=(Buffer&&) noexcept;

  // Never throw. The handles stay owned by the Buffer: do not destroy them.
  VkDeviceSize size() const;              // bytes
  BufferRef ref() const;                  // the whole buffer
  VkBuffer vk_buffer() const;
  VkDeviceAddress address() const;

  // Copy through staging memory; submits and waits on the device's queue (locked while submitting),
  // so the data is in place (upload) or in `data` (download) on return. `offset` and the span's size
  // are bytes. Throws vksort::Error for an empty Buffer, a range beyond size(), or a Vulkan failure.
  void upload(std::span<const std::byte> data, VkDeviceSize offset = 0);
  void download(std::span<std::byte> data, VkDeviceSize offset = 0) const;
  // Copies `bytes` from `src` (at src_offset) into this Buffer (at offset) on the GPU, without a trip
  // through host memory; submits and waits like upload. `src` must be a Buffer of the same Device, and
  // a copy within one Buffer must not overlap itself. Throws vksort::Error for an empty Buffer, another
  // Device's Buffer, a range beyond either size, an overlap, or a Vulkan failure.
  void copy_from(const Buffer& src, VkDeviceSize bytes, VkDeviceSize src_offset = 0, VkDeviceSize offset = 0);

  struct Impl;
 private:
  friend struct detail::Internals;  // Sorter and BucketLists refuse a Buffer of another Device
  gpu::Context* context() const;    // its Device's; null for an empty Buffer
  std::unique_ptr<Impl> impl_;
};

}  // namespace vksort
