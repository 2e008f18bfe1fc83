// SPDX-License-Identifier: MIT
#include "gpu_buffer.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "model.hpp"

namespace particles::gpu {

namespace {
uint32_t memory_type(const Context& ctx, uint32_t bits, VkMemoryPropertyFlags want) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(ctx.physical(), &mp);
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
  return UINT32_MAX;
}

struct Raw {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

Raw make(const Context& ctx, VkDeviceSize bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags props,
         bool device_address, const std::string& purpose) {
  Raw r;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(ctx.device(), &bci, nullptr, &r.buffer), ("creating the " + purpose + " buffer").c_str());
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device(), r.buffer, &req);
  uint32_t type = memory_type(ctx, req.memoryTypeBits, props);
  if (type == UINT32_MAX) {
    vkDestroyBuffer(ctx.device(), r.buffer, nullptr);
    throw Error("no memory type for the " + purpose + " buffer");
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, device_address ? &flags : nullptr};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkResult res = vkAllocateMemory(ctx.device(), &mai, nullptr, &r.memory);
  if (res != VK_SUCCESS) {
    vkDestroyBuffer(ctx.device(), r.buffer, nullptr);
    check(res, ("allocating " + std::to_string(bytes) + " bytes for the " + purpose + " buffer").c_str());
  }
  vkBindBufferMemory(ctx.device(), r.buffer, r.memory, 0);
  return r;
}

// A host-visible buffer for one copy; freed when it goes out of scope.
struct Staging {
  const Context& ctx;
  Raw raw;
  void* map = nullptr;
  Staging(const Context& c, VkDeviceSize bytes) : ctx(c) {
    raw = make(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, false, "staging");
    check(vkMapMemory(ctx.device(), raw.memory, 0, VK_WHOLE_SIZE, 0, &map), "mapping a staging buffer");
  }
  ~Staging() {
    vkDestroyBuffer(ctx.device(), raw.buffer, nullptr);
    vkFreeMemory(ctx.device(), raw.memory, nullptr);
  }
};
}  // namespace

Buffer::Buffer(const Context& ctx, VkDeviceSize bytes, const char* purpose) : ctx_(&ctx), size_(bytes) {
  Raw r = make(ctx, bytes,
               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                   VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, true, purpose);
  buffer_ = r.buffer;
  memory_ = r.memory;
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = buffer_;
  address_ = vkGetBufferDeviceAddress(ctx.device(), &info);
}

Buffer::~Buffer() {
  if (buffer_) vkDestroyBuffer(ctx_->device(), buffer_, nullptr);
  if (memory_) vkFreeMemory(ctx_->device(), memory_, nullptr);
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    this->~Buffer();
    ctx_ = o.ctx_;
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    size_ = o.size_;
    address_ = o.address_;
  }
  return *this;
}

void Buffer::upload(std::span<const std::byte> data, VkDeviceSize offset) {
  if (data.empty()) return;
  Staging s(*ctx_, data.size());
  std::memcpy(s.map, data.data(), data.size());
  ctx_->submit_and_wait([&](VkCommandBuffer cmd) {
    VkBufferCopy region{0, offset, data.size()};
    vkCmdCopyBuffer(cmd, s.raw.buffer, buffer_, 1, &region);
    // Later submissions' shaders read what the copy wrote.
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b, 0,
                         nullptr, 0, nullptr);
  });
}

void Buffer::download(std::span<std::byte> data, VkDeviceSize offset) const {
  if (data.empty()) return;
  Staging s(*ctx_, data.size());
  ctx_->submit_and_wait([&](VkCommandBuffer cmd) {
    // Earlier submissions completed (submit_and_wait waits), but their shader writes still need a
    // memory dependency to be visible to this copy.
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
    VkBufferCopy region{offset, 0, data.size()};
    vkCmdCopyBuffer(cmd, buffer_, s.raw.buffer, 1, &region);
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr,
                         0, nullptr);
  });
  std::memcpy(data.data(), s.map, data.size());
}

VkDeviceAddress address_of(const Context& ctx, const vksort::BufferRef& ref) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = ref.buffer;
  return vkGetBufferDeviceAddress(ctx.device(), &info) + ref.offset;
}

void compute_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b,
                       0, nullptr, 0, nullptr);
}

void compute_transfer_barrier(VkCommandBuffer cmd) {
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace particles::gpu
