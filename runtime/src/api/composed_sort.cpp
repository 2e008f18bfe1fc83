// SPDX-License-Identifier: MIT
#include "api/composed_sort.hpp"

#include <algorithm>

#include "gpu/submit.hpp"
#include "gpu/timestamps.hpp"

namespace vksort::api {

void record_nested(gpu::Recorder& rec, Sorter& sorter, const SortBuffers& buffers, uint64_t n, BufferRef count) {
  const Status s = count.empty() ? sorter.record(rec.command_buffer(), buffers, n)
                                 : sorter.record_indirect(rec.command_buffer(), buffers, count, n);
  if (!s) throw Error(s.message, s.result);
  rec.forget_binding();  // the Sorter bound its own pipelines
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
