// SPDX-License-Identifier: MIT
// vksort::SegmentedSorter and segmented_sort_host: many independent segments sorted in one call.
#include "vksort/segmented.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>

#include "api/call_checks.hpp"
#include "api/composed_sort.hpp"
#include "api/internals.hpp"
#include "api/option_checks.hpp"
#include "api/status_of.hpp"
#include "api/ranges.hpp"
#include "gpu/memory.hpp"
#include "sort/record_gather.hpp"
#include "sort/segment_compose.hpp"
#include "sort/segment_ids.hpp"
#include "sort/segment_tiles.hpp"

namespace vksort {

namespace {
VkDeviceSize align16(VkDeviceSize v) { return (v + 15) / 16 * 16; }
constexpr uint64_t max_keys = max_sort_keys;

// The small-segment kernel compares whole keys: a bit range keeps the general path.
bool whole_keys(const SortOptions& o) {
  return o.begin_bit == 0 && (o.end_bit == 0 || o.end_bit == key_bytes(o.key) * 8);
}

// Composed (segment << 32 | key) keys hold 32-bit keys, whole, and are radix sorted.
bool composable(const SortOptions& o) {
  return key_bytes(o.key) == 4 && whole_keys(o) && (o.algorithm == Algorithm::automatic || o.algorithm == Algorithm::radix);
}

// A SegmentedPath made from an integer that names none is refused, not taken for by_size.
void check_path(const std::string& who, SegmentedPath path) {
  if (path != SegmentedPath::automatic && path != SegmentedPath::composed_keys && path != SegmentedPath::by_size)
    throw Error(who + ": unknown SegmentedPath " + std::to_string(uint32_t(path)) +
                " (automatic, composed_keys or by_size)");
}

std::string composed_refusal(const std::string& who, const SortOptions& o) {
  // end_bit 0 means the key's last bit: bits [0, 0) would read as an empty range.
  const std::string bits = o.begin_bit == 0 && o.end_bit == 0
                               ? "whole keys"
                               : "bits [" + std::to_string(o.begin_bit) + ", " + std::to_string(o.end_bit) + ")";
  return who + ": SegmentedPath::composed_keys needs 32-bit keys (u32, i32, f32), whole keys (no bit range) and "
               "radix sort (Algorithm::radix or automatic); these are " + std::string(to_string(o.key)) + " keys, " +
         bits + ", " + std::string(to_string(o.algorithm)) + " sort";
}

// The composed keys' sort: 64-bit keys, ascending (the key's order is in its encoding), on the key's
// 32 bits and the segment id's `bits`; values or records travel with them as the caller's options say.
SortOptions composed_keys(const SortOptions& o, uint32_t bits) {
  SortOptions c;
  c.key = Key::u64;
  c.algorithm = Algorithm::radix;
  c.value_bytes = o.value_bytes;
  c.tuning = o.tuning;
  c.end_bit = 32 + bits;
  return c;
}

// On a CPU device (lavapipe) a workgroup runs its invocations as coroutines that switch at every
// barrier, so the tile kernel's bitonic network (a barrier per step) costs more than a sort of
// everything by composed keys (2^20 keys in 16..1024-key segments: 193 ms against about 90 ms).
bool tile_kernel_costly(const DeviceInfo& device) { return device.type == "cpu"; }

SortOptions carrying_index(SortOptions o) {
  // Checked here, where the caller's value_bytes is replaced: the refusal came from deep inside
  // ("record sorting: ..."), naming neither SegmentedSorter nor 0 as allowed.
  api::check_value_bytes("SegmentedSorter: SortOptions::value_bytes", o.value_bytes);
  o.value_bytes = 4;
  return o;
}

// The second sort: segment ids, radix sort on their low `bits` only (stable, so every segment keeps
// the key order the first sort gave it).
SortOptions by_segment(uint32_t bits) {
  SortOptions o;
  o.key = Key::u32;
  o.algorithm = Algorithm::radix;
  o.value_bytes = 4;
  o.end_bit = bits;
  return o;
}
}  // namespace

struct SegmentedSorter::Impl {
  Device device;
  Sorter keys_sorter;  // the keys with their input position
  SortOptions options;
  algo::RecordGather key_gather;
  std::optional<algo::RecordGather> value_gather;
  algo::SegmentIds segment_ids;
  algo::SegmentTiles tiles;  // segments that fit one workgroup's shared memory
  uint32_t max_segment_keys = 0;  // the caller's promise for record(), 0: none
  // By segment id, one Sorter per bit width, made when first needed; [32] sizes scratch for all.
  std::array<std::optional<Sorter>, 33> segment_sorters;
  // Composed keys, where the options allow them: the kernels in and out, and the 64-bit keys' Sorter
  // per segment-id bit width (made when first needed; [32] sizes scratch for all).
  std::optional<algo::SegmentCompose> compose;
  std::array<std::optional<Sorter>, 33> composed_sorters;
  SegmentedPath recording_path = SegmentedPath::by_size;  // what record() records: never automatic

