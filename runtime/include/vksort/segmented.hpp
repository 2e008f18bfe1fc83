// SPDX-License-Identifier: MIT
// vksort/segmented.hpp — sorting many independent segments of one array in one call.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include <vulkan/vulkan_core.h>

#include "vksort/buffer.hpp"
#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/sorter.hpp"
#include "vksort/types.hpp"

namespace vksort {

// How a segmented sort goes about it; automatic chooses per call (the host path, from the segment
// sizes) or per SegmentedSorter (the recording path, from max_segment_keys, key and device type).
//   composed_keys  32-bit keys (u32, i32, f32), whole keys, radix sort (Algorithm::radix or automatic):
//                  one radix sort of 64-bit (segment << 32 | encoded key) keys on bits
//                  [0, 32 + ceil(log2(segments))), values or records travelling, the segment of each
//                  position found on the GPU from the offsets. Costs about one sort of 64-bit keys
//                  whatever the segment sizes. Forcing it for other options throws vksort::Error.
//   by_size        everything but composed keys: the small-segment kernels for segments that fit them,
//                  a plain sort of each of a few large segments (host path), else the general path
//                  (the keys sorted whole with their positions, then a radix sort of the segment ids).
// automatic, where composed keys are possible: what by_size would do, except that composed keys replace
// the general path, and on a CPU device also replace the tile kernel (and the sorts apart beside it)
// when that would sort a quarter of the keys or more (its barriers cost more there than a sort of
// everything; segments of up to 128 keys, one per invocation, are not the tile kernel's). Where they
// are not possible, by_size. The stats' fact "composed_keys" (1 or 0), or SegmentedSorter::path(),
// says which.
enum class SegmentedPath : uint32_t { automatic, composed_keys, by_size };

// Pipelines for segmented sorts of one SortOptions (any key, order, algorithm, value_bytes, bit range).
// Every segment [offsets[s], offsets[s + 1]) of the n keys is sorted independently and stably; values
// (or records) move with their keys.
//
// How (the general path, without composed keys: see SegmentedPath): the keys are sorted whole, stably,
// carrying their input position (written on the GPU); each sorted position's segment is then found by
// binary search in the offsets, and a stable radix sort on the segment id alone (only
// ceil(log2(segments)) bits) carrying that position groups the segments while keeping each one's key
// order; finally keys and values move once, by a gather from copies.
// Segments of any sizes cost the same: about one sort of the keys plus a few narrow radix passes.
// A single segment is one plain sort. (The host path, which knows the offsets, sorts a few large
// segments, at most 64 of 1024 keys or more on average, one by one in one submission instead.)
//
// Small segments: when no segment has more keys than small_segment_limit() (2048 on most devices, less
// where shared memory is small), one dispatch sorts them all, each by one workgroup in shared memory
// (bitonic on (key, position in segment): stable), and values follow by one gather. The host path
// sees the offsets and takes it by itself (whole keys only: a bit range keeps the general path); the recording path, whose offsets only the GPU sees, takes
// it when the caller promises a largest segment size (max_segment_keys below).
//
// Ownership, threading and moved-from objects as Sorter's (vksort/sorter.hpp).
class VKSORT_API SegmentedSorter {
 public:
  // Throws vksort::Error for invalid options (as Sorter). max_segment_keys != 0 promises that no
  // segment of any recording has more keys (at most small_segment_limit(), else this throws): every
  // recording then uses the small-segment kernels alone (any Algorithm, also with a GPU-side count; not
  // with a bit range, which throws), unless composed keys are chosen (below). A
  // segment above the promise is left as it is (keys and values unchanged, nothing lost); offsets
  // that decrease may then leave the keys and values of overlapping segments unspecified (segments
  // sorted at once over the same positions: keys and values may be lost, duplicated or parted from
  // each other; no access leaves the buffers).
  // path: SegmentedPath::automatic takes composed keys where they are possible and either no promise is
  // given or, on a CPU device, the promise is above what one invocation sorts alone (the tile kernel's
  // barriers cost more there); composed keys sort every segment whatever its size. composed_keys for
  // options that cannot take it throws; by_size never takes composed keys.
  SegmentedSorter(Device& device, const SortOptions& options, uint32_t max_segment_keys = 0,
                  SegmentedPath path = SegmentedPath::automatic);
  ~SegmentedSorter();
  SegmentedSorter(SegmentedSorter&&) noexcept;
  SegmentedSorter& operator=(SegmentedSorter&&) noexcept;

  const SortOptions& options() const;
  // What record and record_indirect record: composed_keys or by_size (never automatic).
  SegmentedPath path() const;
  // The most keys of a segment that one workgroup sorts in shared memory on this device (for these keys).
  uint32_t small_segment_limit() const;
  // Bytes of scratch a segmented sort of n keys in `segments` segments needs (never 0). Arithmetic only.
  // Beyond max_sort_keys: the largest VkDeviceSize.
  VkDeviceSize scratch_bytes(uint64_t n, uint64_t segments) const;

