// SPDX-License-Identifier: MIT
#include "sort/widen_index.hpp"

#include <algorithm>

#include "../../shaders/common/interface.h"

namespace vksort::algo {

using shader::CopyPush;

WidenIndex::WidenIndex(gpu::Context& ctx) {
  workgroup_ = std::min<uint32_t>(256, ctx.info.max_workgroup_invocations);
  kernel_ = gpu::Kernel(ctx, "records_widen_index", workgroup_, {}, sizeof(CopyPush));
}

void WidenIndex::record(gpu::Recorder& rec, VkDeviceAddress narrow, VkDeviceAddress wide, uint32_t n) const {
  CopyPush push{};
  push.src = narrow;
  push.dst = wide;
  push.words = n;
  const uint64_t groups = (uint64_t(n) + workgroup_ - 1) / workgroup_;
  push.group_count = uint32_t(groups);
  rec.dispatch(kernel_, push, groups);
}

}  // namespace vksort::algo