  Impl(Device& d, const SortOptions& o, uint32_t promised = 0, SegmentedPath path = SegmentedPath::automatic)
      : device(d), keys_sorter(d, carrying_index(o)), options(keys_sorter.options()),
        key_gather(detail::context_of(d), key_bytes(options.key)), segment_ids(detail::context_of(d)),
        tiles(detail::context_of(d), options), max_segment_keys(promised) {
    check_path("SegmentedSorter", path);
    if (promised > tiles.max_keys())
      throw Error("SegmentedSorter: max_segment_keys " + std::to_string(promised) + " is above the " +
                  std::to_string(tiles.max_keys()) + " keys one workgroup sorts on this device (0: any sizes)");
    if (promised && !whole_keys(options))
      throw Error("SegmentedSorter: max_segment_keys sorts whole keys; a bit range [begin_bit, end_bit) needs "
                  "max_segment_keys 0 (the general path)");
    options.value_bytes = o.value_bytes;
    if (o.value_bytes) value_gather.emplace(detail::context_of(d), o.value_bytes);
    segment_sorter(32);
    if (composable(options)) {
      compose.emplace(detail::context_of(d), options);
      composed_sorter(32);
    } else if (path == SegmentedPath::composed_keys) {
      throw Error(composed_refusal("SegmentedSorter", options));
    }
    // Recordings: composed keys unless the promise lets the serial kernel sort every segment, or (on a
    // GPU) the tile kernel, whose barriers are cheap there.
    const bool composed = path == SegmentedPath::composed_keys ||
                          (path == SegmentedPath::automatic && compose &&
                           (!promised || (promised > tiles.serial_limit() && tile_kernel_costly(d.info()))));
    recording_path = composed ? SegmentedPath::composed_keys : SegmentedPath::by_size;
  }

  // The host path's few large segments: a plain sort of each (the caller's options, values travelling).
  std::optional<Sorter> each;
  Sorter& each_sorter() {
    if (!each) each.emplace(device, options);
    return *each;
  }

  Sorter& segment_sorter(uint32_t bits) {
    if (!segment_sorters[bits]) segment_sorters[bits].emplace(device, by_segment(bits));
    return *segment_sorters[bits];
  }

  Sorter& composed_sorter(uint32_t bits) {
    if (!composed_sorters[bits]) composed_sorters[bits].emplace(device, composed_keys(options, bits));
    return *composed_sorters[bits];
  }

