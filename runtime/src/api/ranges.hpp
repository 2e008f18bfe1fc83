// SPDX-License-Identifier: MIT
// Argument checks shared by the API's recording paths: the BufferRef ranges a recording will read or
// write, the vksort::Buffers a convenience call is given, and the host memory of the host paths.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "gpu/context.hpp"
#include "vksort/buffer.hpp"

namespace vksort::api {

// One range a recording uses: `used` bytes from ref.offset (0: checked but not used).
struct RangeUse {
  const char* name;  // "keys", "scratch", ... as error messages name it
  BufferRef ref;
  uint64_t used = 0;
  uint32_t alignment = 8;  // of ref.offset
};

// n things of `each` bytes, saturating instead of wrapping (n comes from the caller unchecked).
uint64_t bytes_for(uint64_t n, uint64_t each);

// Throws vksort::Error, prefixed by `what`, naming the first range that is missing, misaligned, of
// size VK_WHOLE_SIZE, smaller than what it must hold (`used`), or beyond
// its VkBuffer (gpu::buffer_extent), or two whose used bytes overlap in one VkBuffer: a sort writing
// one would overwrite the other, and nothing on the GPU could tell.
void check_ranges(gpu::Context& ctx, const std::string& what, std::span<const RangeUse> uses);

// Throws vksort::Error when `buffer` is empty or was made on another device than `ctx` (its handles
// mean nothing there). `buffer_ctx` is the Buffer's (Buffer keeps it private).
void check_buffer_device(const gpu::Context& ctx, const gpu::Context* buffer_ctx, const std::string& what,
                         const char* name);

// One span of host memory a host path reads or writes: `bytes` from `data` (nullptr or 0 bytes: unused).
struct HostUse {
  const char* name;  // "keys", "values", ... as error messages name it
  const void* data;
  uint64_t bytes;
};
// Throws vksort::Error, prefixed by `what`, when two of `uses` overlap: the results are downloaded one
// after the other, so the later would overwrite the earlier (keys lost silently).
void check_host_disjoint(const std::string& what, std::initializer_list<HostUse> uses);

}  // namespace vksort::api
