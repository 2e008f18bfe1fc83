// SPDX-License-Identifier: MIT
#include "api/composed_sort.hpp"

#include <algorithm>
#include <cstring>

#include "gpu/staging_pool.hpp"
#include "gpu/submit.hpp"
#include "gpu/timestamps.hpp"
#include "io/format_bytes.hpp"

namespace vksort::api {

void record_nested(gpu::Recorder& rec, Sorter& sorter, const SortBuffers& buffers, uint64_t n, BufferRef count) {
  const Status s = count.empty() ? sorter.record(rec.command_buffer(), buffers, n)
                                 : sorter.record_indirect(rec.command_buffer(), buffers, count, n);
  if (!s) throw Error(s.message, s.result);
  rec.forget_binding();  // the Sorter bound its own pipelines
}

void download_together(gpu::Context& ctx, std::initializer_list<HostDownload> downloads) {
  // A staging buffer each (one of their total could exceed maxMemoryAllocationSize where each fits).
  std::vector<std::unique_ptr<gpu::StagingPool::Lease>> staging;
  staging.reserve(downloads.size());
  VkDeviceSize total = 0;
  for (const HostDownload& d : downloads) {
    if (d.offset > d.from->size() || d.bytes > d.from->size() - d.offset)
      throw Error("internal: a download of " + std::to_string(d.bytes) + " bytes at offset " + std::to_string(d.offset) +
                  " from a Buffer of " + std::to_string(d.from->size()));
    if (d.bytes)
      // (new, not make_unique: a Lease is neither copied nor moved, and only this form elides the copy)
      staging.emplace_back(new gpu::StagingPool::Lease(ctx.staging->take(ctx, d.bytes, "download staging")));
    total += d.bytes;
  }
  if (total == 0) return;
  gpu::submit_and_wait(ctx, "downloading " + io::format_bytes(total), [&](VkCommandBuffer cmd) {
    // As Buffer::download: earlier GPU work on the buffers finishes before the copies read them.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    size_t k = 0;
    for (const HostDownload& d : downloads) {
      if (d.bytes == 0) continue;
      const VkBufferCopy region{d.offset, 0, d.bytes};
      ctx.vk.vkCmdCopyBuffer(cmd, d.from->vk_buffer(), (*staging[k++])->buffer(), 1, &region);
    }
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
  });
  size_t k = 0;
  for (const HostDownload& d : downloads)
    if (d.bytes) std::memcpy(d.to, (*staging[k++])->mapped(), d.bytes);
}

SortStats timed_submit(gpu::Context& ctx, const std::string& what, const std::function<void(gpu::Recorder&)>& record) {
  gpu::Timestamps timestamps(ctx, 64);
  gpu::submit_and_wait(ctx, what, [&](VkCommandBuffer cmd) {
    gpu::Recorder rec(ctx, cmd, &timestamps);
    timestamps.reset(cmd);
    // Uploads (transfer writes) finish before the work reads or overwrites their buffers.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    record(rec);
    rec.phase("end");
  });
  SortStats stats;
  stats.phases_ms = timestamps.phases_ms(&stats.gpu_ms);
  return stats;
}

}  // namespace vksort::api
