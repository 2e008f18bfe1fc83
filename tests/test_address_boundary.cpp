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
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"

using namespace vksort;
using workloads::Distribution;

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

// Which range lies across the boundary, and where in it.
struct Way {
  size_t range;  // index into the sort's ranges (keys, values or indices, scratch, offsets)
  double fraction;
};
// Each data range across the boundary at its middle; the scratch at several places (where the single
// pass's two state regions and the key copies lie depends on n and the tiles).
std::vector<Way> ways_across(size_t ranges, size_t scratch) {
  std::vector<Way> ways;
  for (size_t r = 0; r < ranges; ++r)
    if (r != scratch) ways.push_back({r, 0.5});
  for (double f : {0.125, 0.375, 0.625, 0.875}) ways.push_back({scratch, f});
  return ways;
}

// Records with `record` into a fresh command buffer, submits and waits; the Status's message or "".
template <class Record>
std::string run(Device& gpu, Record&& record) {
  test::AppCommands app(gpu);
  const Status status = record(app.cmd());
  if (!status.ok()) return "record: " + status.message;
  app.submit_and_wait();
  return "";
}

// n keys of `key` and values of vb bytes whose words are all distinct.
std::vector<std::byte> distinct_values(uint64_t n, uint32_t vb) {
  const std::vector<uint32_t> words = workloads::generate_values(n * (vb / 4));
  std::vector<std::byte> values(words.size() * 4);
  if (!values.empty()) std::memcpy(values.data(), words.data(), values.size());
  return values;
}

// The reference: keys sorted stably, the values (vb bytes each) moved with them. Returns the original
// index of each place.
std::vector<uint32_t> reference(const SortOptions& o, std::span<std::byte> keys, std::vector<std::byte>& values) {
  std::vector<uint32_t> from = workloads::generate_values(keys.size() / key_bytes(o.key));  // 0, 1, ...
  workloads::reference_sort(o.key, o.order, keys, from);
  const uint32_t vb = o.value_bytes;
  if (vb) {
    std::vector<std::byte> moved(values.size());
    for (size_t i = 0; i < from.size(); ++i) std::memcpy(&moved[i * vb], &values[size_t(from[i]) * vb], vb);
    values = std::move(moved);
  }
  return from;
}

std::string compare(const SortOptions& o, std::span<const std::byte> expected, std::span<const std::byte> got,
                    const std::vector<std::byte>& expected_values, const std::vector<std::byte>& got_values) {
  const std::string keys_differ = workloads::first_difference(o.key, expected, got);
  if (!keys_differ.empty()) return "keys: " + keys_differ;
  return got_values == expected_values ? "" : "values differ";
}

const char* const sort_ranges[] = {"keys", "values", "scratch"};
const char* const argsort_ranges[] = {"keys", "indices", "scratch"};
const char* const segmented_ranges[] = {"keys", "values", "scratch", "offsets"};

// Sorts n keys with `sorter`, keys, values and scratch in `s` as `way` places them; "" when keys and
// values (records) equal the reference.
std::string sort_across(Device& gpu, Sorter& sorter, Straddling& s, uint64_t n, Way way, uint64_t seed) {
  const SortOptions& o = sorter.options();
  const uint32_t vb = o.value_bytes;
  const std::vector<VkDeviceSize> bytes = {n * key_bytes(o.key), n * vb, sorter.scratch_bytes(n)};
  const std::vector<VkDeviceSize> at = place_ranges(s, bytes, way.range, way.fraction);
  std::vector<std::byte> keys = workloads::generate_keys(o.key, {Distribution::uniform, 0}, n, seed);
  std::vector<std::byte> values = distinct_values(n, vb);
  s.buffer.upload(keys, at[0]);
  if (vb) s.buffer.upload(values, at[1]);
  const VkBuffer b = s.buffer.vk_buffer();
  const SortBuffers buffers{{b, at[0], bytes[0]}, vb ? BufferRef{b, at[1], bytes[1]} : BufferRef{}, {b, at[2], bytes[2]}};
  if (std::string failed = run(gpu, [&](VkCommandBuffer cmd) { return sorter.record(cmd, buffers, n); }); !failed.empty())
    return failed;

  std::vector<std::byte> expected = keys, expected_values = values;
  reference(o, expected, expected_values);
  s.buffer.download(keys, at[0]);
  if (vb) s.buffer.download(values, at[1]);
  return compare(o, expected, keys, expected_values, values);
}

SortOptions options(Key key, uint32_t value_bytes, Algorithm algorithm) {
  return {.key = key, .algorithm = algorithm, .value_bytes = value_bytes};
}

void sort_every_way_across(Device& gpu, Straddling& s, Sorter& sorter, uint64_t n, uint64_t& seed) {
  const SortOptions& o = sorter.options();
  for (const Way& way : ways_across(3, 2)) {
    if (way.range == 1 && !o.value_bytes) continue;  // no values
    INFO(to_string(o.key), " ", to_string(sorter.algorithm()), " values ", o.value_bytes, " radix scan ",
         to_string(o.tuning.radix_scan), " ranking ", to_string(o.tuning.radix_ranking), " n ", n, " tile ",
         sorter.tile_size(), ": ", std::string(sort_ranges[way.range]), " across at ", way.fraction);
    CHECK(sort_across(gpu, sorter, s, n, way, seed++) == "");
  }
}

