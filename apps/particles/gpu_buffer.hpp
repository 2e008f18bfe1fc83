// SPDX-License-Identifier: MIT
// gpu_buffer.hpp — a storage buffer with a device address (the shaders reach it through push
// constants), plus host copies through a staging buffer.
#pragma once

#include <cstddef>
#include <span>

#include <vulkan/vulkan_core.h>

#include <vksort/buffer.hpp>

#include "gpu_context.hpp"

namespace particles::gpu {

class Buffer {
 public:
  Buffer() = default;
  // Device-local storage, usable by vksort too (also as sort scratch): STORAGE | DEVICE_ADDRESS |
  // TRANSFER_SRC/DST | INDIRECT.
  Buffer(const Context& ctx, VkDeviceSize bytes, const char* purpose);
  ~Buffer();
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;

  VkBuffer vk() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  VkDeviceAddress address() const { return address_; }
  vksort::BufferRef ref() const { return {buffer_, 0, size_}; }

  void upload(std::span<const std::byte> data, VkDeviceSize offset = 0);
  void download(std::span<std::byte> data, VkDeviceSize offset = 0) const;

 private:
  const Context* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkDeviceAddress address_ = 0;
};

// The device address of any buffer made with SHADER_DEVICE_ADDRESS usage (vksort's head and next).
VkDeviceAddress address_of(const Context& ctx, const vksort::BufferRef& ref);

// Makes compute-shader writes visible to compute-shader reads and writes (the barrier between passes).
void compute_barrier(VkCommandBuffer cmd);
// Compute and transfer writes visible to compute and transfer reads and writes (around buffer copies).
void compute_transfer_barrier(VkCommandBuffer cmd);

}  // namespace particles::gpu
