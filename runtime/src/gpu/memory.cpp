// SPDX-License-Identifier: MIT
#include "gpu/memory.hpp"

#include <mutex>
#include <unordered_map>
#include <utility>

#include "gpu/submit.hpp"
#include "io/format_bytes.hpp"
#include "vksort/error.hpp"

namespace vksort::gpu {

VkDeviceAddress buffer_address(Context& ctx, VkBuffer buffer, VkDeviceSize offset) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = buffer;
  return ctx.vk.vkGetBufferDeviceAddress(ctx.device, &info) + offset;
}

namespace {
// Every live DeviceBuffer of every Context in the process, for made_elsewhere(). A multimap: two
// devices may hand out the same handle value. Never destroyed: buffers of static Devices outlive
// function-local statics.
struct Owners {
  std::mutex mutex;
  std::unordered_multimap<VkBuffer, const Context*> of;
};
Owners& owners() {
  static Owners* o = new Owners;
  return *o;
}
}  // namespace

const Context* made_elsewhere(const Context& ctx, VkBuffer buffer) {
  std::lock_guard lock(owners().mutex);
  auto [first, last] = owners().of.equal_range(buffer);
  const Context* other = nullptr;
  for (auto it = first; it != last; ++it) {
    if (it->second == &ctx) return nullptr;  // ctx's own (another device may use the same handle value)
    other = it->second;
  }
  return other;
}

VkDeviceSize buffer_extent(Context& ctx, VkBuffer buffer) {
  {
    std::lock_guard lock(ctx.buffers_mutex);
    if (auto it = ctx.buffer_sizes.find(buffer); it != ctx.buffer_sizes.end()) return it->second;
  }
  VkMemoryRequirements req{};
  ctx.vk.vkGetBufferMemoryRequirements(ctx.device, buffer, &req);
  return req.size;
}

DeviceBuffer::DeviceBuffer(Context& ctx, VkDeviceSize bytes, MemoryKind kind, const std::string& purpose) : ctx_(&ctx) {
  const std::string what = "allocating " + io::format_bytes(bytes) + " for " + purpose + " on \"" + ctx.info.name + "\"";
  if (bytes == 0) bytes = 4;  // Vulkan forbids empty buffers; an empty sort still gets a valid address
  if (ctx.info.max_allocation_size && bytes > ctx.info.max_allocation_size)
    throw Error(what + ": larger than the device's maxMemoryAllocationSize (" + io::format_bytes(ctx.info.max_allocation_size) + ")",
                VK_ERROR_OUT_OF_DEVICE_MEMORY);
  size_ = bytes;

  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (kind == MemoryKind::device_local)
    info.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                  VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(ctx.vk.vkCreateBuffer(ctx.device, &info, ctx.allocator, &buffer_), what);

  VkMemoryRequirements req{};
  ctx.vk.vkGetBufferMemoryRequirements(ctx.device, buffer_, &req);
  uint32_t type = UINT32_MAX;
  if (kind == MemoryKind::device_local) {
    type = ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } else {
    // Cached host memory reads back fast; coherent memory needs no flushes.
    type = ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (type == UINT32_MAX)
      type = ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  }
  if (type == UINT32_MAX) {
    release();
    throw Error(Status::Code::unsupported, what + ": no suitable memory type");
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = kind == MemoryKind::device_local ? &flags : nullptr;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  if (kind == MemoryKind::device_local && ctx.memory_budget) {
    // The pretend budget (DeviceOptions::pretend.device_memory) refuses as a full device does.
    const uint64_t in_use = ctx.device_local_in_use.fetch_add(req.size) + req.size;
    counted_ = req.size;
    if (in_use > ctx.memory_budget) {
      release();
      throw Error(what + ": " + result_name(VK_ERROR_OUT_OF_DEVICE_MEMORY) + " (pretend device memory of " +
                      io::format_bytes(ctx.memory_budget) + ")",
                  VK_ERROR_OUT_OF_DEVICE_MEMORY);
    }
  }
  if (VkResult r = ctx.vk.vkAllocateMemory(ctx.device, &alloc, ctx.allocator, &memory_); r != VK_SUCCESS) {
    release();
    throw Error(what + ": " + result_name(r), r);
  }
  if (VkResult r = ctx.vk.vkBindBufferMemory(ctx.device, buffer_, memory_, 0); r != VK_SUCCESS) {
    release();
    throw Error(what + " (binding memory): " + result_name(r), r);
  }
  if (kind == MemoryKind::device_local) {
    address_ = buffer_address(ctx, buffer_, 0);
    if (ctx.dirty_memory) fill_with_stale_bytes(ctx, what);
  } else if (VkResult r = ctx.vk.vkMapMemory(ctx.device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_); r != VK_SUCCESS) {
    release();
    throw Error(what + " (mapping staging memory): " + result_name(r), r);
  }
  {
    std::lock_guard lock(ctx.buffers_mutex);
    ctx.buffer_sizes[buffer_] = size_;
  }
  std::lock_guard lock(owners().mutex);
  owners().of.emplace(buffer_, &ctx);
}

void DeviceBuffer::fill_with_stale_bytes(Context& ctx, const std::string& what) {
  // A word that differs per buffer and is never zero, so neither "memory starts zeroed" nor "this
  // buffer holds what the previous one did" can pass by luck.
  const uint32_t pattern = (0xA5C3E1F7u ^ (ctx.dirty_buffers.fetch_add(1) * 0x9E3779B9u)) | 0x01010101u;
  try {
    submit_and_wait(ctx, what + " (filling it with stale bytes, DeviceOptions::pretend.dirty_memory)",
                    [&](VkCommandBuffer cmd) { ctx.vk.vkCmdFillBuffer(cmd, buffer_, 0, VK_WHOLE_SIZE, pattern); });
  } catch (...) {
    release();
    throw;
  }
}

void DeviceBuffer::release() noexcept {
  if (!ctx_) return;
  if (buffer_) {
    {
      // Before the handle is destroyed: the driver may hand the same handle to the next buffer.
      std::lock_guard lock(ctx_->buffers_mutex);
      ctx_->buffer_sizes.erase(buffer_);
    }
    {
      std::lock_guard lock(owners().mutex);
      auto [first, last] = owners().of.equal_range(buffer_);
      for (auto it = first; it != last; ++it)
        if (it->second == ctx_) {
          owners().of.erase(it);
          break;
        }
    }
    ctx_->vk.vkDestroyBuffer(ctx_->device, buffer_, ctx_->allocator);
  }
  if (memory_) ctx_->vk.vkFreeMemory(ctx_->device, memory_, ctx_->allocator);  // also unmaps
  if (counted_) ctx_->device_local_in_use.fetch_sub(counted_);
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  counted_ = 0;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ctx_(o.ctx_), buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)), memory_(std::exchange(o.memory_, VK_NULL_HANDLE)),
      size_(o.size_), address_(o.address_), mapped_(std::exchange(o.mapped_, nullptr)),
      counted_(std::exchange(o.counted_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    ctx_ = o.ctx_;
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    size_ = o.size_;
    address_ = o.address_;
    mapped_ = std::exchange(o.mapped_, nullptr);
    counted_ = std::exchange(o.counted_, 0);
  }
  return *this;
}

}  // namespace vksort::gpu
