// SPDX-License-Identifier: MIT
#include "sort/segment_tiles.hpp"

#include <algorithm>
#include <bit>

#include "sort/key_spec.hpp"
#include "sort/tile_shape.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::SegmentTilesPush;
static_assert(sizeof(SegmentTilesPush) == 56, "push constants must match the GLSL std430 layout");

namespace {
constexpr uint32_t fixed_shared = 64;  // what the compiler adds
constexpr uint32_t largest_tile = 2048;
// Invocations per tile: 16 keys each. lavapipe runs a workgroup's invocations one subgroup at a time
// and switches between them at every barrier (the network has one per step), so fewer, busier
// invocations are faster there: 2^20 keys in segments of 16..1024, 4 keys each took 1530 ms, 16 886 ms,
// 64 594 ms (single runs, noisy; pairs baseline 1320, 1270, 700 ms in the same runs). 16 keeps
// workgroups of 64 invocations for a 1024-key tile, which real GPUs need to stay busy.
constexpr uint32_t keys_per_invocation = 16;
// Segments of at most serial_keys(device) keys are sorted one per invocation (segment_serial.comp), in
// workgroups of serial_workgroup invocations. On a CPU device (lavapipe) an invocation's private arrays
// are ordinary memory and the tile kernel's barriers are the cost, so insertion sort pays up to 128 keys
// (2^20 keys on lavapipe, old tile kernel vs new: segments of 1..8 keys 270 -> 20 ms, 16..128 keys
// 115 -> 75 ms; limits 16, 32 and 64 were slower at 16..128: bench/results/lavapipe-llvm15-2core_segmented).
// 128 keys take ~8.5k loop iterations, far below gallivm's 65535 per invocation. On a GPU the arrays
// must stay in registers and a lane's quadratic work holds up its whole subgroup: 16 keys, unmeasured.
uint32_t serial_keys(const DeviceInfo& device) { return device.type == "cpu" ? 128 : 16; }
constexpr uint32_t serial_workgroup = 64;
}  // namespace

SegmentTiles::SegmentTiles(gpu::Context& ctx, const SortOptions& options) : ctx_(ctx), options_(options) {
  // Shared memory per key: the encoded key and its position in the segment.
  const TileShape shape =
      choose_tile_shape(ctx.info, Tuning{}, key_bytes(options.key) + 4, fixed_shared, 256, largest_tile, "segment tiles");
  if (shape.tile() < min_tile)
    throw Error(Status::Code::unsupported, "segmented sort: the device's shared memory holds only " + std::to_string(shape.tile()) +
                " keys per workgroup; the small-segment kernel needs " + std::to_string(min_tile));
  max_tile_ = shape.tile();
  max_workgroup_ = shape.workgroup_size;
  serial_keys_ = std::min(serial_keys(ctx.info), max_tile_);
}

const gpu::Kernel& SegmentTiles::kernel_for(uint32_t tile) {
  std::optional<gpu::Kernel>& k = kernels_[std::countr_zero(tile)];
  if (!k) {
    const uint32_t wg = std::min(max_workgroup_, tile / keys_per_invocation);
    k.emplace(ctx_, keyed_shader("segmented_segment_tiles", options_.key), wg,
              std::initializer_list<gpu::SpecValue>{{SPEC_KEY_KIND, key_kind(options_.key)},
                                                    {SPEC_DESCENDING, options_.order == Order::descending},
                                                    {SPEC_ITEMS_PER_THREAD, tile / wg}},
              uint32_t(sizeof(SegmentTilesPush)));
  }
  return *k;
}

const gpu::Kernel& SegmentTiles::serial_kernel() {
  if (!serial_) {
    const uint32_t wg = std::min(max_workgroup_, serial_workgroup);
    serial_.emplace(ctx_, keyed_shader("segmented_segment_serial", options_.key), wg,
                    std::initializer_list<gpu::SpecValue>{{SPEC_KEY_KIND, key_kind(options_.key)},
                                                          {SPEC_DESCENDING, options_.order == Order::descending},
                                                          {SPEC_ITEMS_PER_THREAD, serial_keys_}},
                    uint32_t(sizeof(SegmentTilesPush)));
  }
  return *serial_;
}

void SegmentTiles::record(gpu::Recorder& rec, VkDeviceAddress keys, VkDeviceAddress index, VkDeviceAddress offsets,
                          VkDeviceAddress count, uint32_t n, uint32_t segments, uint32_t largest) {
  const uint32_t tile = std::max(min_tile, std::bit_ceil(std::max(largest, 1u)));
  if (tile > max_tile_)
    throw Error("segmented sort: segments of " + std::to_string(largest) + " keys exceed the small-segment kernel's " +
                std::to_string(max_tile_));
  SegmentTilesPush push{};
  push.keys = keys;
  push.index = index;
  push.offsets = offsets;
  push.count = count;
  push.n = n;
  push.segments = segments;
  // Tiny segments one per invocation, the rest one per workgroup (which skips the tiny ones): disjoint
  // ranges, so no barrier between the two dispatches. All tiny: the tile kernel is not needed.
  const uint32_t wg = std::min(max_workgroup_, serial_workgroup);
  push.largest = std::min(largest, serial_keys_);
  push.group_count = uint32_t((uint64_t(segments) + wg - 1) / wg);  // in 64 bits: 2^32 - 2 segments are allowed
  rec.dispatch(serial_kernel(), push, push.group_count);
  if (largest <= serial_keys_) return;
  push.largest = largest;
  push.group_count = segments;
  push.serial = serial_keys_;
  rec.dispatch(kernel_for(tile), push, segments);
}

}  // namespace vksort::algo
