// SPDX-License-Identifier: MIT
// vksort::Buffer: device-local memory with staging uploads and downloads.
#include "vksort/buffer.hpp"

#include <cstring>

#include "api/composed_sort.hpp"
#include "api/internals.hpp"
#include "api/status_of.hpp"
#include "gpu/memory.hpp"
#include "gpu/recorder.hpp"
#include "gpu/staging_pool.hpp"
#include "gpu/submit.hpp"
#include "io/format_bytes.hpp"
#include "vksort/error.hpp"

namespace vksort {

struct Buffer::Impl {
  Device device;
  gpu::DeviceBuffer memory;
};

namespace {
void check_range(const char* op, VkDeviceSize offset, size_t bytes, VkDeviceSize size) {
  if (offset > size || bytes > size - offset)
    throw Error(std::string(op) + " of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                " exceeds the buffer's " + std::to_string(size) + " bytes");
}
}  // namespace

Result<Buffer> Buffer::create(Device& device, VkDeviceSize bytes, const std::string& purpose) noexcept {
  return api::result_of<Buffer>([&] {
    Buffer b;
    b.impl_.reset(new Impl{device, gpu::DeviceBuffer(detail::context_of(device), bytes, gpu::MemoryKind::device_local, purpose)});
    return b;
  });
}
Buffer::Buffer(Device& device, VkDeviceSize bytes, const std::string& purpose)
    : Buffer(api::value_or_throw(create(device, bytes, purpose))) {}
// Out of line, like the destructor: only here is Impl complete for the unique_ptr.
Buffer::Buffer() = default;
Buffer::~Buffer() = default;
Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;

gpu::Context* Buffer::context() const { return impl_ ? &detail::context_of(impl_->device) : nullptr; }
VkDeviceSize Buffer::size() const { return impl_ ? impl_->memory.size() : 0; }
VkBuffer Buffer::vk_buffer() const { return impl_ ? impl_->memory.buffer() : VK_NULL_HANDLE; }
VkDeviceAddress Buffer::address() const { return impl_ ? impl_->memory.address() : 0; }
BufferRef Buffer::ref() const { return {vk_buffer(), 0, size()}; }

void Buffer::upload(std::span<const std::byte> data, VkDeviceSize offset) {
  if (!impl_) throw Error("upload into an empty vksort::Buffer");
  check_range("upload", offset, data.size(), size());
  if (data.empty()) return;
  gpu::Context& ctx = detail::context_of(impl_->device);
  const gpu::StagingPool::Lease staging = ctx.staging->take(ctx, data.size(), "upload staging");
  std::memcpy(staging->mapped(), data.data(), data.size());
  gpu::submit_and_wait(ctx, "uploading " + io::format_bytes(data.size()), [&](VkCommandBuffer cmd) {
    // Earlier GPU work on this buffer (a sort, a download) finishes before the copy overwrites it.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{0, offset, data.size()};
    ctx.vk.vkCmdCopyBuffer(cmd, staging->buffer(), impl_->memory.buffer(), 1, &region);
    // Later submissions' shaders and copies see the upload.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT);
  });
}

void Buffer::download(std::span<std::byte> data, VkDeviceSize offset) const {
  if (!impl_) throw Error("download from an empty vksort::Buffer");
  check_range("download", offset, data.size(), size());
  if (data.empty()) return;
  api::download_together(detail::context_of(impl_->device), {{this, data.data(), data.size(), offset}});
}

void Buffer::copy_from(const Buffer& src, VkDeviceSize bytes, VkDeviceSize src_offset, VkDeviceSize offset) {
  if (!impl_) throw Error("copy into an empty vksort::Buffer");
  if (!src.impl_) throw Error("copy from an empty vksort::Buffer");
  if (src.context() != context()) throw Error("copy between Buffers of different vksort::Devices");
  check_range("copy (source)", src_offset, bytes, src.size());
  check_range("copy (destination)", offset, bytes, size());
  if (bytes == 0) return;
  if (&src == this && src_offset < offset + bytes && offset < src_offset + bytes)
    throw Error("copy within one vksort::Buffer with overlapping ranges (" + std::to_string(bytes) + " bytes from offset " +
                std::to_string(src_offset) + " to " + std::to_string(offset) + ")");
  gpu::Context& ctx = detail::context_of(impl_->device);
  gpu::submit_and_wait(ctx, "copying " + io::format_bytes(bytes) + " between buffers", [&](VkCommandBuffer cmd) {
    // Earlier GPU work on either buffer finishes before the copy reads or overwrites it.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{src_offset, offset, bytes};
    ctx.vk.vkCmdCopyBuffer(cmd, src.impl_->memory.buffer(), impl_->memory.buffer(), 1, &region);
    // Later submissions' shaders and copies see it.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT);
  });
}

}  // namespace vksort
