// SPDX-License-Identifier: MIT
#include "gpu/staging_pool.hpp"

#include <algorithm>
#include <bit>

namespace vksort::gpu {

StagingPool::Lease StagingPool::take(Context& ctx, VkDeviceSize bytes, const std::string& purpose) {
  uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    generation = generation_;
    if (bytes <= keep_bytes) {
      // The smallest kept buffer that holds `bytes`.
      auto best = idle_.end();
      for (auto it = idle_.begin(); it != idle_.end(); ++it)
        if (it->size() >= bytes && (best == idle_.end() || it->size() < best->size())) best = it;
      if (best != idle_.end()) {
        DeviceBuffer b = std::move(*best);
        idle_.erase(best);
        return Lease(this, std::move(b), generation);
      }
    }
  }
  // Kept buffers are rounded up to a power of two, so that a few serve copies of varied sizes.
  const VkDeviceSize size = bytes <= keep_bytes ? std::bit_ceil(std::max<VkDeviceSize>(bytes, 4096)) : bytes;
  return Lease(bytes <= keep_bytes ? this : nullptr, DeviceBuffer(ctx, size, MemoryKind::staging, purpose), generation);
}

void StagingPool::give_back(DeviceBuffer buffer, uint64_t generation) {
  DeviceBuffer dropped;  // freed outside the lock (declared before it: destroyed after it is released)
  std::lock_guard lock(mutex_);
  if (generation != generation_) {  // taken before a clear(): freed, as clear() freed the rest
    dropped = std::move(buffer);
    return;
  }
  idle_.push_back(std::move(buffer));
  if (idle_.size() > keep_count) {
    // Keep the largest: they serve every smaller copy.
    auto smallest = std::min_element(idle_.begin(), idle_.end(), [](const DeviceBuffer& a, const DeviceBuffer& b) { return a.size() < b.size(); });
    dropped = std::move(*smallest);
    idle_.erase(smallest);
  }
}

void StagingPool::clear() {
  std::vector<DeviceBuffer> dropped;  // freed outside the lock
  std::lock_guard lock(mutex_);
  dropped.swap(idle_);
  ++generation_;
}

std::vector<VkDeviceSize> StagingPool::idle_sizes() const {
  std::lock_guard lock(mutex_);
  std::vector<VkDeviceSize> sizes;
  for (const DeviceBuffer& b : idle_) sizes.push_back(b.size());
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace vksort::gpu
