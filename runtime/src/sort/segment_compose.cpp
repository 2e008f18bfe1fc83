// SPDX-License-Identifier: MIT
#include "sort/segment_compose.hpp"

#include <algorithm>

#include "sort/key_spec.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::SegmentComposePush;
static_assert(sizeof(SegmentComposePush) == 48, "push constants must match the GLSL std430 layout");

namespace {
// Positions per invocation: one segment search serves them all while the segments are long enough.
constexpr uint32_t items_per_invocation = 16;
// A CPU device (lavapipe) runs an invocation's positions best one after another (its accesses share
// cache lines, its segment rarely changes): 2^20 keys in segments of 16..1024, the compose kernel took
// 22-24 ms against 29-32 ms with positions a workgroup apart (three runs each, in turn). GPUs want a
// subgroup's accesses side by side.
bool consecutive_positions(const DeviceInfo& device) { return device.type == "cpu"; }
}  // namespace

SegmentCompose::SegmentCompose(gpu::Context& ctx, const SortOptions& options) {
  if (key_bytes(options.key) != 4)
    throw Error("internal: composed (segment, key) keys hold 32-bit keys only, not " + std::string(to_string(options.key)));
  // Memory-bound, no shared memory: as RecordGather, 256 invocations or the device's limit.
  workgroup_ = std::min<uint32_t>(256, ctx.info.max_workgroup_invocations);
  const std::initializer_list<gpu::SpecValue> spec{{SPEC_KEY_KIND, key_kind(options.key)},
                                                   {SPEC_DESCENDING, options.order == Order::descending},
                                                   {SPEC_ITEMS_PER_THREAD, items_per_invocation},
                                                   {SPEC_CONSECUTIVE, consecutive_positions(ctx.info)}};
  compose_ = gpu::Kernel(ctx, "segmented_segment_compose", workgroup_, spec, sizeof(SegmentComposePush));
  decompose_ = gpu::Kernel(ctx, "segmented_segment_decompose", workgroup_, spec, sizeof(SegmentComposePush));
}

void SegmentCompose::dispatch(gpu::Recorder& rec, const gpu::Kernel& kernel, VkDeviceAddress keys,
                              VkDeviceAddress composed, VkDeviceAddress offsets, VkDeviceAddress count, uint32_t n,
                              uint32_t segments) const {
  SegmentComposePush push{};
  push.keys = keys;
  push.composed = composed;
  push.offsets = offsets;
  push.count = count;
  push.n = n;
  push.segments = segments;
  const uint64_t per_group = uint64_t(workgroup_) * items_per_invocation;
  const uint64_t groups = (uint64_t(n) + per_group - 1) / per_group;
  push.group_count = uint32_t(groups);
  rec.dispatch(kernel, push, groups);
}

void SegmentCompose::record_compose(gpu::Recorder& rec, VkDeviceAddress keys, VkDeviceAddress composed,
                                    VkDeviceAddress offsets, VkDeviceAddress count, uint32_t n, uint32_t segments) const {
  dispatch(rec, compose_, keys, composed, offsets, count, n, segments);
}

void SegmentCompose::record_decompose(gpu::Recorder& rec, VkDeviceAddress composed, VkDeviceAddress keys,
                                      VkDeviceAddress count, uint32_t n) const {
  dispatch(rec, decompose_, keys, composed, 0, count, n, 1);
}

}  // namespace vksort::algo
