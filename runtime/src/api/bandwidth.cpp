// SPDX-License-Identifier: MIT
// vksort::measure_copy_bandwidth: the copy kernel (shaders/util/copy_words.comp) timed like a sort.
#include "vksort/bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "api/internals.hpp"
#include "gpu/kernel.hpp"
#include "gpu/memory.hpp"
#include "gpu/recorder.hpp"
#include "gpu/submit.hpp"
#include "io/format_bytes.hpp"
#include "gpu/timestamps.hpp"
#include "../../shaders/common/interface.h"
#include "vksort/error.hpp"

namespace vksort {

CopyBandwidth measure_copy_bandwidth(Device& device, uint64_t bytes, int runs, double warmup_ms) {
  if (bytes == 0) throw Error("measure_copy_bandwidth: 0 bytes to copy");
  if (runs < 1) throw Error("measure_copy_bandwidth: at least 1 timed run is needed");
  if (!(warmup_ms >= 0.0) || !std::isfinite(warmup_ms))
    throw Error("measure_copy_bandwidth: warmup_ms must be a finite number of milliseconds >= 0");
  gpu::Context& ctx = detail::context_of(device);
  const uint64_t words = bytes / 4 + (bytes % 4 != 0);  // (bytes + 3) / 4 wrapped to 0 near 2^64
  if (words > 0xffffffffull) throw Error("measure_copy_bandwidth: at most 2^32 - 1 words per copy");
  const std::string what = "copying " + io::format_bytes(words * 4) + " (bandwidth yardstick)";
  gpu::DeviceBuffer src(ctx, words * 4, gpu::MemoryKind::device_local, "copy source for the bandwidth yardstick");
  gpu::DeviceBuffer dst(ctx, words * 4, gpu::MemoryKind::device_local, "copy target for the bandwidth yardstick");

  // Four words per invocation (copy_words.comp); 256 invocations or the device's limit if smaller.
  const uint32_t workgroup = std::min<uint32_t>(256, ctx.info.max_workgroup_invocations);
  gpu::Kernel copy(ctx, "util_copy_words", workgroup, {}, sizeof(shader::CopyPush));
  shader::CopyPush push{};
  push.src = src.address();
  push.dst = dst.address();
  push.words = uint32_t(words);
  const uint64_t groups = (words + 4ull * workgroup - 1) / (4ull * workgroup);
  push.group_count = uint32_t(groups);

  CopyBandwidth result;
  result.bytes = words * 4;
  std::vector<double> ms;
  gpu::Timestamps timestamps(ctx, 2);
  auto copy_once = [&] {
    gpu::submit_and_wait(ctx, what, [&](VkCommandBuffer cmd) {
      gpu::Recorder rec(ctx, cmd, &timestamps);
      timestamps.reset(cmd);
      rec.phase("copy");
      rec.dispatch(copy, push, groups);
      rec.phase("end");
    });
  };
  const auto warm_start = std::chrono::steady_clock::now();
  do copy_once();  // the first also touches the memory first
  while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warm_start).count() < warmup_ms);
  for (int run = 0; run < runs; ++run) {
    copy_once();
    double total = -1.0;
    timestamps.phases_ms(&total);
    if (total >= 0) ms.push_back(total);
  }
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    const size_t n = ms.size();
    result.ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    result.ms_min = ms.front();
  }
  return result;
}

}  // namespace vksort
