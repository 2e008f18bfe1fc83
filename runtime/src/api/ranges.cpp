// SPDX-License-Identifier: MIT
#include "api/ranges.hpp"

#include <limits>

#include "gpu/memory.hpp"
#include "vksort/error.hpp"

namespace vksort::api {

uint64_t bytes_for(uint64_t n, uint64_t each) {
  return each && n > std::numeric_limits<uint64_t>::max() / each ? std::numeric_limits<uint64_t>::max() : n * each;
}

void check_ranges(gpu::Context& ctx, const std::string& what, std::span<const RangeUse> uses) {
  for (const RangeUse& u : uses) {
    const std::string name = u.name;
    const BufferRef& r = u.ref;
    if (r.buffer == VK_NULL_HANDLE) throw Error(what + ": no " + name + " buffer");
    if (r.offset % u.alignment)
      throw Error(what + ": the " + name + " offset must be a multiple of " + std::to_string(u.alignment));
    if (r.size == VK_WHOLE_SIZE)
      throw Error(what + ": the " + name + " range's size is VK_WHOLE_SIZE; give it in bytes");
    if (r.size < u.used)
      throw Error(what + ": the " + name + " range holds " + std::to_string(r.size) + " bytes, " +
                  std::to_string(u.used) + " needed");
    if (const gpu::Context* other = gpu::made_elsewhere(ctx, r.buffer))
      throw Error(what + ": the " + name + " range's VkBuffer was made on another vksort::Device (\"" +
                  other->info.name + "\"); use buffers of the Device this was made on");
    const VkDeviceSize extent = gpu::buffer_extent(ctx, r.buffer);
    if (r.offset > extent || r.size > extent - r.offset)
      throw Error(what + ": the " + name + " range (" + std::to_string(r.size) + " bytes at offset " +
                  std::to_string(r.offset) + ") ends beyond its VkBuffer's " + std::to_string(extent) + " bytes");
  }
  for (size_t i = 0; i < uses.size(); ++i)
    for (size_t j = i + 1; j < uses.size(); ++j) {
      const RangeUse &a = uses[i], &b = uses[j];
      if (a.ref.buffer != b.ref.buffer || a.used == 0 || b.used == 0) continue;
      // Both ends lie inside one VkBuffer (checked above): no overflow.
      const uint64_t a_end = a.ref.offset + a.used, b_end = b.ref.offset + b.used;
      if (a.ref.offset < b_end && b.ref.offset < a_end)
        throw Error(what + ": the " + std::string(a.name) + " and " + b.name + " ranges overlap in one VkBuffer (bytes [" +
                    std::to_string(a.ref.offset) + ", " + std::to_string(a_end) + ") and [" +
                    std::to_string(b.ref.offset) + ", " + std::to_string(b_end) + "))");
    }
}

void check_buffer_device(const gpu::Context& ctx, const gpu::Context* buffer_ctx, const std::string& what,
                         const char* name) {
  if (!buffer_ctx) throw Error(what + ": the " + std::string(name) + " Buffer is empty");
  if (buffer_ctx != &ctx)
    throw Error(what + ": the " + std::string(name) + " Buffer was made on another vksort::Device (\"" +
                buffer_ctx->info.name + "\"); use Buffers of the Device this was made on");
}

void check_host_disjoint(const std::string& what, std::initializer_list<HostUse> uses) {
  for (auto a = uses.begin(); a != uses.end(); ++a)
    for (auto b = a + 1; b != uses.end(); ++b) {
      if (!a->data || !b->data || a->bytes == 0 || b->bytes == 0) continue;
      // As integers: comparing pointers into different objects is unspecified.
      const auto a_begin = reinterpret_cast<std::uintptr_t>(a->data), b_begin = reinterpret_cast<std::uintptr_t>(b->data);
      if (a_begin < b_begin + b->bytes && b_begin < a_begin + a->bytes)
        throw Error(what + ": the " + a->name + " and " + b->name +
                    " memory overlap; give each its own (the results are written one after the other)");
    }
}

}  // namespace vksort::api
