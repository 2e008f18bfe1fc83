// SPDX-License-Identifier: MIT
// Host-visible staging memory kept between uploads and downloads of one device: allocating and mapping
// it for every copy was the convenience path's fixed cost (vksort::sort on a span uploads and downloads
// keys, and values, every call). Buffers up to `keep_bytes` are kept, `keep_count` of them at most (the
// largest), for the next copy of at most their size; larger ones live for one copy only, so nothing
// big is held between calls. Thread-safe: each copy takes a buffer for itself and gives it back.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "gpu/memory.hpp"

namespace vksort::gpu {

class StagingPool {
 public:
  static constexpr VkDeviceSize keep_bytes = VkDeviceSize(16) << 20;
  static constexpr size_t keep_count = 4;

  // Staging of at least `bytes` for one copy; it goes back to the pool when the Lease ends (and is
  // kept there unless the pool was cleared meanwhile).
  class Lease {
   public:
    Lease(StagingPool* pool, DeviceBuffer buffer, uint64_t generation)
        : pool_(pool), buffer_(std::move(buffer)), generation_(generation) {}
    ~Lease() {
      if (pool_) pool_->give_back(std::move(buffer_), generation_);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    const DeviceBuffer& operator*() const { return buffer_; }
    const DeviceBuffer* operator->() const { return &buffer_; }

   private:
    StagingPool* pool_;
    DeviceBuffer buffer_;
    uint64_t generation_;
  };

  Lease take(Context& ctx, VkDeviceSize bytes, const std::string& purpose);
  // Frees every kept buffer (Device::release_cached_memory). Buffers in use then (another thread's
  // copy) are not freed under it; they are not kept when given back (a new generation begins).
  void clear();
  // The sizes of the buffers kept now, smallest first (for tests).
  std::vector<VkDeviceSize> idle_sizes() const;

 private:
  void give_back(DeviceBuffer buffer, uint64_t generation);
  mutable std::mutex mutex_;
  std::vector<DeviceBuffer> idle_;
  uint64_t generation_ = 0;  // clear()s so far
};

}  // namespace vksort::gpu
