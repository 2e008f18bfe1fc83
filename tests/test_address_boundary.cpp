// SPDX-License-Identifier: MIT
// Sorts whose keys, values or scratch straddle a multiple of 4 GiB in device addresses. Shaders get
// buffer addresses as two 32-bit words (shaderInt64 is not required), so address arithmetic in a shader
// must carry from the low word into the high one; an offset added to the low word alone points 4 GiB
// below where it should once the sum wraps. Lavapipe's device addresses are host pointers, and large
// allocations lie next to each other, so a few 1 GiB buffers (address space only: nothing touches
// their pages but the sorts) always include one that crosses such a boundary; the sorts then place
// their ranges in it so that the boundary falls inside keys, values or scratch at several places, and
// are checked byte for byte. Every algorithm, GPU shapes (pretend.gpu: the single pass's state regions
// of many small tiles) and the CPU driver's, keys with values and records.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>
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

enum class Across { keys, values, scratch };
const char* to_string(Across a) { return a == Across::keys ? "keys" : a == Across::values ? "values" : "scratch"; }

// Sorts n keys of `sorter` with its keys, values and scratch in `s`, the range `across` placed so that
// the 4 GiB boundary lies `fraction` of the way into it (rounded to 8 bytes), the others after it;
// "" when keys and values (records) equal the reference.
std::string sort_across(Device& gpu, Sorter& sorter, Straddling& s, uint64_t n, Across across, double fraction, uint64_t seed) {
  const SortOptions& o = sorter.options();
  const uint32_t vb = o.value_bytes;
  const VkDeviceSize key_bytes = n * vksort::key_bytes(o.key), value_bytes = n * vb, scratch_bytes = sorter.scratch_bytes(n);
  const VkDeviceSize chosen = across == Across::keys ? key_bytes : across == Across::values ? value_bytes : scratch_bytes;
  const VkDeviceSize chosen_at = s.boundary - VkDeviceSize(double(chosen) * fraction) / 8 * 8;
  VkDeviceSize next = round_up(chosen_at + std::max<VkDeviceSize>(chosen, 8), 256);  // the others follow it
  auto place = [&](Across which, VkDeviceSize bytes) {
    if (which == across) return chosen_at;
    const VkDeviceSize here = next;
    next = round_up(here + std::max<VkDeviceSize>(bytes, 8), 256);
    return here;
  };
  const VkDeviceSize keys_at = place(Across::keys, key_bytes);
  const VkDeviceSize values_at = vb ? place(Across::values, value_bytes) : 0;
  const VkDeviceSize scratch_at = place(Across::scratch, scratch_bytes);
  REQUIRE(next <= s.buffer.size());

  std::vector<std::byte> keys = workloads::generate_keys(o.key, {Distribution::uniform, 0}, n, seed);
  const std::vector<uint32_t> words = workloads::generate_values(n * (vb / 4));  // every word distinct
  std::vector<std::byte> values(value_bytes);
  if (!values.empty()) std::memcpy(values.data(), words.data(), values.size());
  s.buffer.upload(keys, keys_at);
  if (vb) s.buffer.upload(values, values_at);

  const VkBuffer b = s.buffer.vk_buffer();
  const SortBuffers buffers{{b, keys_at, key_bytes}, vb ? BufferRef{b, values_at, value_bytes} : BufferRef{},
                            {b, scratch_at, scratch_bytes}};
  test::AppCommands app(gpu);
  const Status status = sorter.record(app.cmd(), buffers, n);
  if (!status.ok()) return "record: " + status.message;
  app.submit_and_wait();

  std::vector<std::byte> expected = keys, expected_values(values.size());
  std::vector<uint32_t> from = workloads::generate_values(n);  // the original index of each place
  workloads::reference_sort(o.key, o.order, expected, from);
  if (vb)
    for (uint64_t i = 0; i < n; ++i) std::memcpy(&expected_values[i * vb], &values[uint64_t(from[i]) * vb], vb);
  s.buffer.download(keys, keys_at);
  if (vb) s.buffer.download(values, values_at);
  const std::string keys_differ = workloads::first_difference(o.key, expected, keys);
  if (!keys_differ.empty()) return "keys: " + keys_differ;
  if (values != expected_values) return "values differ";
  return "";
}

SortOptions options(Key key, uint32_t value_bytes, Algorithm algorithm) {
  return {.key = key, .algorithm = algorithm, .value_bytes = value_bytes};
}

// Every range across the boundary, the scratch at several places (where the single pass's two state
// regions and the key copies lie depends on n and the tiles).
void sort_every_way_across(Device& gpu, Straddling& s, Sorter& sorter, uint64_t n, uint64_t& seed) {
  const SortOptions& o = sorter.options();
  std::vector<std::pair<Across, double>> ways = {{Across::keys, 0.5}, {Across::scratch, 0.125}, {Across::scratch, 0.375},
                                                 {Across::scratch, 0.625}, {Across::scratch, 0.875}};
  if (o.value_bytes) ways.push_back({Across::values, 0.5});
  for (const auto& [across, fraction] : ways) {
    INFO(to_string(o.key), " ", to_string(sorter.algorithm()), " values ", o.value_bytes, " radix scan ",
         to_string(o.tuning.radix_scan), " ranking ", to_string(o.tuning.radix_ranking), " n ", n, " tile ",
         sorter.tile_size(), ": ", to_string(across), " across at ", fraction);
    CHECK(sort_across(gpu, sorter, s, n, across, fraction, seed++) == "");
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
