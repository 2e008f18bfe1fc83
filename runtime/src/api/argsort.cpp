// SPDX-License-Identifier: MIT
// vksort::ArgSorter and argsort_host: the stable sorting permutation, computed on the GPU.
#include "vksort/argsort.hpp"

#include <limits>
#include <optional>

#include "api/call_checks.hpp"
#include "api/ranges.hpp"
#include "api/composed_sort.hpp"
#include "api/internals.hpp"
#include "api/status_of.hpp"
#include "gpu/memory.hpp"
#include "sort/record_gather.hpp"
#include "sort/widen_index.hpp"

namespace vksort {

namespace {
VkDeviceSize align16(VkDeviceSize v) { return (v + 15) / 16 * 16; }

// The Sorter argsort runs: the caller's options, carrying the 32-bit index as the value.
SortOptions with_index(SortOptions o) {
  if (o.value_bytes != 0)
    throw Error("argsort: SortOptions::value_bytes must be 0 (the indices are the output); got " +
                std::to_string(o.value_bytes));
  o.value_bytes = 4;
  return o;
}

uint32_t checked_index_bytes(uint32_t index_bytes) {
  if (index_bytes != 4 && index_bytes != 8)
    throw Error("argsort: index_bytes must be 4 (uint32_t) or 8 (uint64_t); got " + std::to_string(index_bytes));
  return index_bytes;
}
}  // namespace

struct ArgSorter::Impl {
  Device device;
  Sorter sorter;  // (key copy, index) pairs
  SortOptions options;
  uint32_t index_bytes;
  algo::RecordGather stage;  // index[i] = i and the key copy: the records' index_fill and copy
  std::optional<algo::WidenIndex> widen;

  Impl(Device& d, const SortOptions& o, uint32_t ib)
      : device(d), sorter(d, with_index(o)), options(sorter.options()), index_bytes(checked_index_bytes(ib)),
        stage(detail::context_of(d), key_bytes(sorter.options().key)) {
    options.value_bytes = 0;
    if (ib == 8) widen.emplace(detail::context_of(d));
  }

  // Scratch: the sort's own at offset 0, then the 32-bit index (64-bit indices only: 32-bit ones are
  // sorted in the caller's buffer itself), then the key copy that is sorted.
  struct Layout {
    VkDeviceSize sort = 0, index = 0, keys = 0, bytes = 0;
  };
  Layout layout(uint64_t n) const {
    Layout l;
    l.sort = sorter.scratch_bytes(n);
    l.index = align16(l.sort);
    l.keys = align16(l.index + (index_bytes == 8 ? n * 4 : 0));
    l.bytes = l.keys + std::max<VkDeviceSize>(n * key_bytes(options.key), 8);
    return l;
  }

