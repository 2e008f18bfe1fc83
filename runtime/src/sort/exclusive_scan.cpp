// SPDX-License-Identifier: MIT
#include "sort/exclusive_scan.hpp"

#include "sort/key_spec.hpp"
#include "sort/subgroup_scan.hpp"
#include "sort/tile_shape.hpp"

namespace vksort::algo {

using shader::ScanPush;
static_assert(sizeof(ScanPush) == 32, "push constants must match the GLSL std430 layout");

ExclusiveScan::ExclusiveScan(gpu::Context& ctx) : ctx_(&ctx) {
  // 4 bytes per word of the chunk, plus the scan over the invocations. The user's Tuning is for the
  // sort's blocks; the scan sizes itself from the device alone. CPU drivers run a workgroup's lanes on
  // one thread, where few invocations with many words each are faster (see radix_sort.cpp).
  const uint32_t preferred = ctx.info.type == "cpu" ? 16 : 256;
  TileShape s = choose_tile_shape(ctx.info, Tuning{}, 4, 8 * 256 + 64, preferred, 2048, "prefix scan");
  if (s.items_per_thread < 4) s = {s.tile() / 4, 4};  // the kernels move 4 words at a time
  workgroup_size_ = s.workgroup_size;
  items_ = s.items_per_thread;
  const std::initializer_list<gpu::SpecValue> spec = {{SPEC_ITEMS_PER_THREAD, items_}};
  reduce_ = gpu::Kernel(ctx, "scan_reduce" + scan_variant(ctx.info), workgroup_size_, spec, sizeof(ScanPush));
  exclusive_ = gpu::Kernel(ctx, "scan_exclusive" + scan_variant(ctx.info), workgroup_size_, spec, sizeof(ScanPush));
}

ExclusiveScan::Plan ExclusiveScan::plan(uint32_t count) const {
  Plan p;
  p.sizes.push_back(count);
  p.offsets.push_back(0);
  while (p.sizes.back() > chunk()) {
    const uint32_t next = (p.sizes.back() + chunk() - 1) / chunk();
    p.groups.push_back(next);
    p.offsets.push_back(p.sums_bytes);
    p.sums_bytes += (uint64_t(next) * 4 + 15) / 16 * 16;
    p.sizes.push_back(next);
  }
  p.groups.push_back(1);
  return p;
}

void ExclusiveScan::record(gpu::Recorder& rec, const Plan& p, VkDeviceAddress data, VkDeviceAddress sums,
                           const Indirect* indirect) const {
  const size_t levels = p.sizes.size();
  auto level_address = [&](size_t l) { return l == 0 ? data : sums + p.offsets[l]; };
  auto dispatch = [&](const gpu::Kernel& k, const ScanPush& push, size_t slot) {
    if (indirect) rec.dispatch_indirect(k, push, indirect->buffer, indirect->offset + slot * indirect->stride);
    else rec.dispatch(k, push, p.groups[slot]);
    rec.compute_barrier();
  };
  for (size_t l = 0; l + 1 < levels; ++l) {
    ScanPush push{};
    push.data = level_address(l);
    push.sums = level_address(l + 1);
    push.count = p.sizes[l];
    push.group_count = uint32_t(p.groups[l]);
    dispatch(reduce_, push, l);
  }
  for (size_t l = levels; l-- > 0;) {
    ScanPush push{};
    push.data = level_address(l);
    push.sums = l + 1 < levels ? level_address(l + 1) : 0;
    push.count = p.sizes[l];
    push.add_sums = l + 1 < levels;
    push.group_count = uint32_t(p.groups[l]);
    dispatch(exclusive_, push, l);
  }
}

}  // namespace vksort::algo
