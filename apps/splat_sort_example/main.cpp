// SPDX-License-Identifier: MIT
// The depth sort of a 3D Gaussian-splatting renderer, per frame, in the application's own Vulkan
// (embed_example's app_vulkan: its instance, device, buffers, pipelines and command buffer):
//   1. its culling pass projects every splat, drops those behind the camera or off screen, and appends
//      the visible ones as 64-bit keys (screen tile id << 32 | view depth bits) with the splat index; how
//      many are visible only the GPU knows (an atomic counter);
//   2. vksort sorts them by Sorter::record_indirect, which reads that count on the GPU, on the bit range
//      [0, 32 + tile bits): the tile ids use only the low bits of the high word, so the passes over the
//      unused high bits are skipped;
//   3. (a renderer would rasterise tile by tile, front to back.)
// Every frame the pairs are copied out before and after the sort and checked on the host: the sorted
// keys and indices must equal std::stable_sort of the pre-sort pairs byte for byte, and the indices
// must be distinct splats. The camera turns between frames, so every frame sorts a different set.
// Reports the GPU time per frame (application timestamps): cull, sort, and their sum (the check's copies
// are recorded between them and not counted). Exit status 0 when every
// frame is right and no validation message was seen, 1 otherwise, 2 for bad arguments.
//
//   splat_sort_example [--splats N] [--frames F] [--width W] [--height H] [--validate] [--device NAME]
//                      [--json FILE]
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <vksort/vksort.hpp>

#include "app_vulkan.hpp"
#include "splat_pass.h"

namespace {

const uint32_t splat_keys_spirv[] =
#include "splat_keys.spv.h"
    ;
constexpr uint32_t workgroup = 256;  // local_size_x of the culling pass

struct Args {
  uint32_t splats = 1'000'000;
  uint32_t frames = 5;
  uint32_t width = 1920, height = 1080;
  bool validate = false;
  std::string device, json;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    auto number = [&] { return uint32_t(std::strtoul(argv[++i], nullptr, 10)); };
    if (arg == "--validate") a.validate = true;
    else if (arg == "--splats" && has_value) a.splats = number();
    else if (arg == "--frames" && has_value) a.frames = number();
    else if (arg == "--width" && has_value) a.width = number();
    else if (arg == "--height" && has_value) a.height = number();
    else if (arg == "--device" && has_value) a.device = argv[++i];
    else if (arg == "--json" && has_value) a.json = argv[++i];
    else return false;
  }
  // Keys and indices are sorted with 32-bit positions; tiles must fit the key's high word.
  return a.splats >= 1 && a.splats < (1u << 30) && a.frames >= 1 && a.width >= 1 && a.height >= 1 &&
         a.width <= 65536 && a.height <= 65536;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// "" when `sorted` (count pairs) is the stable sort of `pre` by key, else what differs.
std::string check_frame(const uint64_t* pre_keys, const uint32_t* pre_indices, const uint64_t* keys, const uint32_t* indices,
                        uint32_t count, uint32_t splats) {
  std::vector<uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return pre_keys[a] < pre_keys[b]; });
  std::vector<bool> seen(splats);
  for (uint32_t i = 0; i < count; ++i) {
    if (pre_indices[i] >= splats || seen[pre_indices[i]]) return "the culling pass wrote a splat twice or out of range";
    seen[pre_indices[i]] = true;
    if (keys[i] != pre_keys[order[i]] || indices[i] != pre_indices[order[i]])
      return "position " + std::to_string(i) + ": got key " + std::to_string(keys[i]) + " index " + std::to_string(indices[i]) +
             ", expected key " + std::to_string(pre_keys[order[i]]) + " index " + std::to_string(pre_indices[order[i]]);
  }
  return "";
}