  void record(gpu::Recorder& rec, const ArgsortBuffers& b, uint64_t n) {
    gpu::Context& ctx = detail::context_of(device);
    const std::string what = "argsort of " + std::to_string(n) + " " + std::string(to_string(options.key)) + " keys";
    // First: beyond it the layout's arithmetic wraps (the sort's scratch_bytes is the largest VkDeviceSize),
    // and the refusal named a range or the index width instead.
    if (n > max_sort_keys) throw Error(what + ": more than 2^31 - 1 keys are not supported");
    const Layout l = layout(n);
    const std::vector<api::RangeUse> uses = {{"keys", b.keys, api::bytes_for(n, key_bytes(options.key))},
                                             {"indices", b.indices, api::bytes_for(n, index_bytes)},
                                             {"scratch", b.scratch, l.bytes}};
    api::check_ranges(ctx, what, uses);
    if (n == 0) return;
    const BufferRef index = index_bytes == 8 ? BufferRef{b.scratch.buffer, b.scratch.offset + l.index, n * 4}
                                             : BufferRef{b.indices.buffer, b.indices.offset, n * 4};
    const BufferRef keys{b.scratch.buffer, b.scratch.offset + l.keys, n * key_bytes(options.key)};
    const algo::RecordGather::Target t{.records = gpu::buffer_address(ctx, b.keys.buffer, b.keys.offset),
                                       .index = gpu::buffer_address(ctx, index.buffer, index.offset),
                                       .copy = gpu::buffer_address(ctx, keys.buffer, keys.offset),
                                       .count = 0,
                                       .n = uint32_t(n)};
    const SortBuffers sorted{keys, index, {b.scratch.buffer, b.scratch.offset, l.sort}};
    api::check_nested(sorter, sorted, n);  // a refusal (n beyond what the sort takes) records nothing
    rec.phase("stage");
    stage.record_stage(rec, t);
    rec.phase("sort");
    api::record_nested(rec, sorter, sorted, n);
    if (widen) {
      rec.phase("widen");
      rec.compute_barrier();
      widen->record(rec, t.index, gpu::buffer_address(ctx, b.indices.buffer, b.indices.offset), uint32_t(n));
    }
  }
};

ArgSorter::ArgSorter(Device& device, const SortOptions& options, uint32_t index_bytes)
    : impl_(std::make_unique<Impl>(device, options, index_bytes)) {}
ArgSorter::~ArgSorter() = default;
ArgSorter::ArgSorter(ArgSorter&&) noexcept = default;
ArgSorter& ArgSorter::operator=(ArgSorter&&) noexcept = default;

const SortOptions& ArgSorter::options() const {
  api::check_not_moved(impl_.get(), "ArgSorter::options");
  return impl_->options;
}
uint32_t ArgSorter::index_bytes() const {
  api::check_not_moved(impl_.get(), "ArgSorter::index_bytes");
  return impl_->index_bytes;
}
VkDeviceSize ArgSorter::scratch_bytes(uint64_t n) const {
  api::check_not_moved(impl_.get(), "ArgSorter::scratch_bytes");
  if (n > max_sort_keys) return std::numeric_limits<VkDeviceSize>::max();  // the layout's arithmetic would wrap
  return impl_->layout(n).bytes;
}

Status ArgSorter::record(VkCommandBuffer cmd, const ArgsortBuffers& buffers, uint64_t n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "ArgSorter::record");
    if (cmd == VK_NULL_HANDLE) throw Error("ArgSorter::record: no command buffer");
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->record(rec, buffers, n);
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

SortStats argsort_host(Device& device, const void* keys, uint64_t n, void* indices, uint32_t index_bytes,
                       const SortOptions& options) {
  if (n > 0 && !keys) throw Error("argsort_host: keys is a null pointer (with n = " + std::to_string(n) + ")");
  if (n > 0 && !indices) throw Error("argsort_host: indices is a null pointer (with n = " + std::to_string(n) + ")");
  if (n > max_sort_keys)
    throw Error("argsort_host: " + std::to_string(n) + " keys: more than 2^31 - 1 keys are not supported");
  // Before the overlap check, which measures the indices with it: a bad width read as overlapping memory.
  checked_index_bytes(index_bytes);
  api::check_host_disjoint("argsort_host", {{"keys", keys, n * key_bytes(options.key)},
                                             {"indices", indices, n * index_bytes}});
  // Checks options and index_bytes, also for n = 0.
  auto cached = api::cached_impl<ArgSorter::Impl>(
      device, "argsort " + std::to_string(index_bytes) + " " + detail::options_key(options),
      [&](Device plain) { return std::make_shared<ArgSorter::Impl>(plain, options, index_bytes); });
  ArgSorter::Impl& sorter = *cached.impl;
  // Kept for the next call when this one completes (as sort_host's Sorters: one that threw is dropped).
  cached.completed = n == 0;
  if (n == 0) return {};
  const uint32_t kb = key_bytes(sorter.options.key);
  const std::string count = std::to_string(n) + " " + std::string(to_string(sorter.options.key));
  Buffer key_buffer(device, n * kb, count + " keys to argsort");
  Buffer index_buffer(device, n * index_bytes, count + " keys' indices");
  Buffer scratch(device, sorter.layout(n).bytes, "argsort scratch");
  key_buffer.upload({static_cast<const std::byte*>(keys), n * kb});
  SortStats stats = api::timed_submit(detail::context_of(device), "argsort of " + count + " keys", [&](gpu::Recorder& rec) {
    sorter.record(rec, {key_buffer.ref(), index_buffer.ref(), scratch.ref()}, n);
  });
  index_buffer.download({static_cast<std::byte*>(indices), n * index_bytes});
  cached.completed = true;
  return stats;
}

}  // namespace vksort