  // Scratch: the sorts' own (one after the other, so they share it) at offset 0, then the input
  // positions, the segment ids, the key copy and the value copy. The composed keys (8 bytes each)
  // take the place of the positions and segment ids, which their path does not use.
  struct Layout {
    VkDeviceSize sort = 0, index = 0, segment = 0, keys = 0, values = 0, bytes = 0;
    VkDeviceSize composed() const { return index; }
  };
  // With a GPU-side count (indirect), n is its most, and the sorts' scratch is their indirect one.
  Layout layout(uint64_t n, bool indirect = false) const {
    Layout l;
    const Sorter& by_segment = *segment_sorters[32];
    l.sort = indirect ? std::max(keys_sorter.scratch_bytes_indirect(n), by_segment.scratch_bytes_indirect(n))
                      : std::max(keys_sorter.scratch_bytes(n), by_segment.scratch_bytes(n));
    if (compose) {
      const Sorter& by_composed = *composed_sorters[32];
      l.sort = std::max(l.sort, indirect ? by_composed.scratch_bytes_indirect(n) : by_composed.scratch_bytes(n));
    }
    l.index = align16(l.sort);
    l.segment = align16(l.index + n * 4);
    l.keys = align16(l.segment + n * 4);
    l.values = align16(l.keys + n * key_bytes(options.key));
    l.bytes = std::max<VkDeviceSize>(l.values + n * options.value_bytes, 8);
    return l;
  }

