// SPDX-License-Identifier: MIT
#include "splat_frames.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <vksort/vksort.hpp>

#include "splat_pass.h"

namespace splat {

namespace {

const uint32_t splat_keys_spirv[] =
#include "splat_keys.spv.h"
    ;
constexpr uint32_t workgroup = 256;  // local_size_x of the culling pass
constexpr uint32_t timestamps = 4;   // cull start, cull end, sort start, sort end

// "" when `keys`/`indices` (count pairs) are the stable sort of `pre_*` by key, else what differs.
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

}  // namespace

std::string scene_problem(const Scene& scene) {
  if (scene.splats < 1 || scene.splats >= (1u << 30))
    return "splats " + std::to_string(scene.splats) + ": from 1 to 2^30 - 1 (sorted with 32-bit positions)";
  if (scene.width < 1 || scene.width > 65536) return "width " + std::to_string(scene.width) + ": from 1 to 65536 pixels";
  if (scene.height < 1 || scene.height > 65536) return "height " + std::to_string(scene.height) + ": from 1 to 65536 pixels";
  return "";
}

struct FrameSorter::State {
  const app::Gpu& gpu;
  Scene scene;
  uint32_t tiles_x = 0, tiles = 0, end_bit = 0;
  VkPhysicalDeviceFeatures2 enabled;  // what vkCreateDevice enabled, as vksort asks (read while it borrows)
  vksort::Device sort_device;
  vksort::Sorter sorter;
  app::Buffer positions, keys, indices, count, scratch;
  // Host copies of the pairs before and after the sort, and of the count, for the check.
  app::Buffer pre_keys, pre_indices, post_keys, post_indices, count_read;
  app::Pipeline cull;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;

  static uint32_t tile_bits(uint32_t tiles) { return std::max(1u, uint32_t(std::bit_width(tiles - 1))); }

  State(const app::Gpu& g, const Scene& sc, uint32_t tx, uint32_t t)
      : gpu(g), scene(sc), tiles_x(tx), tiles(t), end_bit(32 + tile_bits(t)),
        enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, const_cast<VkPhysicalDeviceVulkan12Features*>(&g.enabled12)},
        sort_device(vksort::BorrowedVulkan{.instance = g.instance, .physical_device = g.physical, .device = g.device,
                                           .queue = g.queue, .queue_family = g.family,
                                           .get_instance_proc_addr = vkGetInstanceProcAddr, .enabled_features = &enabled,
                                           .pipeline_cache = g.pipeline_cache}),
        // Radix sort is the algorithm with a GPU-side count; the bit range skips the tile word's unused bits.
        sorter(sort_device, {.key = vksort::Key::u64, .algorithm = vksort::Algorithm::radix, .value_bytes = 4,
                             .begin_bit = 0, .end_bit = end_bit}) {}

  void copy(const app::Buffer& from, const app::Buffer& to, VkDeviceSize bytes) {
    VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, from.buffer, to.buffer, 1, &region);
  }
};