  // Records the segmented sort into cmd. `offsets` holds segments + 1 uint32_t (4-byte aligned offset),
  // which the GPU reads when the work runs: an earlier pass of the caller's may write them (its writes
  // are part of the barrier contract's "before"). They must then be non-decreasing from 0 to n; the
  // GPU cannot report a violation, so keys in positions no segment covers are sorted as if in the
  // nearest segment before them, those before offsets[0] with the first segment (nothing is lost or
  // duplicated, whatever the offsets). Under a max_segment_keys promise that path() says is by_size,
  // such keys stay where they are instead, and decreasing offsets leave overlapping segments
  // unspecified (see the constructor). Buffers and
  // barrier contract as Sorter::record (values/records as SortOptions::value_bytes). Never throws: a
  // bad argument (segments 0, buffers too small or overlapping, ...) returns a Status and records nothing.
  // The first recording for a segment count of a new bit width (ceil(log2(segments))) creates that
  // width's radix pipelines (milliseconds); later ones reuse them.
  Status record(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef offsets, uint64_t segments,
                uint64_t n) noexcept;

  // The same with a key count the GPU reads when it runs: `count` holds one uint32_t (written by an
  // earlier pass, like the offsets), and the first min(*count, max_n) keys are sorted; keys and values
  // past them are not touched. Offsets beyond the count cut their segments short there, so a pass
  // that produces up to `segments` segments may leave the unused trailing offsets at any value of at
  // least the count. Buffers are checked against max_n; scratch must hold scratch_bytes_indirect.
  // The keys' sort must be radix sort (Algorithm::radix or automatic), as for Sorter::record_indirect,
  // unless max_segment_keys was given.
  // The recording does not depend on the count or the offsets: record once, submit many times.
  Status record_indirect(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef offsets, uint64_t segments,
                         BufferRef count, uint64_t max_n) noexcept;
  // Scratch bytes record_indirect needs for up to max_n keys (0 for brick or sample sort without
  // max_segment_keys).
  VkDeviceSize scratch_bytes_indirect(uint64_t max_n, uint64_t segments) const;

  struct Impl;
 private:
  std::unique_ptr<Impl> impl_;
};

// Host: offsets holds segments + 1 non-decreasing entries, offsets[0] == 0, offsets[segments] == n. Every segment
// [offsets[i], offsets[i+1]) is sorted independently, stably, in place; values (n * value_bytes bytes, or nullptr
// with value_bytes 0) move with their keys. value_bytes as SortOptions::value_bytes (0, 4, or 8..256 multiple of 4).
// Throws vksort::Error on bad arguments (offsets not non-decreasing, not starting at 0 / ending at n, more
// than 2^32 - 2 segments, ...)
// and failures (a lost device); keys and values are then as they were, never one sorted without the other.
// path: see SegmentedPath (automatic chooses from the segment sizes; the stats' facts say what ran).
VKSORT_API SortStats segmented_sort_host(Device& device, void* keys, uint64_t n, void* values, uint32_t value_bytes,
                                         const uint32_t* offsets, uint64_t segments, const SortOptions& options,
                                         SegmentedPath path = SegmentedPath::automatic);

template <SortableKey K>
SortStats segmented_sort(Device& device, std::span<K> keys, std::span<const uint32_t> offsets, SortOptions options = {},
                         SegmentedPath path = SegmentedPath::automatic) {
  options = detail::typed_options<K>(options);
  if (offsets.empty()) detail::throw_error("segmented_sort: offsets must hold segments + 1 entries (at least 1)");
  return segmented_sort_host(device, keys.data(), keys.size(), nullptr, 0, offsets.data(), offsets.size() - 1, options,
                             path);
}

template <SortableKey K, class V>
SortStats segmented_sort(Device& device, std::span<K> keys, std::span<V> values, std::span<const uint32_t> offsets,
                         SortOptions options = {}, SegmentedPath path = SegmentedPath::automatic) {
  static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0, "values: 4-byte multiples, trivially copyable");
  options = detail::typed_options<K>(options);
  if (values.size() != keys.size()) detail::throw_error("segmented_sort: values must have one entry per key");
  if (offsets.empty()) detail::throw_error("segmented_sort: offsets must hold segments + 1 entries (at least 1)");
  return segmented_sort_host(device, keys.data(), keys.size(), static_cast<void*>(values.data()), uint32_t(sizeof(V)),
                             offsets.data(), offsets.size() - 1, options, path);
}

}  // namespace vksort
