// SPDX-License-Identifier: MIT
#include "gpu/staging_pool.hpp"

#include <algorithm>
#include <bit>

namespace vksort::gpu {

StagingPool::Lease StagingPool::take(Context& ctx, VkDeviceSize bytes, const std::string& purpose) {
  if (bytes <= keep_bytes) {
    std::lock_guard lock(mutex_);
    // The smallest kept buffer that holds `bytes`.
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if (it->size() >= bytes && (best == idle_.end() || it->size() < best->size())) best = it;
    if (best != idle_.end()) {
      DeviceBuffer b = std::move(*best);
      idle_.erase(best);
      return Lease(this, std::move(b));
    }
  }
  // Kept buffers are rounded up to a power of two, so that a few serve copies of varied sizes.
  const VkDeviceSize size = bytes <= keep_bytes ? std::bit_ceil(std::max<VkDeviceSize>(bytes, 4096)) : bytes;
  return Lease(bytes <= keep_bytes ? this : nullptr, DeviceBuffer(ctx, size, MemoryKind::staging, purpose));
}

void StagingPool::give_back(DeviceBuffer buffer) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(buffer));
  if (idle_.size() > keep_count) {
    // Keep the largest: they serve every smaller copy.
    auto smallest = std::min_element(idle_.begin(), idle_.end(), [](const DeviceBuffer& a, const DeviceBuffer& b) { return a.size() < b.size(); });
    idle_.erase(smallest);
  }
}

void StagingPool::clear() {
  std::lock_guard lock(mutex_);
  idle_.clear();
}

}  // namespace vksort::gpu