FrameSorter::FrameSorter(const app::Gpu& gpu, const Scene& scene) {
  if (const std::string problem = scene_problem(scene); !problem.empty()) throw std::invalid_argument(problem);
  const uint32_t tiles_x = (scene.width + TILE_PIXELS - 1) / TILE_PIXELS, tiles_y = (scene.height + TILE_PIXELS - 1) / TILE_PIXELS;
  s_ = std::make_unique<State>(gpu, scene, tiles_x, tiles_x * tiles_y);
  State& s = *s_;
  const uint32_t n = scene.splats;
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  const VkBufferUsageFlags copied = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  s.positions = app::create_buffer(gpu, VkDeviceSize(n) * 12, storage, true);
  s.keys = app::create_buffer(gpu, VkDeviceSize(n) * 8, copied, false);
  s.indices = app::create_buffer(gpu, VkDeviceSize(n) * 4, copied, false);
  s.count = app::create_buffer(gpu, 8, copied, false);
  s.scratch = app::create_buffer(gpu, s.sorter.scratch_bytes_indirect(n),
                                 storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  s.pre_keys = app::create_buffer(gpu, VkDeviceSize(n) * 8, copied, true);
  s.pre_indices = app::create_buffer(gpu, VkDeviceSize(n) * 4, copied, true);
  s.post_keys = app::create_buffer(gpu, VkDeviceSize(n) * 8, copied, true);
  s.post_indices = app::create_buffer(gpu, VkDeviceSize(n) * 4, copied, true);
  s.count_read = app::create_buffer(gpu, 8, copied, true);
  s.cull = app::create_pipeline(gpu, splat_keys_spirv, sizeof(SplatPass));

  // The scene: splat centres in a 20-unit cube around the origin, a few per unit of depth and tile,
  // so that many splats share a tile and ties in depth are rare but possible.
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> coordinate(-10.f, 10.f);
  float* p = static_cast<float*>(s.positions.mapped);
  for (uint64_t i = 0; i < uint64_t(n) * 3; ++i) p[i] = coordinate(rng);

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = gpu.family;
  app::check(vkCreateCommandPool(gpu.device, &pool_info, nullptr, &s.pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cmd_info.commandPool = s.pool;
  cmd_info.commandBufferCount = 1;
  app::check(vkAllocateCommandBuffers(gpu.device, &cmd_info, &s.cmd), "vkAllocateCommandBuffers");
  if (gpu.timestamp_period_ns > 0.0) {
    VkQueryPoolCreateInfo query_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = timestamps;
    app::check(vkCreateQueryPool(gpu.device, &query_info, nullptr, &s.queries), "vkCreateQueryPool");
  }
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  app::check(vkCreateFence(gpu.device, &fence_info, nullptr, &s.fence), "vkCreateFence");
}

FrameSorter::~FrameSorter() {
  State& s = *s_;
  const VkDevice device = s.gpu.device;
  vkDestroyFence(device, s.fence, nullptr);
  if (s.queries) vkDestroyQueryPool(device, s.queries, nullptr);
  vkDestroyCommandPool(device, s.pool, nullptr);
  app::destroy_pipeline(s.gpu, s.cull);
  for (app::Buffer* b : {&s.positions, &s.keys, &s.indices, &s.count, &s.scratch, &s.pre_keys, &s.pre_indices, &s.post_keys,
                         &s.post_indices, &s.count_read})
    app::destroy_buffer(s.gpu, *b);
}

uint32_t FrameSorter::tiles() const { return s_->tiles; }
uint32_t FrameSorter::end_bit() const { return s_->end_bit; }

Frame FrameSorter::run(uint32_t index, bool check) {
  State& s = *s_;
  const app::Gpu& gpu = s.gpu;
  const VkCommandBuffer cmd = s.cmd;
  const uint32_t n = s.scene.splats;
  const uint32_t groups = (n + workgroup - 1) / workgroup;
  const uint32_t groups_x = std::min(groups, 65535u), groups_y = (groups + groups_x - 1) / groups_x;
  const float yaw = 0.3f * float(index);
  const SplatPass pc{s.positions.address, s.keys.address, s.indices.address, s.count.address, n, s.scene.width,
                     s.scene.height, s.tiles_x, std::cos(yaw), std::sin(yaw), -25.f, 0.6f * float(s.scene.width)};
  const bool timed = s.queries != VK_NULL_HANDLE;

  app::check(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  app::check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  if (timed) vkCmdResetQueryPool(cmd, s.queries, 0, timestamps);
  vkCmdFillBuffer(cmd, s.count.buffer, 0, VK_WHOLE_SIZE, 0);
  app::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.queries, 0);
  // 1. Cull and build the keys.
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.cull.pipeline);
  vkCmdPushConstants(cmd, s.cull.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  vkCmdDispatch(cmd, groups_x, groups_y, 1);
  if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.queries, 1);
  if (check) {
    // The pairs as the sort finds them (all n slots; only the first count matter).
    app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_TRANSFER_READ_BIT);
    s.copy(s.keys, s.pre_keys, s.keys.size);
    s.copy(s.indices, s.pre_indices, s.indices.size);
  }
  // sorter.hpp, before: keys, values and the count visible to the compute stage (the check's copies only
  // read them, but must finish before the sort writes: the transfer stage is in the barrier's source).
  app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  // 2. The sort of however many splats the GPU found visible.
  if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.queries, 2);
  const vksort::Status recorded = s.sorter.record_indirect(cmd,
                                                           {.keys = {s.keys.buffer, 0, s.keys.size},
                                                            .values = {s.indices.buffer, 0, s.indices.size},
                                                            .scratch = {s.scratch.buffer, 0, s.scratch.size}},
                                                           {s.count.buffer, 0, 4}, n);
  if (!recorded) {
    vkEndCommandBuffer(cmd);
    throw std::runtime_error("vksort could not record the sort: " + recorded.message);
  }
  if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.queries, 3);
  app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT);
  if (check) {
    s.copy(s.keys, s.post_keys, s.keys.size);
    s.copy(s.indices, s.post_indices, s.indices.size);
  }
  s.copy(s.count, s.count_read, 4);
  app::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                      VK_ACCESS_HOST_READ_BIT);
  app::check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  app::check(vkResetFences(gpu.device, 1, &s.fence), "vkResetFences");
  app::check(vkQueueSubmit(gpu.queue, 1, &submit, s.fence), "vkQueueSubmit");
  app::check(vkWaitForFences(gpu.device, 1, &s.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");

  Frame f;
  f.visible = *static_cast<const uint32_t*>(s.count_read.mapped);
  f.checked = check;
  if (f.visible > n) f.wrong = "the count exceeds the splats";
  else if (check)
    f.wrong = check_frame(static_cast<const uint64_t*>(s.pre_keys.mapped), static_cast<const uint32_t*>(s.pre_indices.mapped),
                          static_cast<const uint64_t*>(s.post_keys.mapped), static_cast<const uint32_t*>(s.post_indices.mapped),
                          f.visible, n);
  if (timed) {
    uint64_t t[timestamps];
    app::check(vkGetQueryPoolResults(gpu.device, s.queries, 0, timestamps, sizeof t, t, sizeof t[0],
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
               "vkGetQueryPoolResults");
    f.cull_ms = double(t[1] - t[0]) * gpu.timestamp_period_ns * 1e-6;
    f.sort_ms = double(t[3] - t[2]) * gpu.timestamp_period_ns * 1e-6;
  }
  return f;
}

}  // namespace splat
