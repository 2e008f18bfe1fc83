// SPDX-License-Identifier: MIT
#include "buckets/bucket_builder.hpp"

#include <algorithm>
#include <bit>

#include "vksort/error.hpp"

namespace vksort::algo {

using shader::BucketPush;
static_assert(sizeof(BucketPush) == 120, "push constants must match the GLSL std430 layout");
static_assert(BucketLists::report_bytes == BUCKET_CONTROL_WORDS * 4, "the report is the control block");

namespace {
uint32_t tiles(uint32_t count, uint32_t tile) { return uint32_t((uint64_t(count) + tile - 1) / tile); }
constexpr uint32_t preferred_workgroup = 256;
constexpr uint32_t default_items = 4;

// The sort-based build sorts (bucket id, element index) pairs stably with the radix sort. It sorts all 32
// bits, not just bit_width(M - 1): an out-of-range id must sort after every valid one, not among them by
// its low bits; the radix sort skips the passes whose digit is the same in every id anyway.
SortOptions pair_sort_options() { return SortOptions{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 4}; }
}  // namespace

BucketBuilder::BucketBuilder(gpu::Context& ctx, const BucketOptions& o) : ctx_(ctx), options_(o) {
  const DeviceInfo& dev = ctx.info;
  const std::string what = "bucket lists";
  if (o.tuning.workgroup_size) {
    if (!std::has_single_bit(o.tuning.workgroup_size) || o.tuning.workgroup_size > dev.max_workgroup_invocations)
      throw Error(what + ": workgroup size " + std::to_string(o.tuning.workgroup_size) +
                  " must be a power of two no larger than maxComputeWorkGroupInvocations (" +
                  std::to_string(dev.max_workgroup_invocations) + ")");
    workgroup_size_ = o.tuning.workgroup_size;
  } else {
    workgroup_size_ = std::bit_floor(std::min(preferred_workgroup, dev.max_workgroup_invocations));
  }
  if (o.tuning.items_per_thread && !std::has_single_bit(o.tuning.items_per_thread))
    throw Error(what + ": items per thread " + std::to_string(o.tuning.items_per_thread) + " must be a power of two");
  items_ = o.tuning.items_per_thread ? o.tuning.items_per_thread : default_items;
  if (items_ > 32) throw Error(what + ": items per thread must be at most 32");  // flags are one word
  // Shared memory: at most four words per invocation (the prefix sum's double buffer, and the OR/AND
  // reduction's two halves; see buckets.glsl).
  if (uint64_t(workgroup_size_) * 16 + 64 > dev.max_shared_memory)
    throw Error(Status::Code::unsupported, what + ": a workgroup of " + std::to_string(workgroup_size_) + " needs more shared memory than \"" +
                dev.name + "\" offers (" + std::to_string(dev.max_shared_memory) + " bytes)");

  // The gate builds grids for indirect dispatches with these limits (see scan_blocks.comp); the
  // largest dispatch (a list plus as many admitted elements, or elements plus heads) must fit.
  cpu_device_ = dev.type == "cpu";
  max_x_ = std::min<uint32_t>(dev.max_workgroup_count[0], 65535);
  max_y_ = std::min<uint32_t>(dev.max_workgroup_count[1], 65535);
  const uint64_t worst = uint64_t(tiles(o.capacity, tile())) * 2 + tiles(o.buckets, tile());
  const uint64_t layer = uint64_t(max_x_) * max_y_;
  if ((worst + layer - 1) / layer > dev.max_workgroup_count[2])
    throw Error(Status::Code::unsupported, what + ": " + std::to_string(o.capacity) + " elements need more workgroups than \"" + dev.name +
                "\" can dispatch");

  // The subgroup variants' workgroup sums run in (subgroup, lane) order; they number the invocations
  // in that order themselves (buckets.glsl), so any subgroup size and layout is fine, full or not.
  subgroups_ = o.subgroups && dev.subgroup_arithmetic && dev.subgroup_size;
  const std::string sums = subgroups_ ? "_sg" : "";
  const std::initializer_list<gpu::SpecValue> spec = {{SPEC_ITEMS_PER_THREAD, items_}};
  const uint32_t push = sizeof(BucketPush);
  init_ = gpu::Kernel(ctx, "buckets_init", workgroup_size_, spec, push);
  link_ = gpu::Kernel(ctx, "buckets_link" + sums, workgroup_size_, spec, push);
  scan_ = gpu::Kernel(ctx, "buckets_scan_blocks" + sums, workgroup_size_, spec, push);
  compact_ = gpu::Kernel(ctx, "buckets_compact" + sums, workgroup_size_, spec, push);
  scatter_ = gpu::Kernel(ctx, "buckets_scatter", workgroup_size_, spec, push);
  split_count_ = gpu::Kernel(ctx, "buckets_split_count" + sums, workgroup_size_, spec, push);
  link_runs_ = gpu::Kernel(ctx, "buckets_link_runs", workgroup_size_, spec, push);
  gather_moved_ = gpu::Kernel(ctx, "buckets_gather_moved" + sums, workgroup_size_, spec, push);
  unlink_ = gpu::Kernel(ctx, "buckets_unlink", workgroup_size_, spec, push);
  leftover_bits_ = gpu::Kernel(ctx, "buckets_leftover_bits" + sums, workgroup_size_, spec, push);
  if (o.mode == BucketMode::sort || o.deterministic) {
    const SortOptions so = pair_sort_options();
    sort_.emplace(make_sort(ctx, so, resolve_algorithm(so)));
  }
}

uint32_t BucketBuilder::block_words(uint32_t n) const { return 2 * std::max(1u, tiles(n, tile())); }

VkDeviceSize BucketBuilder::sort_scratch_bytes(uint32_t n) const {
  if (!sort_) return 0;
  return std::visit([&](const auto& s) { return VkDeviceSize(s.scratch_bytes(n)); }, *sort_);
}

VkDeviceSize BucketBuilder::args_offset(uint32_t slot) const {
  return VkDeviceSize(slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_ARGS) * 4;
}

BucketPush BucketBuilder::base_push(const BucketTarget& t) const {
  BucketPush p{};
  p.ids = t.ids;
  p.bucket = t.bucket.address;
  p.head = t.head.address;
  p.next = t.next.address;
  p.blocks = t.blocks.address;
  p.control = t.control.address;
  p.prev = t.prev.address;
  p.n = t.n;
  p.m = options_.buckets;
  p.max_x = max_x_;
  p.max_y = max_y_;
  return p;
}

// Written with vkCmdUpdateBuffer; the caller's next fill or barrier publishes it.
void BucketBuilder::write_control(gpu::Recorder& rec, const BucketTarget& t, uint32_t slot, uint32_t count,
                                  uint32_t next_part, bool fallback) const {
  uint32_t words[BUCKET_CONTROL_WORDS] = {};
  const gpu::Grid grid = gpu::grid_for(ctx_, tiles(count, tile()));
  words[slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_COUNT] = count;
  words[slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_ARGS + 0] = grid.x;
  words[slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_ARGS + 1] = grid.y;
  words[slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_ARGS + 2] = grid.z;
  // The slot's admitted range is empty and ends where admission goes on (ranges stay contiguous).
  words[slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_ADMIT_BEGIN] = next_part;
  words[slot * BUCKET_SLOT_WORDS + BUCKET_SLOT_ADMIT_END] = next_part;
  words[BUCKET_CONTROL_NEXT_PART] = next_part;
  if (fallback) {
    words[BUCKET_CONTROL_LEFTOVER] = count;
    words[BUCKET_CONTROL_FALLBACK_SLOT] = slot;
    words[BUCKET_CONTROL_FALLBACK_ARGS + 0] = grid.x;
    words[BUCKET_CONTROL_FALLBACK_ARGS + 1] = grid.y;
    words[BUCKET_CONTROL_FALLBACK_ARGS + 2] = grid.z;
  }
  ctx_.vk.vkCmdUpdateBuffer(rec.command_buffer(), t.control.buffer, 0, sizeof words, words);
}

namespace {
// The previous build or resort of this object (its shaders, fills, updates and indirect reads) is
// done with the buffers before this one touches them.
void own_buffers_barrier(gpu::Context& ctx, VkCommandBuffer cmd) {
  gpu::memory_barrier(ctx, cmd,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}
void transfer_to_compute(gpu::Context& ctx, VkCommandBuffer cmd) {
  gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}
}  // namespace

uint32_t BucketBuilder::part_size(uint32_t n) const {
  // Partial update pays where each element visit costs more than an iteration's fixed cost. Measured on
  // lavapipe (a CPU device), 2^14 - 2^20 uniform elements: with 2 - 16 elements per bucket, 8 parts
  // build 1.1 - 3x faster than 1 (the more per bucket, the more it gains); with 1 per bucket it is
  // a wash or slower (more iterations for little saved). Unmeasured on GPUs, where each added
  // iteration costs dispatch latency: off there unless asked for.
  uint32_t parts = options_.parts;
  if (parts == 0) parts = cpu_device_ && uint64_t(n) >= 2 * uint64_t(options_.buckets) ? 8 : 1;
  // It needs iterations to admit the parts in (the second half of them admits everything left).
  if (parts <= 1 || options_.max_iterations < 4 || n == 0) return 0;
  return tiles(n, parts);
}

bool BucketBuilder::record_build_start(gpu::Recorder& rec, const BucketTarget& t) const {
  own_buffers_barrier(ctx_, rec.command_buffer());
  if (sort_) {
    record_sorted_build(rec, t);
    return false;
  }
  const uint32_t n = t.n, part = part_size(n);
  const uint32_t first = part ? part : n;  // elements racing from the start
  rec.phase("init");
  write_control(rec, t, 0, first, first);
  rec.fill(t.head.buffer, 0, VkDeviceSize(options_.buckets) * 4, BUCKET_NULL);  // its barrier publishes the control block
  BucketPush p = base_push(t);
  p.mode = BUCKET_INIT_SCATTER;
  p.bit = first;
  p.group_count = tiles(n, tile());
  rec.dispatch(init_, p, p.group_count);
  rec.compute_barrier();
  return true;
}

void BucketBuilder::record_build(gpu::Recorder& rec, const BucketTarget& t) const {
  if (!record_build_start(rec, t)) return;
  record_iterations(rec, t, false, 0, options_.max_iterations);
  record_fallback(rec, t, false);
}

void BucketBuilder::record_resort(gpu::Recorder& rec, const BucketTarget& t) const {
  if (!record_resort_start(rec, t)) return;
  record_iterations(rec, t, true, 0, options_.max_iterations);
  record_fallback(rec, t, true);
}

void BucketBuilder::record_iterations(gpu::Recorder& rec, const BucketTarget& t, bool resort, uint32_t begin,
                                      uint32_t end) const {
  const uint32_t K = options_.max_iterations;
  const uint32_t part = resort ? 0 : part_size(t.n);
  // With partial update every element must have joined by the last iteration's compaction: from half
  // way through the recorded iterations the gate admits everything left.
  const uint32_t admit_all_from = K / 2 > 0 ? K / 2 - 1 : 0;
  if (begin < end) rec.phase("iterations");
  for (uint32_t k = begin; k < end && k < K; ++k) {
    const uint32_t slot = slot_of(resort, k);
    BucketPush p = base_push(t);
    p.slot = slot;
    p.list_in = t.list[slot].address;
    p.list_out = t.list[slot ^ 1].address;
    p.part = part;
    p.admit_below = options_.admit_below ? options_.admit_below : part;

    p.mode = k == 0 && !resort ? BUCKET_LINK_IDENTITY : BUCKET_LINK_LIST;
    p.flags = resort ? BUCKET_FLAG_KEEP_PREV : 0u;
    rec.dispatch_indirect(link_, p, t.control.buffer, args_offset(slot));
    rec.compute_barrier();

    p.mode = BUCKET_SCAN_LINK;
    p.iterations_left = K - 1 - k;
    p.flags = k + 1 == K ? BUCKET_FLAG_LAST : (part && k >= admit_all_from ? BUCKET_FLAG_ADMIT_ALL : 0u);
    rec.dispatch(scan_, p, 1);
    rec.compute_barrier();

    p.flags = 0;
    p.mode = k + 1 == K ? BUCKET_COMPACT_KEEP : BUCKET_COMPACT_SCATTER;
    rec.dispatch_indirect(compact_, p, t.control.buffer, args_offset(slot));
    rec.compute_barrier();
  }
}

void BucketBuilder::record_fallback(gpu::Recorder& rec, const BucketTarget& t, bool resort) const {
  rec.phase("fallback");
  const VkDeviceSize args = BUCKET_CONTROL_FALLBACK_ARGS * 4;
  BucketPush p = base_push(t);
  p.list_in = t.list[0].address;
  p.list_out = t.list[1].address;
  rec.dispatch_indirect(leftover_bits_, p, t.control.buffer, args);
  rec.compute_barrier();
  p.mode = BUCKET_SCAN_BITS;
  rec.dispatch(scan_, p, 1);
  rec.compute_barrier();
  // Passes over the bits of fallback_key() (buckets.glsl): M itself stands for "no bucket", so that
  // such elements sort last; a pass whose bit no leftover key varies in is skipped on the GPU.
  const uint32_t bits = uint32_t(std::bit_width(options_.buckets));
  for (uint32_t bit = 0; bit < bits; ++bit) {
    p.bit = bit;
    rec.dispatch_indirect(split_count_, p, t.control.buffer, BUCKET_CONTROL_SPLIT_COUNT_ARGS * 4);
    rec.compute_barrier();
    p.mode = BUCKET_SCAN_SPLIT;
    rec.dispatch(scan_, p, 1);
    rec.compute_barrier();
    p.mode = BUCKET_COMPACT_SPLIT;
    rec.dispatch_indirect(compact_, p, t.control.buffer, BUCKET_CONTROL_SPLIT_MOVE_ARGS * 4);
    rec.compute_barrier();
  }
  p.mode = BUCKET_RUNS_NEXT;
  p.flags = resort ? BUCKET_FLAG_KEEP_PREV : 0u;
  rec.dispatch_indirect(link_runs_, p, t.control.buffer, args);
  rec.compute_barrier();
  p.mode = BUCKET_RUNS_HEAD;
  rec.dispatch_indirect(link_runs_, p, t.control.buffer, args);
}

void BucketBuilder::record_sorted_build(gpu::Recorder& rec, const BucketTarget& t) const {
  const uint32_t n = t.n;
  rec.phase("init");
  // The sorted pairs' values (element indices) become list slot 1, which link_runs walks as the
  // fallback's list.
  write_control(rec, t, 1, n, n, true);
  rec.fill(t.head.buffer, 0, VkDeviceSize(options_.buckets) * 4, BUCKET_NULL);
  BucketPush p = base_push(t);
  p.mode = BUCKET_INIT_SORT_PAIRS;
  p.list_in = t.list[0].address;   // keys: bucket ids
  p.list_out = t.list[1].address;  // values: element indices
  p.group_count = tiles(n, tile());
  rec.dispatch(init_, p, p.group_count);
  rec.compute_barrier();

  rec.phase("sort");
  SortTarget st;
  st.keys = t.list[0].address;
  st.values = t.list[1].address;
  st.scratch = t.sort_scratch.buffer;
  st.scratch_offset = 0;
  st.scratch_address = t.sort_scratch.address;
  st.n = n;
  // (Each list is a whole buffer: its address is the buffer's start.)
  st.keys_buffer = t.list[0].buffer;
  st.values_buffer = t.list[1].buffer;
  std::visit([&](const auto& s) { s.record(rec, st); }, *sort_);
  rec.compute_barrier();

  rec.phase("link");
  p = base_push(t);
  p.list_in = t.list[0].address;
  p.list_out = t.list[1].address;
  p.mode = BUCKET_RUNS_NEXT;
  rec.dispatch(link_runs_, p, tiles(n, tile()));
  rec.compute_barrier();
  p.mode = BUCKET_RUNS_HEAD;
  p.flags = BUCKET_FLAG_REPORT;
  rec.dispatch(link_runs_, p, tiles(n, tile()));
}

bool BucketBuilder::record_resort_start(gpu::Recorder& rec, const BucketTarget& t) const {
  if (!record_resort_gather(rec, t)) return false;
  record_resort_unlink(rec, t);
  return true;
}

bool BucketBuilder::record_resort_gather(gpu::Recorder& rec, const BucketTarget& t) const {
  own_buffers_barrier(ctx_, rec.command_buffer());
  if (options_.deterministic) {
    record_sorted_build(rec, t);
    return false;
  }
  const uint32_t n = t.n;
  rec.phase("gather");
  // MOVED (gather_moved's counter) starts at zero; slot 1's list and arguments come from the gate.
  write_control(rec, t, 0, 0, n);
  transfer_to_compute(ctx_, rec.command_buffer());
  BucketPush p = base_push(t);
  p.list_out = t.list[1].address;
  p.group_count = tiles(n, tile());
  p.flags = t.prev_valid ? 0u : BUCKET_FLAG_FIND_PREV;
  rec.dispatch(gather_moved_, p, p.group_count);
  rec.compute_barrier();
  p.mode = BUCKET_SCAN_MOVED;
  p.flags = 0;
  p.slot = 0;
  rec.dispatch(scan_, p, 1);
  rec.compute_barrier();
  return true;
}

void BucketBuilder::record_find_prev(gpu::Recorder& rec, const BucketTarget& t) const {
  rec.phase("prev");
  BucketPush p = base_push(t);
  p.mode = BUCKET_GATHER_PREV_ONLY;
  p.group_count = tiles(t.n, tile());
  rec.dispatch(gather_moved_, p, p.group_count);
  rec.compute_barrier();
}

void BucketBuilder::record_resort_unlink(gpu::Recorder& rec, const BucketTarget& t) const {
  // Everything from here on is sized by the GPU's count of moved elements: nothing when none moved.
  rec.phase("unlink");
  BucketPush p = base_push(t);
  p.slot = 1;
  p.list_in = t.list[1].address;
  p.mode = BUCKET_UNLINK_CUT;
  rec.dispatch_indirect(unlink_, p, t.control.buffer, args_offset(1));
  rec.compute_barrier();
  p.mode = BUCKET_UNLINK_PRELINK;
  rec.phase("prelink");
  rec.dispatch_indirect(unlink_, p, t.control.buffer, args_offset(1));
  rec.compute_barrier();

  rec.phase("insert");
  rec.dispatch_indirect(scatter_, p, t.control.buffer, args_offset(1));
  rec.compute_barrier();
}

}  // namespace vksort::algo
