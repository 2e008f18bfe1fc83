// SPDX-License-Identifier: MIT
#include "sort/record_gather.hpp"

#include <algorithm>
#include <string>

#include "../../shaders/common/interface.h"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::RecordsPush;
static_assert(sizeof(RecordsPush) == 48, "push constants must match the GLSL std430 layout");

namespace {
VkDeviceSize align16(VkDeviceSize v) { return (v + 15) / 16 * 16; }
constexpr uint32_t chunk_words[3] = {1, 2, 4};
}  // namespace

RecordGather::RecordGather(gpu::Context& ctx, uint32_t record_bytes) : record_bytes_(record_bytes) {
  if (record_bytes < 4 || record_bytes > max_record_bytes || record_bytes % 4)
    throw Error("record sorting: SortOptions::value_bytes must be a multiple of 4 from 4 to " +
                std::to_string(max_record_bytes) + " (got " + std::to_string(record_bytes) + ")");
  // Memory-bound kernels with no shared memory: any width works; 256 (or the device's limit) keeps
  // the workgroup count low for large n.
  workgroup_ = std::min<uint32_t>(256, ctx.info.max_workgroup_invocations);
  index_fill_ = gpu::Kernel(ctx, "records_index_fill", workgroup_, {}, sizeof(RecordsPush));
  for (int w = 0; w < 3; ++w)
    if (record_bytes % (4 * chunk_words[w]) == 0)
      gather_[w] = gpu::Kernel(ctx, "records_gather_w" + std::to_string(chunk_words[w]), workgroup_, {},
                               sizeof(RecordsPush));
}

RecordGather::Layout RecordGather::layout(VkDeviceSize inner_bytes, uint64_t n) const {
  Layout l;
  l.index = align16(inner_bytes);
  l.copy = align16(l.index + n * 4);
  l.bytes = l.copy + n * record_bytes_;
  return l;
}

const gpu::Kernel& RecordGather::kernel_for(VkDeviceAddress a, VkDeviceAddress b, uint32_t* words) const {
  // Every record starts at a multiple of record_bytes from its buffer's start, so a chunk width that
  // divides record_bytes and both base addresses keeps every chunk access aligned.
  for (int w = 2; w > 0; --w) {
    const uint32_t bytes = 4 * chunk_words[w];
    if (record_bytes_ % bytes == 0 && a % bytes == 0 && b % bytes == 0) {
      *words = chunk_words[w];
      return gather_[w];
    }
  }
  *words = 1;
  return gather_[0];
}

void RecordGather::dispatch_gather(gpu::Recorder& rec, const Target& t, VkDeviceAddress src, VkDeviceAddress dst,
                                   VkDeviceAddress index) const {
  uint32_t words = 1;
  const gpu::Kernel& kernel = kernel_for(src, dst, &words);
  RecordsPush push{};
  push.src = src;
  push.dst = dst;
  push.index = index;
  push.count = t.count;
  push.n = t.n;
  push.record_bytes = record_bytes_;
  push.record_chunks = record_bytes_ / (4 * words);
  const uint64_t groups = (uint64_t(t.n) + workgroup_ - 1) / workgroup_;
  push.group_count = uint32_t(groups);
  rec.dispatch(kernel, push, groups);
}

void RecordGather::add_facts(std::vector<std::pair<std::string, double>>& facts, uint32_t n) const {
  if (n < 2) return;  // the Sorter records nothing for fewer than 2 records
  for (auto& [name, value] : facts) {
    if (name == "dispatches") value += dispatches;
    else if (name == "global_barriers") value += global_barriers;
    else if (name == "bytes_per_key") value += bytes_per_record();
  }
}

// record_stage and record_gather record the `dispatches` and `global_barriers` of record_gather.hpp
// (2 and 1, 1 and 1): a change to either changes those.
void RecordGather::record_stage(gpu::Recorder& rec, const Target& t) const {
  RecordsPush push{};
  push.index = t.index;
  push.count = t.count;
  push.n = t.n;
  push.record_bytes = record_bytes_;
  const uint64_t groups = (uint64_t(t.n) + workgroup_ - 1) / workgroup_;
  push.group_count = uint32_t(groups);
  rec.dispatch(index_fill_, push, groups);
  // The copy is the gather with the identity index; it touches neither the keys nor the index, so it
  // needs no barrier against index_fill.
  record_copy(rec, t);
  rec.compute_barrier();
}

void RecordGather::record_copy(gpu::Recorder& rec, const Target& t) const {
  dispatch_gather(rec, t, t.records, t.copy, 0);
}

void RecordGather::record_gather(gpu::Recorder& rec, const Target& t) const {
  rec.compute_barrier();
  dispatch_gather(rec, t, t.copy, t.records, t.index);
}

}  // namespace vksort::algo
