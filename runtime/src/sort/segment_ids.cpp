// SPDX-License-Identifier: MIT
#include "sort/segment_ids.hpp"

#include <algorithm>

#include "../../shaders/common/interface.h"

namespace vksort::algo {

using shader::SegmentIdsPush;
static_assert(sizeof(SegmentIdsPush) == 48, "push constants must match the GLSL std430 layout");

SegmentIds::SegmentIds(gpu::Context& ctx) {
  // Memory-bound, no shared memory: as RecordGather, 256 invocations or the device's limit.
  workgroup_ = std::min<uint32_t>(256, ctx.info.max_workgroup_invocations);
  kernel_ = gpu::Kernel(ctx, "segmented_segment_ids", workgroup_, {}, sizeof(SegmentIdsPush));
}

void SegmentIds::record(gpu::Recorder& rec, VkDeviceAddress index, VkDeviceAddress segment, VkDeviceAddress offsets,
                        VkDeviceAddress count, uint32_t n, uint32_t segments) const {
  SegmentIdsPush push{};
  push.index = index;
  push.segment = segment;
  push.offsets = offsets;
  push.count = count;
  push.n = n;
  push.segments = segments;
  const uint64_t groups = (uint64_t(n) + workgroup_ - 1) / workgroup_;
  push.group_count = uint32_t(groups);
  rec.dispatch(kernel_, push, groups);
}

}  // namespace vksort::algo