  // With `count` (one uint32_t the GPU reads), n is the most keys: the first min(*count, n) are sorted.
  // composed: by composed keys (compose must exist). Else largest != 0: no segment has more keys than
  // that (at most tiles.max_keys()), so the small-segment kernel sorts them all; 0: the general method.
  void record(gpu::Recorder& rec, const SortBuffers& b, BufferRef offsets, uint64_t segments, uint64_t n,
              BufferRef count = {}, uint32_t largest = 0, bool composed = false) {
    gpu::Context& ctx = detail::context_of(device);
    const std::string what = "segmented sort of " + std::to_string(n) + " " + std::string(to_string(options.key)) +
                             " keys in " + std::to_string(segments) + " segments";
    if (segments == 0) throw Error(what + ": at least one segment is needed (offsets = {0, n})");
    if (segments > UINT32_MAX - 1) throw Error(what + ": offsets are 32-bit, so at most 2^32 - 2 segments");
    if (n > max_keys) throw Error(what + ": more than 2^31 - 1 keys are not supported");
    if (!options.value_bytes && !b.values.empty())
      throw Error(what + ": a values buffer was given but SortOptions::value_bytes is 0");
    if (!count.empty() && !largest && !composed && keys_sorter.scratch_bytes_indirect(n) == 0)
      throw Error(what + ": a GPU-side count needs radix sort (or automatic) for the keys; this SegmentedSorter is for " +
                  std::string(to_string(options.algorithm)) + " sort");
    const Layout l = layout(n, !count.empty());
    std::vector<api::RangeUse> uses = {{"keys", b.keys, api::bytes_for(n, key_bytes(options.key))},
                                       {"offsets", offsets, api::bytes_for(segments + 1, 4), 4},
                                       {"scratch", b.scratch, l.bytes}};
    if (options.value_bytes) uses.push_back({"values", b.values, api::bytes_for(n, options.value_bytes)});
    if (!count.empty()) uses.push_back({"count", count, 4, 4});
    api::check_ranges(ctx, what, uses);
    if (n == 0) return;
    auto in_scratch = [&](VkDeviceSize offset, VkDeviceSize bytes) {
      return BufferRef{b.scratch.buffer, b.scratch.offset + offset, bytes};
    };
    auto address = [&](BufferRef r) { return gpu::buffer_address(ctx, r.buffer, r.offset); };
    const BufferRef index = in_scratch(l.index, n * 4), segment = in_scratch(l.segment, n * 4);
    const BufferRef sort_scratch = in_scratch(0, l.sort);
    const algo::RecordGather::Target keys{.records = address(b.keys), .index = address(index),
                                          .copy = address(in_scratch(l.keys, 8)),
                                          .count = count.empty() ? 0 : address(count), .n = uint32_t(n)};
    algo::RecordGather::Target values = keys;
    if (value_gather) {
      values.records = address(b.values);
      values.copy = address(in_scratch(l.values, 8));
    }

    if (composed) {
      // One sort of (segment << 32 | encoded key), the caller's values or records travelling with it.
      const BufferRef keys64 = in_scratch(l.composed(), n * 8);
      const uint32_t bits = uint32_t(std::bit_width(segments - 1));
      const SortBuffers sorted{keys64, b.values, sort_scratch};
      api::check_nested(composed_sorter(bits), sorted, n, count);  // a refusal records nothing
      rec.phase("compose keys");
      compose->record_compose(rec, address(b.keys), address(keys64), address(offsets), keys.count, uint32_t(n),
                              uint32_t(segments));
      rec.compute_barrier();
      rec.phase("sort composed keys");
      api::record_nested(rec, composed_sorter(bits), sorted, n, count);
      rec.compute_barrier();
      rec.phase("decompose keys");
      compose->record_decompose(rec, address(keys64), address(b.keys), keys.count, uint32_t(n));
      return;
    }
    if (largest) {
      // One dispatch sorts every segment in place; the values follow by the index it writes. The
      // stage fills the index with the identity: keys in no segment (offsets[0] > 0, offsets[segments]
      // < n) keep their values, where the index would otherwise send the gather to uninitialised words.
      rec.phase("stage");
      if (value_gather) value_gather->record_stage(rec, values);
      rec.phase("sort segments in tiles");
      tiles.record(rec, address(b.keys), value_gather ? address(index) : 0, address(offsets), keys.count, uint32_t(n),
                   uint32_t(segments), largest);
      if (value_gather) {
        rec.phase("gather");
        value_gather->record_gather(rec, values);
      }
      return;
    }
    // The nested sorts' refusals (n beyond what they take) come before anything is recorded.
    const uint32_t bits = uint32_t(std::bit_width(segments - 1));
    api::check_nested(keys_sorter, {b.keys, index, sort_scratch}, n, count);
    if (segments > 1) api::check_nested(segment_sorter(bits), {segment, index, sort_scratch}, n, count);
    rec.phase("stage");
    if (value_gather) value_gather->record_copy(rec, values);
    key_gather.record_stage(rec, keys);  // index[i] = i, key copy; ends with a barrier
    rec.phase("sort keys");
    api::record_nested(rec, keys_sorter, {b.keys, index, sort_scratch}, n, count);
    if (segments > 1) {
      rec.phase("segment ids");
      rec.compute_barrier();
      segment_ids.record(rec, address(index), address(segment), address(offsets), count.empty() ? 0 : address(count),
                         uint32_t(n), uint32_t(segments));
      rec.phase("sort segments");
      rec.compute_barrier();
      api::record_nested(rec, segment_sorter(bits), {segment, index, sort_scratch}, n, count);
      rec.phase("gather");
      key_gather.record_gather(rec, keys);  // the keys sorted whole above are replaced from the copy
    }
    if (value_gather) {
      rec.phase("gather");
      value_gather->record_gather(rec, values);
    }
  }
};

SegmentedSorter::SegmentedSorter(Device& device, const SortOptions& options, uint32_t max_segment_keys,
                                 SegmentedPath path)
    : impl_(std::make_unique<Impl>(device, options, max_segment_keys, path)) {}
SegmentedSorter::~SegmentedSorter() = default;
SegmentedSorter::SegmentedSorter(SegmentedSorter&&) noexcept = default;
SegmentedSorter& SegmentedSorter::operator=(SegmentedSorter&&) noexcept = default;

const SortOptions& SegmentedSorter::options() const {
  api::check_not_moved(impl_.get(), "SegmentedSorter::options");
  return impl_->options;
}
SegmentedPath SegmentedSorter::path() const {
  api::check_not_moved(impl_.get(), "SegmentedSorter::path");
  return impl_->recording_path;
}
uint32_t SegmentedSorter::small_segment_limit() const {
  api::check_not_moved(impl_.get(), "SegmentedSorter::small_segment_limit");
  return impl_->tiles.max_keys();
}
VkDeviceSize SegmentedSorter::scratch_bytes(uint64_t n, uint64_t) const {
  api::check_not_moved(impl_.get(), "SegmentedSorter::scratch_bytes");
  if (n > max_keys) return std::numeric_limits<VkDeviceSize>::max();  // the layout's arithmetic would wrap
  return impl_->layout(n).bytes;
}
VkDeviceSize SegmentedSorter::scratch_bytes_indirect(uint64_t max_n, uint64_t) const {
  api::check_not_moved(impl_.get(), "SegmentedSorter::scratch_bytes_indirect");
  const bool any_count = impl_->keys_sorter.scratch_bytes_indirect(max_n) || impl_->max_segment_keys ||
                         impl_->recording_path == SegmentedPath::composed_keys;
  if (any_count && max_n > max_keys) return std::numeric_limits<VkDeviceSize>::max();
  return any_count ? impl_->layout(max_n, true).bytes : 0;
}

Status SegmentedSorter::record_indirect(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef offsets,
                                        uint64_t segments, BufferRef count, uint64_t max_n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "SegmentedSorter::record_indirect");
    if (cmd == VK_NULL_HANDLE) throw Error("SegmentedSorter::record_indirect: no command buffer");
    if (count.empty()) throw Error("SegmentedSorter::record_indirect: no count buffer");
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    const bool composed = impl_->recording_path == SegmentedPath::composed_keys;
    impl_->record(rec, buffers, offsets, segments, max_n, count, composed ? 0 : impl_->max_segment_keys, composed);
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

Status SegmentedSorter::record(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef offsets, uint64_t segments,
                               uint64_t n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "SegmentedSorter::record");
    if (cmd == VK_NULL_HANDLE) throw Error("SegmentedSorter::record: no command buffer");
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    const bool composed = impl_->recording_path == SegmentedPath::composed_keys;
    impl_->record(rec, buffers, offsets, segments, n, {}, composed ? 0 : impl_->max_segment_keys, composed);
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

namespace {
// The host path's offsets check: everything the GPU cannot report.
void check_offsets(const uint32_t* offsets, uint64_t segments, uint64_t n) {
  const std::string what = "segmented_sort: ";
  if (!offsets) throw Error(what + "offsets is a null pointer");
  if (offsets[0] != 0) throw Error(what + "offsets[0] must be 0; it is " + std::to_string(offsets[0]));
  for (uint64_t s = 0; s < segments; ++s)
    if (offsets[s + 1] < offsets[s])
      throw Error(what + "offsets must not decrease: offsets[" + std::to_string(s + 1) + "] = " +
                  std::to_string(offsets[s + 1]) + " < offsets[" + std::to_string(s) + "] = " + std::to_string(offsets[s]));
  if (offsets[segments] != n)
    throw Error(what + "offsets[segments] must be n = " + std::to_string(n) + "; offsets[" + std::to_string(segments) +
                "] is " + std::to_string(offsets[segments]));
}

// A few large segments (known on the host): one plain sort per segment, all in one submission, costs
// what sorting the keys once costs, where the general path sorts twice and gathers. Below 1024 keys a
// segment on average, the general path's one pass over everything wins.
bool sorts_each(uint64_t segments, uint64_t n) { return segments <= 64 && n >= uint64_t(1024) * segments; }

// The segments the small-segment kernel takes (at most `limit` keys; limit 0: none) and the others.
struct SegmentSplit {
  uint32_t largest_small = 0;  // keys in the largest small segment
  uint64_t tile_keys = 0;      // keys in small segments above `serial` (the tile kernel's)
  uint64_t large = 0;          // segments above the limit
  uint64_t large_keys = 0;     // their keys
};

SegmentSplit split_segments(const uint32_t* offsets, uint64_t segments, uint32_t limit, uint32_t serial) {
  SegmentSplit split;
  for (uint64_t s = 0; s < segments; ++s) {
    const uint32_t size = offsets[s + 1] - offsets[s];
    if (size <= limit) {
      split.largest_small = std::max(split.largest_small, size);
      if (size > serial) split.tile_keys += size;
    } else {
      ++split.large;
      split.large_keys += size;
    }
  }
  return split;
}

// Uploads, records the small-segment kernel (largest != 0: every segment has at most that many keys)
// or the general path, downloads.
SortStats sort_whole(Device& device, SegmentedSorter::Impl& sorter, void* keys, void* values, const uint32_t* offsets,
                     uint64_t segments, uint64_t n, uint32_t largest, bool composed = false) {
  const uint32_t kb = key_bytes(sorter.options.key), vb = sorter.options.value_bytes;
  const std::string count = std::to_string(n) + " " + std::string(to_string(sorter.options.key));
  Buffer key_buffer(device, n * kb, count + " keys");
  Buffer value_buffer;
  if (values) value_buffer = Buffer(device, n * vb, count + " keys' values");
  Buffer offset_buffer(device, (segments + 1) * 4, "segment offsets");
  Buffer scratch(device, sorter.layout(n).bytes, "segmented sort scratch");
  key_buffer.upload({static_cast<const std::byte*>(keys), n * kb});
  if (values) value_buffer.upload({static_cast<const std::byte*>(values), n * vb});
  offset_buffer.upload({reinterpret_cast<const std::byte*>(offsets), (segments + 1) * 4});
  const SortBuffers b{key_buffer.ref(), values ? value_buffer.ref() : BufferRef{}, scratch.ref()};
  SortStats stats = api::timed_submit(detail::context_of(device), "segmented sort of " + count + " keys", [&](gpu::Recorder& rec) {
    sorter.record(rec, b, offset_buffer.ref(), segments, n, {}, largest, composed);
  });
  // Together or not at all: keys sorted beside unsorted values would part them.
  api::download_together(detail::context_of(device),
                         {{&key_buffer, keys, n * kb}, {&value_buffer, values, values ? n * vb : 0}});
  return stats;
}

// Small segments (at most `limit` keys; limit 0: none) packed at the front of the device buffers and
// sorted by the small-segment kernel, every other segment by a plain sort of its own after them, all in
// one submission. The large segments start at even positions (padding between them), so that every
// sub-range's byte offset is a multiple of 8 as BufferRef requires; the small ones never meet them.
SortStats sort_apart(Device& device, SegmentedSorter::Impl& sorter, void* keys, void* values, const uint32_t* offsets,
                     uint64_t segments, uint64_t n, uint32_t limit) {
  const uint32_t kb = key_bytes(sorter.options.key), vb = sorter.options.value_bytes;
  Sorter& each = sorter.each_sorter();
  // at[s]: where segment s starts in the device buffers; the small segments' own offsets there.
  std::vector<uint64_t> at(segments, 0);
  std::vector<uint32_t> small_offsets{0};
  uint32_t largest_small = 0;
  for (uint64_t s = 0; s < segments; ++s) {
    const uint32_t size = offsets[s + 1] - offsets[s];
    if (size > limit) continue;
    at[s] = small_offsets.back();
    small_offsets.push_back(small_offsets.back() + size);
    largest_small = std::max(largest_small, size);
  }
  const uint64_t small_segments = small_offsets.size() - 1, small_keys = small_offsets.back();
  VkDeviceSize scratch_bytes = small_segments ? sorter.layout(small_keys).bytes : 8;
  uint64_t padded = (small_keys + 1) / 2 * 2;
  for (uint64_t s = 0; s < segments; ++s) {
    const uint64_t size = offsets[s + 1] - offsets[s];
    if (size <= limit) continue;
    at[s] = padded;
    padded += (size + 1) / 2 * 2;
    if (size >= 2) scratch_bytes = std::max(scratch_bytes, each.scratch_bytes(size));
  }
  auto pad = [&](const void* from, uint32_t bytes) {
    std::vector<std::byte> out(padded * bytes);
    for (uint64_t s = 0; s < segments; ++s)
      std::memcpy(&out[at[s] * bytes], static_cast<const std::byte*>(from) + uint64_t(offsets[s]) * bytes,
                  uint64_t(offsets[s + 1] - offsets[s]) * bytes);
    return out;
  };
  auto unpad = [&](const std::vector<std::byte>& from, void* to, uint32_t bytes) {
    for (uint64_t s = 0; s < segments; ++s)
      std::memcpy(static_cast<std::byte*>(to) + uint64_t(offsets[s]) * bytes, &from[at[s] * bytes],
                  uint64_t(offsets[s + 1] - offsets[s]) * bytes);
  };
  const std::string count = std::to_string(n) + " " + std::string(to_string(sorter.options.key));
  Buffer key_buffer(device, padded * kb, count + " keys");
  Buffer value_buffer;
  if (values) value_buffer = Buffer(device, padded * vb, count + " keys' values");
  Buffer offset_buffer;
  if (small_segments) {
    offset_buffer = Buffer(device, small_offsets.size() * 4, "segment offsets");
    offset_buffer.upload(std::as_bytes(std::span(small_offsets)));
  }
  Buffer scratch(device, scratch_bytes, "segmented sort scratch");
  std::vector<std::byte> staged = pad(keys, kb);
  key_buffer.upload(staged);
  if (values) value_buffer.upload(pad(values, vb));
  SortStats stats = api::timed_submit(detail::context_of(device), "segmented sort of " + count + " keys", [&](gpu::Recorder& rec) {
    bool first = true;
    if (small_segments && small_keys) {
      const SortBuffers b{{key_buffer.vk_buffer(), 0, small_keys * kb},
                          values ? BufferRef{value_buffer.vk_buffer(), 0, small_keys * vb} : BufferRef{},
                          {scratch.vk_buffer(), 0, scratch_bytes}};
      sorter.record(rec, b, offset_buffer.ref(), small_segments, small_keys, {}, std::max(largest_small, 1u));
      first = false;
    }
    rec.phase("sort each");
    for (uint64_t s = 0; s < segments; ++s) {
      const uint64_t size = offsets[s + 1] - offsets[s];
      if (size <= limit || size < 2) continue;
      if (!first) rec.compute_barrier();  // the sorts share the scratch
      first = false;
      const SortBuffers b{{key_buffer.vk_buffer(), at[s] * kb, size * kb},
                          values ? BufferRef{value_buffer.vk_buffer(), at[s] * vb, size * vb} : BufferRef{},
                          {scratch.vk_buffer(), 0, scratch_bytes}};
      api::record_nested(rec, each, b, size);
    }
  });
  // Both downloaded before either reaches the caller: keys sorted beside unsorted values would part them.
  std::vector<std::byte> v(values ? padded * vb : 0);
  api::download_together(detail::context_of(device), {{&key_buffer, staged.data(), staged.size()}, {&value_buffer, v.data(), v.size()}});
  unpad(staged, keys, kb);
  if (values) unpad(v, values, vb);
  return stats;
}
}  // namespace

SortStats segmented_sort_host(Device& device, void* keys, uint64_t n, void* values, uint32_t value_bytes,
                              const uint32_t* offsets, uint64_t segments, const SortOptions& options, SegmentedPath path) {
  check_path("segmented_sort", path);
  if (n > 0 && !keys) throw Error("segmented_sort: keys is a null pointer (with n = " + std::to_string(n) + ")");
  if (values && value_bytes == 0) throw Error("segmented_sort: values were given with value_bytes 0");
  if (!values && value_bytes != 0 && n > 0) throw Error("segmented_sort: value_bytes is set but values is a null pointer");
  // Checked also for n = 0, whose values may be a null pointer (an empty span's), as every bad argument is.
  api::check_value_bytes("segmented_sort: value_bytes", value_bytes);
  if (n > max_keys) throw Error("segmented_sort: " + std::to_string(n) + " keys: more than 2^31 - 1 keys are not supported");
  if (!offsets) throw Error("segmented_sort: offsets is a null pointer");
  // Before segments + 1 offsets are read: a larger count wrapped (segments + 1) * 4 and the copy's end
  // pointer, which read past a one-entry copy (2^62 segments) or far past the caller's array.
  if (segments > UINT32_MAX - 1)
    throw Error("segmented_sort: " + std::to_string(segments) + " segments: offsets are 32-bit, so at most 2^32 - 2 segments");
  api::check_host_disjoint("segmented_sort", {{"keys", keys, n * key_bytes(options.key)},
                                              {"values", values, n * value_bytes},
                                              {"offsets", offsets, (segments + 1) * 4}});
  // The offsets are read several times below (split, pad, unpad, upload): all from one copy, checked,
  // so that a caller's thread changing them meanwhile (Python with the GIL released) cannot make a later
  // read disagree with the check and copy past the keys.
  const std::vector<uint32_t> own_offsets(offsets, offsets + segments + 1);
  offsets = own_offsets.data();
  check_offsets(offsets, segments, n);
  SortOptions o = options;
  o.value_bytes = values ? value_bytes : 0;
  // Checks the options, also when there is nothing to sort.
  auto cached = api::cached_impl<SegmentedSorter::Impl>(device, "segmented " + detail::options_key(o), [&](Device plain) {
    return std::make_shared<SegmentedSorter::Impl>(plain, o);
  });
  SegmentedSorter::Impl& sorter = *cached.impl;
  // Kept for the next call when this one completes (as sort_host's Sorters: one that threw is dropped).
  if (path == SegmentedPath::composed_keys && !sorter.compose) throw Error(composed_refusal("segmented_sort", sorter.options));
  cached.completed = n == 0;
  if (n == 0) return {};
  // Segments that fit one workgroup's tile: one dispatch sorts them in shared memory (whole keys only).
  // When all do, that is all; when a few large segments are left, each of them gets a plain sort of its
  // own in the same submission; otherwise the general path takes every segment.
  const uint32_t limit = whole_keys(sorter.options) ? sorter.tiles.max_keys() : 0;
  const SegmentSplit split = split_segments(offsets, segments, limit, sorter.tiles.serial_limit());
  const bool apart = split.large > 0 && sorts_each(split.large, split.large_keys);
  // Composed keys, where possible, instead of the general path, and on a CPU device instead of the tile
  // kernel when that would sort a quarter of the keys or more (tile_kernel_costly).
  const bool general = split.large > 0 && !apart;
  const bool costly_tiles = tile_kernel_costly(device.info()) && split.tile_keys * 4 >= n;
  const bool composed = path == SegmentedPath::composed_keys ||
                        (path == SegmentedPath::automatic && sorter.compose && (general || costly_tiles));
  const bool small = !composed && limit > 0 && (split.large == 0 || (apart && split.largest_small > 0));
  SortStats stats = composed           ? sort_whole(device, sorter, keys, values, offsets, segments, n, 0, true)
                    : split.large == 0 ? sort_whole(device, sorter, keys, values, offsets, segments, n, std::max(split.largest_small, 1u))
                    : apart            ? sort_apart(device, sorter, keys, values, offsets, segments, n, limit)
                                       : sort_whole(device, sorter, keys, values, offsets, segments, n, 0);
  stats.facts.push_back({"segments", double(segments)});
  stats.facts.push_back({"composed_keys", composed ? 1.0 : 0.0});
  stats.facts.push_back({"small_segment_kernel", small ? 1.0 : 0.0});
  stats.facts.push_back({"sorted_apart", apart && !composed ? double(split.large) : 0.0});
  cached.completed = true;
  return stats;
}

}  // namespace vksort
