// SPDX-License-Identifier: MIT
// Sorts (and bucket-list builds) whose buffers (keys, values or indices, scratch, offsets, count, ids)
// are ranges of one buffer at offsets the test chooses, checked against the CPU reference: for tests of
// where sorts read and write (test_address_boundary: ranges across a 4 GiB address boundary;
// test_write_bounds: guard bytes around every range; test_read_bounds: ranges against inaccessible
// pages).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <vksort/vksort.hpp>

namespace vksort::test {

// Where a sort's ranges lie: a VkBuffer (usable as keys, values and scratch: see BufferRef) and how to
// copy bytes into and out of it at byte offsets.
struct RangeStore {
  VkBuffer buffer = VK_NULL_HANDLE;
  std::function<void(std::span<const std::byte> data, VkDeviceSize offset)> upload;
  std::function<void(std::span<std::byte> data, VkDeviceSize offset)> download;
};
// A vksort::Buffer as a RangeStore (it must outlive the store).
RangeStore store_of(Buffer& buffer);

// One sort's ranges and how to run it on them.
struct RangeSort {
  std::string name;                 // "u32 radix +values single_pass ballot n=40009 tile=256"
  std::vector<std::string> ranges;  // what each range holds: "keys", "values", "scratch", ...
  std::vector<VkDeviceSize> bytes;  // each range's size (0: the sort has no such range)
  size_t scratch = 0;               // which range is the scratch (ranges.size(): none of them)
  // Uploads fresh input (from seed) into the ranges at `at` (byte offsets in `store`), records the
  // sort into a new command buffer, submits, waits and downloads: "" when the result equals the
  // reference, else what differs (or the Status of a refused recording).
  std::function<std::string(const RangeStore& store, const std::vector<VkDeviceSize>& at, uint64_t seed)> run;
};

// Sorter::record of n keys (values or records as its options say): ranges keys, values, scratch.
RangeSort sort_on_ranges(Device& gpu, Sorter& sorter, uint64_t n);
// Sorter::record_indirect of up to max_n keys whose count, `count`, the GPU reads from a fourth range:
// ranges keys, values, scratch, count. The keys and values past the count must stay as they were.
RangeSort sort_indirect_on_ranges(Device& gpu, Sorter& sorter, uint64_t max_n, uint32_t count);
// ArgSorter::record of n keys: ranges keys, indices, scratch.
RangeSort argsort_on_ranges(Device& gpu, ArgSorter& argsorter, uint64_t n);
// SegmentedSorter::record of n keys in segments of sizes 1 to 3001: ranges keys, values, scratch,
// offsets.
RangeSort segmented_on_ranges(Device& gpu, SegmentedSorter& sorter, uint64_t n);

// BucketLists::record_build of n ids (uniform over its buckets, from the seed): one range, the ids,
// which must read back unchanged; the lists must be the ids' (every element in its bucket's list once).
RangeSort buckets_on_ranges(Device& gpu, BucketLists& lists, uint32_t n);

// The devices the bounds and address tests run on besides test::device(), validation as on it:
// lavapipe posing as a GPU (pretend.gpu: the shapes and choices made for GPUs), and a small device
// (8 KiB shared memory, 32 invocations, 31 workgroups a dimension: 3-D grids from ~1000 workgroups).
DeviceOptions gpu_shapes_options();
DeviceOptions small_device_options();

// Every kind of sort the bounds tests run, each on its ranges, handed to `each` (its sorter alive during
// the call): every algorithm and radix path (both single-pass rankings, reduce-then-scan) for 32- and
// 64-bit keys without values, with values (descending) and with 12-byte records, at sizes(tile) keys;
// a GPU-side count below, at and beyond the most keys; argsort with 4- and 8-byte indices and segmented
// sort on both paths, and bucket lists built by scatter and by sort, at sizes(1024) keys.
void for_each_range_sort(Device& gpu, const std::function<std::vector<uint64_t>(uint64_t tile)>& sizes,
                         const std::function<void(const RangeSort&)>& each);

}  // namespace vksort::test
