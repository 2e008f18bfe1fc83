// SPDX-License-Identifier: MIT
// Sorts whose keys, values or scratch straddle a multiple of 4 GiB in device addresses. Shaders get
// buffer addresses as two 32-bit words (shaderInt64 is not required), so address arithmetic in a shader
// must carry from the low word into the high one; an offset added to the low word alone points 4 GiB
// below where it should once the sum wraps. Lavapipe's device addresses are host pointers, and large
// allocations lie next to each other, so a few 1 GiB buffers (address space only: nothing touches
// their pages but the sorts) always include one that crosses such a boundary; the sorts then place
// their ranges in it so that the boundary falls inside keys, values or scratch at several places, and
// are checked byte for byte. Every algorithm, GPU shapes (pretend.gpu: the single pass's state regions
// of many small tiles) and the CPU driver's, keys with values and records, argsort and segmented sort.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "support/range_sorts.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

constexpr VkDeviceSize four_gib = VkDeviceSize(1) << 32;

// A Buffer whose addresses cross a multiple of 4 GiB with at least `margin` bytes on each side, and
// where that boundary lies in it; nothing (and `why`) where the device places no allocation so.
struct Straddling {
  Buffer buffer;
  VkDeviceSize boundary = 0;  // bytes from the buffer's start
};

std::optional<Straddling> straddling_buffer(Device& gpu, VkDeviceSize bytes, VkDeviceSize margin, std::string& why) {
  std::vector<Buffer> passed_over;  // kept until one is found, so the next allocation lies elsewhere
  for (int attempt = 0; attempt < 16; ++attempt) {
    Result<Buffer> made = Buffer::create(gpu, bytes, "straddling");
    if (!made) {
      why = "allocating " + std::to_string(bytes) + " bytes failed: " + made.status().message;
      return std::nullopt;
    }
    Buffer b = std::move(made).value();
    const VkDeviceAddress first = b.address(), last = first + bytes - 1;
    if (first / four_gib != last / four_gib) {
      const VkDeviceSize boundary = (first / four_gib + 1) * four_gib - first;
      if (boundary >= margin && boundary + margin <= bytes) return Straddling{std::move(b), boundary};
      // Too near an end: allocations of one size lie at the same places modulo 4 GiB, nearly, so half
      // a buffer more moves the next crossing's boundary well inside.
      if (Result<Buffer> spacer = Buffer::create(gpu, bytes / 2, "spacer")) passed_over.push_back(std::move(spacer).value());
    }
    passed_over.push_back(std::move(b));
  }
  why = "the device placed no " + std::to_string(bytes) + "-byte buffer across a 4 GiB address boundary in 16 allocations";
  return std::nullopt;
}

VkDeviceSize round_up(VkDeviceSize v, VkDeviceSize to) { return (v + to - 1) / to * to; }

// Where ranges of `bytes` go in `s`: range `across` so that the boundary lies `fraction` of the way
// into it (rounded down to 8 bytes), the others after it, 256-byte aligned.
std::vector<VkDeviceSize> place_ranges(const Straddling& s, const std::vector<VkDeviceSize>& bytes, size_t across, double fraction) {
  std::vector<VkDeviceSize> at(bytes.size());
  at[across] = s.boundary - VkDeviceSize(double(bytes[across]) * fraction) / 8 * 8;
  VkDeviceSize next = round_up(at[across] + std::max<VkDeviceSize>(bytes[across], 8), 256);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == across) continue;
    at[i] = next;
    next = round_up(next + std::max<VkDeviceSize>(bytes[i], 8), 256);
  }
  REQUIRE(next <= s.buffer.size());
  return at;
}

// Sorts with each data range across the boundary at its middle, and the scratch at several places
// (where the single pass's two state regions and the key copies lie depends on n and the tiles).
void sort_every_way_across(Straddling& s, const test::RangeSort& sort, uint64_t& seed) {
  const test::RangeStore store = test::store_of(s.buffer);
  for (size_t range = 0; range < sort.ranges.size(); ++range) {
    if (sort.bytes[range] == 0) continue;  // e.g. no values
    const std::vector<double> fractions = range == sort.scratch ? std::vector{0.125, 0.375, 0.625, 0.875} : std::vector{0.5};
    for (double fraction : fractions) {
      INFO(sort.name, ": ", sort.ranges[range], " across at ", fraction);
      CHECK(sort.run(store, place_ranges(s, sort.bytes, range, fraction), seed++) == "");
    }
  }
}

SortOptions options(Key key, uint32_t value_bytes, Algorithm algorithm) {
  return {.key = key, .algorithm = algorithm, .value_bytes = value_bytes};
}

void sorts_across_a_4gib_boundary(Device& gpu) {
  std::string why;
  std::optional<Straddling> s = straddling_buffer(gpu, VkDeviceSize(1) << 30, VkDeviceSize(64) << 20, why);
  if (!s) {
    test::skip(why);
    return;
  }
  MESSAGE("a 1 GiB buffer at ", s->buffer.address(), " crosses 4 GiB at ", s->boundary, " bytes in");
  uint64_t seed = 1;
  for (Key key : {Key::u32, Key::f64}) {
    for (uint32_t vb : {0u, 4u}) {
      for (RadixScan scan : {RadixScan::single_pass, RadixScan::reduce_then_scan}) {
        std::vector<RadixRanking> rankings = {RadixRanking::automatic};
        if (scan == RadixScan::single_pass) rankings.push_back(RadixRanking::columns);
        for (RadixRanking ranking : rankings) {
          SortOptions o = options(key, vb, Algorithm::radix);
          o.tuning.radix_scan = scan;
          o.tuning.radix_ranking = ranking;
          o.tuning.items_per_thread = scan == RadixScan::single_pass && ranking == RadixRanking::automatic ? 1 : 0;
          Sorter sorter(gpu, o);
          sort_every_way_across(*s, test::sort_on_ranges(gpu, sorter, 40009), seed);
        }
      }
    }
  }
  for (Algorithm algorithm : {Algorithm::brick, Algorithm::sample}) {
    Sorter sorter(gpu, options(Key::u32, 4, algorithm));
    sort_every_way_across(*s, test::sort_on_ranges(gpu, sorter, 20011), seed);
  }
  Sorter records(gpu, options(Key::u64, 12, Algorithm::radix));
  sort_every_way_across(*s, test::sort_on_ranges(gpu, records, 20011), seed);
  // 64-bit indices: the widening kernel too.
  ArgSorter argsorter(gpu, options(Key::f32, 0, Algorithm::automatic), 8);
  sort_every_way_across(*s, test::argsort_on_ranges(gpu, argsorter, 20011), seed);
  for (SegmentedPath path : {SegmentedPath::composed_keys, SegmentedPath::by_size}) {
    SegmentedSorter segmented(gpu, options(Key::u32, 4, Algorithm::automatic), 0, path);
    sort_every_way_across(*s, test::segmented_on_ranges(gpu, segmented, 30011), seed);
  }
}

}  // namespace

TEST_CASE("sorts with keys, values or scratch across a 4 GiB device address boundary") {
  sorts_across_a_4gib_boundary(test::device());
}

TEST_CASE("sorts with GPU shapes across a 4 GiB device address boundary") {
  Device gpu(test::gpu_shapes_options());
  sorts_across_a_4gib_boundary(gpu);
}