// An argsort (64-bit indices: the widening kernel too) with keys, indices and scratch across.
void argsort_every_way_across(Device& gpu, Straddling& s, uint64_t n, uint64_t& seed) {
  const SortOptions o = options(Key::f32, 0, Algorithm::automatic);
  ArgSorter argsorter(gpu, o, 8);
  const std::vector<VkDeviceSize> bytes = {n * 4, n * 8, argsorter.scratch_bytes(n)};
  for (const Way& way : ways_across(3, 2)) {
    INFO("argsort n ", n, ": ", std::string(argsort_ranges[way.range]), " across at ", way.fraction);
    const std::vector<VkDeviceSize> at = place_ranges(s, bytes, way.range, way.fraction);
    std::vector<std::byte> keys = workloads::generate_keys(o.key, workloads::default_spec(Distribution::few_unique), n, seed++);
    s.buffer.upload(keys, at[0]);
    const VkBuffer b = s.buffer.vk_buffer();
    const ArgsortBuffers buffers{{b, at[0], bytes[0]}, {b, at[1], bytes[1]}, {b, at[2], bytes[2]}};
    REQUIRE(run(gpu, [&](VkCommandBuffer cmd) { return argsorter.record(cmd, buffers, n); }) == "");
    std::vector<uint64_t> indices(n);
    s.buffer.download(std::as_writable_bytes(std::span(indices)), at[1]);
    std::vector<std::byte> no_values;
    const std::vector<uint32_t> from = reference(o, keys, no_values);
    CHECK(std::equal(indices.begin(), indices.end(), from.begin(), from.end()));
  }
}

// A segmented sort (each path) with keys, values, scratch and offsets across.
void segmented_every_way_across(Device& gpu, Straddling& s, uint64_t n, uint64_t& seed) {
  const SortOptions o = options(Key::u32, 4, Algorithm::automatic);
  std::vector<uint32_t> offsets = {0};
  for (uint64_t at = 0; at < n;) offsets.push_back(uint32_t(at = std::min<uint64_t>(n, at + 1 + (at * 7919) % 3001)));
  const uint64_t segments = offsets.size() - 1;
  for (SegmentedPath path : {SegmentedPath::composed_keys, SegmentedPath::by_size}) {
    SegmentedSorter sorter(gpu, o, 0, path);
    const std::vector<VkDeviceSize> bytes = {n * 4, n * 4, sorter.scratch_bytes(n, segments), offsets.size() * 4};
    for (const Way& way : ways_across(4, 2)) {
      INFO("segmented sort, path ", path == SegmentedPath::composed_keys ? "composed keys" : "by size", ", ", segments,
           " segments of n ", n, ": ", std::string(segmented_ranges[way.range]),
           " across at ", way.fraction);
      const std::vector<VkDeviceSize> at = place_ranges(s, bytes, way.range, way.fraction);
      std::vector<std::byte> keys = workloads::generate_keys(o.key, {Distribution::uniform, 0}, n, seed++);
      std::vector<std::byte> values = distinct_values(n, 4);
      s.buffer.upload(keys, at[0]);
      s.buffer.upload(values, at[1]);
      s.buffer.upload(std::as_bytes(std::span(offsets)), at[3]);
      const VkBuffer b = s.buffer.vk_buffer();
      const SortBuffers buffers{{b, at[0], bytes[0]}, {b, at[1], bytes[1]}, {b, at[2], bytes[2]}};
      REQUIRE(run(gpu, [&](VkCommandBuffer cmd) { return sorter.record(cmd, buffers, {b, at[3], bytes[3]}, segments, n); }) == "");
      std::vector<std::byte> expected = keys, expected_values = values;
      for (uint64_t g = 0; g < segments; ++g) {
        const uint64_t first = offsets[g], count = offsets[g + 1] - first;
        std::vector<std::byte> part(expected.begin() + first * 4, expected.begin() + (first + count) * 4);
        std::vector<std::byte> part_values(values.begin() + first * 4, values.begin() + (first + count) * 4);
        reference(o, part, part_values);
        std::copy(part.begin(), part.end(), expected.begin() + first * 4);
        std::copy(part_values.begin(), part_values.end(), expected_values.begin() + first * 4);
      }
      s.buffer.download(keys, at[0]);
      s.buffer.download(values, at[1]);
      CHECK(compare(o, expected, keys, expected_values, values) == "");
    }
  }
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
          sort_every_way_across(gpu, *s, sorter, 40009, seed);
        }
      }
    }
  }
  for (Algorithm algorithm : {Algorithm::brick, Algorithm::sample}) {
    Sorter sorter(gpu, options(Key::u32, 4, algorithm));
    sort_every_way_across(gpu, *s, sorter, 20011, seed);
  }
  Sorter records(gpu, options(Key::u64, 12, Algorithm::radix));
  sort_every_way_across(gpu, *s, records, 20011, seed);
  argsort_every_way_across(gpu, *s, 20011, seed);
  segmented_every_way_across(gpu, *s, 30011, seed);
}

}  // namespace

TEST_CASE("sorts with keys, values or scratch across a 4 GiB device address boundary") {
  sorts_across_a_4gib_boundary(test::device());
}

TEST_CASE("sorts with GPU shapes across a 4 GiB device address boundary") {
  DeviceOptions shapes = test::options_like_device();
  shapes.pretend.gpu = true;
  Device gpu(shapes);
  sorts_across_a_4gib_boundary(gpu);
}