int run(const Args& args) {
  app::Gpu gpu = app::create_gpu(args.validate, args.device);
  const std::string device_name = gpu.name;  // for the report, after the device is gone
  const uint32_t tiles_x = (args.width + TILE_PIXELS - 1) / TILE_PIXELS, tiles_y = (args.height + TILE_PIXELS - 1) / TILE_PIXELS;
  const uint32_t tile_bits = std::max(1u, uint32_t(std::bit_width(tiles_x * tiles_y - 1)));
  std::printf("device: %s, %u splats, %ux%u pixels in %u tiles (%u bits): keys sorted on bits [0, %u)\n", gpu.name.c_str(),
              args.splats, args.width, args.height, tiles_x * tiles_y, tile_bits, 32 + tile_bits);
  int status = 0;
  std::vector<double> cull_ms, sort_ms, frame_ms, visible;
  {
    vksort::Device sort_device(vksort::BorrowedVulkan{gpu.instance, gpu.physical, gpu.device, gpu.queue, gpu.family,
                                                      vkGetInstanceProcAddr});
    // Radix sort is the algorithm with a GPU-side count; the bit range skips the tile word's unused bits.
    vksort::Sorter sorter(sort_device, {.key = vksort::Key::u64, .algorithm = vksort::Algorithm::radix, .value_bytes = 4,
                                        .begin_bit = 0, .end_bit = 32 + tile_bits});
    const uint32_t n = args.splats;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags copied = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    app::Buffer positions = app::create_buffer(gpu, VkDeviceSize(n) * 12, storage, true);
    app::Buffer keys = app::create_buffer(gpu, VkDeviceSize(n) * 8, copied, false);
    app::Buffer indices = app::create_buffer(gpu, VkDeviceSize(n) * 4, copied, false);
    app::Buffer count = app::create_buffer(gpu, 8, copied, false);
    app::Buffer scratch = app::create_buffer(gpu, sorter.scratch_bytes_indirect(n),
                                             storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
    // Host copies of the pairs before and after the sort, and of the count, for the check.
    app::Buffer pre_keys = app::create_buffer(gpu, VkDeviceSize(n) * 8, copied, true);
    app::Buffer pre_indices = app::create_buffer(gpu, VkDeviceSize(n) * 4, copied, true);
    app::Buffer post_keys = app::create_buffer(gpu, VkDeviceSize(n) * 8, copied, true);
    app::Buffer post_indices = app::create_buffer(gpu, VkDeviceSize(n) * 4, copied, true);
    app::Buffer count_read = app::create_buffer(gpu, 8, copied, true);
    app::Pipeline cull = app::create_pipeline(gpu, splat_keys_spirv, sizeof(SplatPass));

    // The scene: splat centres in a 20-unit cube around the origin, a few per unit of depth and tile,
    // so that many splats share a tile and ties in depth are rare but possible.
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> coordinate(-10.f, 10.f);
    float* p = static_cast<float*>(positions.mapped);
    for (uint64_t i = 0; i < uint64_t(n) * 3; ++i) p[i] = coordinate(rng);

    VkCommandPool pool;
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = gpu.family;
    app::check(vkCreateCommandPool(gpu.device, &pool_info, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cmd_info.commandPool = pool;
    cmd_info.commandBufferCount = 1;
    app::check(vkAllocateCommandBuffers(gpu.device, &cmd_info, &cmd), "vkAllocateCommandBuffers");
    const bool timed = gpu.timestamp_period_ns > 0.0;
    VkQueryPool queries = VK_NULL_HANDLE;
    if (timed) {
      VkQueryPoolCreateInfo query_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      query_info.queryCount = 4;
      app::check(vkCreateQueryPool(gpu.device, &query_info, nullptr, &queries), "vkCreateQueryPool");
    }
    VkFence fence;
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    app::check(vkCreateFence(gpu.device, &fence_info, nullptr, &fence), "vkCreateFence");
    auto copy = [&](const app::Buffer& from, const app::Buffer& to, VkDeviceSize bytes) {
      VkBufferCopy region{0, 0, bytes};
      vkCmdCopyBuffer(cmd, from.buffer, to.buffer, 1, &region);
    };
    const uint32_t groups = (n + workgroup - 1) / workgroup;
    const uint32_t groups_x = std::min(groups, 65535u), groups_y = (groups + groups_x - 1) / groups_x;

    for (uint32_t frame = 0; frame < args.frames && status == 0; ++frame) {
      const float yaw = 0.3f * float(frame);
      const SplatPass pc{positions.address, keys.address, indices.address, count.address, n, args.width, args.height,
                         tiles_x, std::cos(yaw), std::sin(yaw), -25.f, 0.6f * float(args.width)};
      app::check(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      app::check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
      if (timed) vkCmdResetQueryPool(cmd, queries, 0, 4);
      vkCmdFillBuffer(cmd, count.buffer, 0, VK_WHOLE_SIZE, 0);
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 0);
      // 1. Cull and build the keys.
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cull.pipeline);
      vkCmdPushConstants(cmd, cull.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
      vkCmdDispatch(cmd, groups_x, groups_y, 1);
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
      // For the check: the pairs as the sort finds them (all n slots; only the first count matter).
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT);
      copy(keys, pre_keys, keys.size);
      copy(indices, pre_indices, indices.size);
      // sorter.hpp, before: keys, values and the count visible to the compute stage (the copies only
      // read them, but must finish before the sort writes: the transfer stage is in the barrier's source).
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      // 2. The sort of however many splats the GPU found visible, timed from 2 (the copies done) to 3.
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2);
      const vksort::Status recorded = sorter.record_indirect(cmd, {.keys = {keys.buffer, 0, keys.size},
                                                                   .values = {indices.buffer, 0, indices.size},
                                                                   .scratch = {scratch.buffer, 0, scratch.size}},
                                                             {count.buffer, 0, 4}, n);
      if (!recorded) {
        std::fprintf(stderr, "splat_sort_example: vksort could not record the sort: %s\n", recorded.message.c_str());
        status = 1;
        vkEndCommandBuffer(cmd);
        break;
      }
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 3);
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT);
      copy(keys, post_keys, keys.size);
      copy(indices, post_indices, indices.size);
      copy(count, count_read, 4);
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_READ_BIT);
      app::check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
      VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &cmd;
      app::check(vkResetFences(gpu.device, 1, &fence), "vkResetFences");
      app::check(vkQueueSubmit(gpu.queue, 1, &submit, fence), "vkQueueSubmit");
      app::check(vkWaitForFences(gpu.device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");

      const uint32_t visible_now = *static_cast<const uint32_t*>(count_read.mapped);
      std::string wrong = visible_now > n ? "the count exceeds the splats"
                                          : check_frame(static_cast<const uint64_t*>(pre_keys.mapped),
                                                        static_cast<const uint32_t*>(pre_indices.mapped),
                                                        static_cast<const uint64_t*>(post_keys.mapped),
                                                        static_cast<const uint32_t*>(post_indices.mapped), visible_now, n);
      double t_cull = -1, t_sort = -1;
      if (timed) {
        uint64_t t[4];
        app::check(vkGetQueryPoolResults(gpu.device, queries, 0, 4, sizeof t, t, sizeof t[0],
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                   "vkGetQueryPoolResults");
        t_cull = double(t[1] - t[0]) * gpu.timestamp_period_ns * 1e-6;
        t_sort = double(t[3] - t[2]) * gpu.timestamp_period_ns * 1e-6;
      }
      std::printf("frame %u: %u visible, cull %.2f ms, sort %.2f ms: %s\n", frame, visible_now, t_cull, t_sort,
                  wrong.empty() ? "sorted right" : wrong.c_str());
      if (!wrong.empty()) status = 1;
      cull_ms.push_back(t_cull);
      sort_ms.push_back(t_sort);
      frame_ms.push_back(t_cull + t_sort);
      visible.push_back(visible_now);
    }

    vkDestroyFence(gpu.device, fence, nullptr);
    if (queries) vkDestroyQueryPool(gpu.device, queries, nullptr);
    vkDestroyCommandPool(gpu.device, pool, nullptr);
    app::destroy_pipeline(gpu, cull);
    for (app::Buffer* b : {&positions, &keys, &indices, &count, &scratch, &pre_keys, &pre_indices, &post_keys, &post_indices,
                           &count_read})
      app::destroy_buffer(gpu, *b);
  }
  app::destroy_gpu(gpu);
  if (app::validation_messages() > 0) {
    std::fprintf(stderr, "splat_sort_example: %u validation message(s)\n", app::validation_messages());
    status = 1;
  }
  if (status == 0 && !cull_ms.empty()) {
    std::printf("median of %zu frames: cull %.2f ms, sort %.2f ms, cull + sort %.2f ms, %.0f visible\n", frame_ms.size(),
                median(cull_ms), median(sort_ms), median(frame_ms), median(visible));
    if (!args.json.empty()) {
      std::ofstream out(args.json);
      out << "{\"device\": \"" << device_name << "\", \"splats\": " << args.splats << ", \"frames\": " << frame_ms.size()
          << ", \"width\": " << args.width << ", \"height\": " << args.height << ", \"visible_median\": " << median(visible)
          << ", \"cull_ms_median\": " << median(cull_ms) << ", \"sort_ms_median\": " << median(sort_ms)
          << ", \"frame_ms_median\": " << median(frame_ms) << "}\n";
      if (!out) {
        std::fprintf(stderr, "splat_sort_example: cannot write %s\n", args.json.c_str());
        status = 1;
      }
    }
  }
  std::printf("%s\n", status == 0 ? "OK" : "FAILED");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr, "usage: splat_sort_example [--splats 1..2^30-1] [--frames F] [--width W] [--height H] [--validate] "
                         "[--device NAME] [--json FILE]\n");
    return 2;
  }
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "splat_sort_example: %s\n", e.what());
    return 1;
  }
}
