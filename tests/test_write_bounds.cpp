// SPDX-License-Identifier: MIT
// No sort writes outside the ranges it is given. Keys, values (or indices), scratch, offsets and counts
// are ranges of one Buffer, each with guard bytes of a known pattern before and after it, and every byte
// outside the ranges must read back unchanged after the sort; the sorts are checked byte for byte as
// well. Shaders write through device addresses, which nothing bounds (no robust buffer access, and
// AddressSanitizer does not see into lavapipe's compiled shaders): a kernel that writes a whole tile
// or vector past n, or scratch past scratch_bytes(n), would corrupt the application's neighbouring
// data on a GPU. Ranges start 8 bytes past a multiple of 256, the least alignment the API allows.
// Every algorithm and path, on lavapipe's shapes, GPU shapes (pretend.gpu) and a pretend-small device
// (3-D grids), at sizes from 1 key.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/range_sorts.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

constexpr VkDeviceSize guard = 4096;

VkDeviceSize round_up(VkDeviceSize v, VkDeviceSize to) { return (v + to - 1) / to * to; }

// The byte a guard holds at offset i of the buffer.
std::byte pattern(VkDeviceSize i) { return std::byte(uint8_t((i * 0x9e) ^ (i >> 8) ^ 0x5a)); }

// Each range after `guard` bytes, starting 8 bytes past a multiple of 256, with `guard` bytes after the
// last; `total` receives the bytes the layout takes.
std::vector<VkDeviceSize> guarded_layout(const std::vector<VkDeviceSize>& bytes, VkDeviceSize& total) {
  std::vector<VkDeviceSize> at;
  VkDeviceSize end = 0;
  for (VkDeviceSize b : bytes) {
    at.push_back(round_up(end + guard, 256) + 8);
    end = at.back() + b;
  }
  total = end + guard;
  return at;
}

// Runs `sort` with its ranges among guards in a buffer of the pattern: "" when the sort is right and
// every byte outside its ranges kept the pattern, else what is wrong, the first byte written outside
// named by its distance from the nearest range.
std::string sort_within_guards(Device& gpu, const test::RangeSort& sort, uint64_t seed) {
  VkDeviceSize total = 0;
  const std::vector<VkDeviceSize> at = guarded_layout(sort.bytes, total);
  std::vector<std::byte> image(total);
  for (VkDeviceSize i = 0; i < total; ++i) image[i] = pattern(i);
  Buffer buffer(gpu, total, "guarded ranges");
  buffer.upload(image);
  if (std::string wrong = sort.run(test::store_of(buffer), at, seed); !wrong.empty()) return wrong;
  buffer.download(image);
  size_t range = 0;
  for (VkDeviceSize i = 0; i < total; ++i) {
    while (range < at.size() && i >= at[range] + sort.bytes[range]) ++range;  // ranges past i
    if (range < at.size() && i >= at[range]) {
      i = at[range] + sort.bytes[range] - 1;  // inside a range: anything goes
      continue;
    }
    if (image[i] == pattern(i)) continue;
    std::string where;
    if (range < at.size()) where = std::to_string(at[range] - i) + " bytes before " + sort.ranges[range];
    if (range > 0) {
      const VkDeviceSize after = i - (at[range - 1] + sort.bytes[range - 1]);
      if (range == at.size() || after < at[range] - i) where = std::to_string(after) + " bytes after the end of " + sort.ranges[range - 1];
    }
    return "a byte outside the ranges was written: " + where;
  }
  return "";
}

// Sizes from 1 key to several tiles, off the tile and power-of-two boundaries.
std::vector<uint64_t> sizes(uint64_t tile) { return {1, 2, 3, tile - 1, tile + 1, 3 * tile + 5, 40009}; }

void every_sort_writes_within_its_ranges(Device& gpu) {
  uint64_t seed = 1;
  test::for_each_range_sort(gpu, sizes, [&](const test::RangeSort& sort) {
    INFO(sort.name);
    CHECK(sort_within_guards(gpu, sort, seed++) == "");
  });
}

}  // namespace

TEST_CASE("sorts write nothing outside their keys, values, scratch, offsets and count") {
  every_sort_writes_within_its_ranges(test::device());
}

TEST_CASE("sorts with GPU shapes write nothing outside their ranges") {
  Device gpu(test::gpu_shapes_options());
  every_sort_writes_within_its_ranges(gpu);
}

TEST_CASE("sorts on a pretend-small device write nothing outside their ranges") {
  Device gpu(test::small_device_options());
  every_sort_writes_within_its_ranges(gpu);
}
