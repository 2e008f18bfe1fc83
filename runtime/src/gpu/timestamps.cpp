// SPDX-License-Identifier: MIT
#include "gpu/timestamps.hpp"

#include <algorithm>

#include "vksort/error.hpp"

namespace vksort::gpu {

Timestamps::Timestamps(Context& ctx, uint32_t capacity) : ctx_(ctx), capacity_(capacity) {
  if (!ctx.info.timestamps) return;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = capacity;
  check(ctx.vk.vkCreateQueryPool(ctx.device, &info, ctx.allocator, &pool_), "creating a timestamp query pool");
}

Timestamps::~Timestamps() {
  if (pool_) ctx_.vk.vkDestroyQueryPool(ctx_.device, pool_, ctx_.allocator);
}

void Timestamps::reset(VkCommandBuffer cmd) {
  names_.clear();
  if (pool_) ctx_.vk.vkCmdResetQueryPool(cmd, pool_, 0, capacity_);
}

void Timestamps::mark(VkCommandBuffer cmd, const std::string& name) {
  if (!pool_) return;
  if (names_.size() >= capacity_) throw Error("internal: more timestamp marks than the pool holds");
  // Bottom of pipe: the time at which everything recorded before has finished.
  ctx_.vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, uint32_t(names_.size()));
  names_.push_back(name);
}

std::vector<std::pair<std::string, double>> Timestamps::phases_ms(double* total_ms) const {
  std::vector<std::pair<std::string, double>> phases;
  if (total_ms) *total_ms = -1.0;
  if (!pool_ || names_.size() < 2) return phases;
  std::vector<uint64_t> ticks(names_.size());
  check(ctx_.vk.vkGetQueryPoolResults(ctx_.device, pool_, 0, uint32_t(ticks.size()), ticks.size() * sizeof(uint64_t),
                                      ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "reading GPU timestamps");
  // Only timestampValidBits bits count; differences are taken modulo 2^bits so a wrap is harmless.
  const uint32_t bits = ctx_.info.timestamp_valid_bits;
  const uint64_t mask = bits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1);
  const double ms_per_tick = ctx_.info.timestamp_period_ns * 1e-6;
  auto elapsed = [&](size_t a, size_t b) { return double((ticks[b] - ticks[a]) & mask) * ms_per_tick; };
  for (size_t k = 0; k + 1 < names_.size(); ++k) {
    auto it = std::find_if(phases.begin(), phases.end(), [&](const auto& p) { return p.first == names_[k]; });
    if (it == phases.end()) phases.emplace_back(names_[k], elapsed(k, k + 1));
    else it->second += elapsed(k, k + 1);
  }
  if (total_ms) *total_ms = elapsed(0, names_.size() - 1);
  // A first mark named "start" anchors the total; its interval (what was recorded before the next
  // mark, and on a CPU driver whatever kept its thread from the next timestamp: lavapipe under load
  // measured up to 0.7 ms there) counts to the next phase, so that the phases add up to the total.
  if (!phases.empty() && phases.front().first == "start") {
    if (phases.size() >= 2) phases[1].second += phases.front().second;
    phases.erase(phases.begin());
  }
  return phases;
}

}  // namespace vksort::gpu
