// SPDX-License-Identifier: MIT
// Host-visible staging memory kept between uploads and downloads of one device: allocating and mapping
// it for every copy was the convenience path's fixed cost (vksort::sort on a span uploads and downloads
// keys, and values, every call). Buffers up to `keep_bytes` are kept, a few of them, for the next copy
// of at most their size; larger ones live for one copy only, so nothing big is held between calls.
#pragma once

#include <mutex>
#include <vector>

#include "gpu/memory.hpp"

namespace vksort::gpu {

class StagingPool {
 public:
  static constexpr VkDeviceSize keep_bytes = VkDeviceSize(16) << 20;
  static constexpr size_t keep_count = 4;

  // Staging of at least `bytes` for one copy; it goes back to the pool when the Lease ends.
  class Lease {
   public:
    Lease(StagingPool* pool, DeviceBuffer buffer) : pool_(pool), buffer_(std::move(buffer)) {}
    ~Lease() {
      if (pool_) pool_->give_back(std::move(buffer_));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    const DeviceBuffer& operator*() const { return buffer_; }
    const DeviceBuffer* operator->() const { return &buffer_; }

   private:
    StagingPool* pool_;
    DeviceBuffer buffer_;
  };

  Lease take(Context& ctx, VkDeviceSize bytes, const std::string& purpose);
  // Frees every kept buffer (before the device goes).
  void clear();

 private:
  void give_back(DeviceBuffer buffer);
  std::mutex mutex_;
  std::vector<DeviceBuffer> idle_;
};

}  // namespace vksort::gpu
