// SPDX-License-Identifier: MIT
// Segmented sort (vksort/segmented.hpp) against the CPU reference: each segment stably sorted on its
// own (workloads::reference_sort per segment), keys and values byte for byte, for every key type, both
// orders, keys alone, 32-bit values and records, and segment layouts that break things: empty segments,
// one segment, every key its own segment, segments crossing tile boundaries, tiny ones beside a huge
// one, small segments of every size up to the small-segment kernel's tile and one past it. Then the
// recording path with offsets that a GPU pass writes in the same command buffer (also with the promised
// largest segment that selects the small-segment kernel), and refused offsets. Composed (segment, key)
// keys for 32-bit keys: forced and by the automatic choice, on both paths, also on a pretend GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <tuple>

#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"
#include "api/internals.hpp"

using namespace vksort;
using workloads::Distribution;

namespace {

constexpr Key all_keys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};

// Values (value_bytes per key) whose every word differs: word w of value i is i * 64 + w.
std::vector<std::byte> make_values(uint64_t n, uint32_t value_bytes) {
  std::vector<uint32_t> w(n * value_bytes / 4);
  for (uint64_t i = 0; i < w.size(); ++i) w[i] = uint32_t((i / (value_bytes / 4)) * 64 + i % (value_bytes / 4));
  std::vector<std::byte> bytes(w.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), w.data(), bytes.size());
  return bytes;
}

// Each segment stably sorted on its own; values moved by the same permutation.
void reference_segmented(Key key, Order order, std::vector<std::byte>& keys, std::vector<std::byte>& values,
                         uint32_t value_bytes, const std::vector<uint32_t>& offsets) {
  const uint32_t kb = key_bytes(key);
  const std::vector<std::byte> in_values = values;
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    const uint32_t begin = offsets[s], end = offsets[s + 1];
    std::vector<uint32_t> from(end - begin);
    std::iota(from.begin(), from.end(), begin);
    workloads::reference_sort(key, order, std::span(keys).subspan(uint64_t(begin) * kb, uint64_t(end - begin) * kb), from);
    for (uint32_t i = begin; i < end; ++i)
      std::memcpy(&values[uint64_t(i) * value_bytes], &in_values[uint64_t(from[i - begin]) * value_bytes], value_bytes);
  }
}

// Segment layouts over n keys (offsets, segments + 1 entries).
std::vector<uint32_t> offsets_of(const std::vector<uint32_t>& sizes) {
  std::vector<uint32_t> o{0};
  for (uint32_t s : sizes) o.push_back(o.back() + s);
  return o;
}

struct Layout {
  const char* name;
  std::vector<uint32_t> offsets;
};

std::vector<Layout> layouts() {
  std::mt19937 rng(7);
  std::vector<uint32_t> mixed;  // tiny (empty included) segments around one huge one
  for (int i = 0; i < 40; ++i) mixed.push_back(rng() % 5);
  mixed.push_back(5000);
  for (int i = 0; i < 40; ++i) mixed.push_back(rng() % 40);
  // More than 64 segments above any device's small-segment tile (at most 2048 keys): the general path.
  std::vector<uint32_t> many_large;
  for (int i = 0; i < 65; ++i) many_large.push_back(2049 + rng() % 60);
  std::vector<uint32_t> crossing;  // sizes around common tile sizes (256, 1024, 2048 keys)
  for (uint32_t s : {255u, 257u, 1023u, 1025u, 2047u, 2049u, 1u, 0u, 3u}) crossing.push_back(s);
  // Every size class up to 2048 keys, lavapipe's small-segment tile (other devices: the general path).
  std::vector<uint32_t> small;
  for (uint32_t s : {0u, 1u, 2u, 3u, 5u, 8u, 15u, 16u, 17u, 31u, 33u, 63u, 64u, 65u, 100u, 127u, 128u, 129u, 255u, 256u,
                     257u, 511u, 513u, 1023u, 1024u, 1025u, 2047u, 2048u, 0u, 7u})
    small.push_back(s);
  return {{"n = 0", {0}},
          {"n = 0 in three empty segments", {0, 0, 0, 0}},
          {"n = 1", {0, 1}},
          {"one segment", offsets_of({3001})},
          {"every key its own segment", offsets_of(std::vector<uint32_t>(700, 1))},
          {"empty segments between", offsets_of({0, 10, 0, 0, 300, 0, 1, 0})},
          {"crossing tile boundaries", offsets_of(crossing)},
          // Few and large (at least 1024 keys a segment on average): the host path sorts each on its own,
          // at padded positions (odd sizes move the next segment's start).
          {"a few large segments", offsets_of({2049, 1, 3001, 0, 1499, 2})},
          // Small ones through the small-segment kernel, the huge one sorted on its own (whole keys).
          {"tiny and huge", offsets_of(mixed)},
          {"65 segments above the tile", offsets_of(many_large)},
          {"small segments of every size up to the tile", offsets_of(small)}};
}

// "" when segmented_sort_host matches the reference byte for byte. Sets *small_kernel to whether the
// small-segment kernel sorted them, *apart to how many segments were sorted one by one beside it and
// *composed to whether composed keys sorted them (the host path's facts).
std::string check_segmented(const SortOptions& o, const std::vector<uint32_t>& offsets, uint64_t seed,
                            bool* small_kernel = nullptr, double* apart = nullptr,
                            SegmentedPath path = SegmentedPath::automatic, bool* composed = nullptr) {
  const uint64_t n = offsets.back();
  const Distribution d = is_floating(o.key) && seed % 2 ? Distribution::special : Distribution::few_unique;
  std::vector<std::byte> keys = workloads::generate_keys(o.key, {d, workloads::default_param(d)}, n, seed);
  std::vector<std::byte> values = make_values(n, o.value_bytes ? o.value_bytes : 4);
  std::vector<std::byte> expected_keys = keys, expected_values = values;
  reference_segmented(o.key, o.order, expected_keys, expected_values, o.value_bytes ? o.value_bytes : 4, offsets);
  const SortStats stats = segmented_sort_host(test::device(), keys.data(), n, o.value_bytes ? values.data() : nullptr,
                                              o.value_bytes, offsets.data(), offsets.size() - 1, o, path);
  if (small_kernel)
    *small_kernel = std::any_of(stats.facts.begin(), stats.facts.end(),
                                [](const auto& f) { return f.first == "small_segment_kernel" && f.second == 1.0; });
  if (apart)
    for (const auto& [name, value] : stats.facts)
      if (name == "sorted_apart") *apart = value;
  if (composed) *composed = stats.fact("composed_keys") == 1.0;
  const std::string diff = workloads::first_difference(o.key, expected_keys, keys);
  if (!diff.empty()) return "keys: " + diff;
  if (o.value_bytes && values != expected_values) return "values differ";
  return "";
}

}  // namespace

TEST_CASE("segmented sort: every key type and order, keys alone, values and records, every segment layout") {
  uint64_t seed = 0;
  for (const Key key : all_keys)
    for (const Order order : {Order::ascending, Order::descending}) {
      const uint32_t value_bytes = std::array{0u, 4u, 12u}[(uint32_t(key) + uint32_t(order)) % 3];
      const SortOptions o{.key = key, .order = order, .value_bytes = value_bytes};
      for (const Layout& l : layouts()) {
        const std::string diff = check_segmented(o, l.offsets, ++seed);
        CHECK_MESSAGE(diff.empty(), to_string(key), " ", to_string(order), " value_bytes=", value_bytes, " ", l.name,
                      ": ", diff);
      }
    }
}

TEST_CASE("segmented sort: every algorithm, on every host path (small segments; a huge one among tiny ones; many large)") {
  const auto all = layouts();
  for (const auto& l : {all.back(), all[all.size() - 2], all[all.size() - 3]})
    for (const Algorithm a : {Algorithm::radix, Algorithm::brick, Algorithm::sample})
      for (const uint32_t vb : {0u, 4u, 8u}) {
        const std::string diff = check_segmented({.key = Key::f32, .order = Order::descending, .algorithm = a,
                                                  .value_bytes = vb}, l.offsets, 3);
        CHECK_MESSAGE(diff.empty(), l.name, " ", to_string(a), " value_bytes=", vb, ": ", diff);
      }
}

TEST_CASE("segmented sort: the typed API") {
  std::vector<int32_t> k = {5, -1, 5, 2, 9, 0, -7, 3};
  std::vector<uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<uint32_t> offsets = {0, 3, 3, 8};
  segmented_sort(test::device(), std::span(k), std::span(v), std::span(offsets));
  CHECK(k == std::vector<int32_t>{-1, 5, 5, -7, 0, 2, 3, 9});
  CHECK(v == std::vector<uint32_t>{1, 0, 2, 6, 5, 3, 7, 4});
  segmented_sort(test::device(), std::span(k), std::span(offsets), {.order = Order::descending});
  CHECK(k == std::vector<int32_t>{5, 5, -1, 9, 3, 2, 0, -7});
}

// Keys and values came back by two downloads: a device lost between them left the caller's keys sorted
// beside values that were not (the pairs parted), on every host path.
TEST_CASE("a segmented sort that fails leaves keys and values as they were: never one sorted without the other") {
  struct Case {
    std::vector<uint32_t> offsets;
    SegmentedPath path;
    std::string fact;  // the path the case takes, when it completes
  };
  const Case cases[] = {{{0, 2, 5, 900, 1000}, SegmentedPath::by_size, "small_segment_kernel"},
                        {{0, 3, 3000}, SegmentedPath::by_size, "sorted_apart"},
                        {{0, 2, 5, 900, 1000}, SegmentedPath::composed_keys, "composed_keys"}};
  for (const Case& c : cases) {
    bool sorted = false;
    for (uint32_t lose_after = 1; !sorted && lose_after < 16; ++lose_after) {
      CAPTURE(c.fact);
      CAPTURE(lose_after);
      DeviceOptions options = test::options_like_device();
      options.pretend.lose_device_after = lose_after;  // every submission from this one on fails
      Device gpu(options);
      const uint32_t n = c.offsets.back();
      std::vector<uint32_t> keys(n), values(n);
      for (uint32_t i = 0; i < n; ++i) keys[i] = (i * 2654435761u) >> 20, values[i] = i;
      const std::vector<uint32_t> keys_before = keys, values_before = values;
      try {
        const SortStats stats =
            segmented_sort(gpu, std::span(keys), std::span(values), std::span<const uint32_t>(c.offsets), {}, c.path);
        sorted = true;
        CHECK(stats.fact(c.fact).value_or(0) >= 1.0);
        for (uint32_t i = 0; i < n; ++i) REQUIRE(keys[i] == keys_before[values[i]]);
        for (size_t s = 0; s + 1 < c.offsets.size(); ++s)
          CHECK(std::is_sorted(keys.begin() + c.offsets[s], keys.begin() + c.offsets[s + 1]));
      } catch (const Error& e) {
        CHECK(e.code() == Status::Code::device_lost);
        CHECK(keys == keys_before);
        CHECK(values == values_before);
      }
    }
    CHECK(sorted);
  }
}

TEST_CASE("segmented sort on the recording path: offsets written by the GPU in the same command buffer") {
  Device& gpu = test::device();
  // 64-bit keys: the general path; 32-bit keys: composed keys (the automatic choice without a promise).
  for (const Key key : {Key::u64, Key::i32}) {
    CAPTURE(to_string(key));
    const uint32_t kb = key_bytes(key);
    const SortOptions o{.key = key, .value_bytes = 4};
    SegmentedSorter sorter(gpu, o);
    CHECK(sorter.path() == (kb == 4 ? SegmentedPath::composed_keys : SegmentedPath::by_size));
    std::vector<uint32_t> sizes;
    for (uint32_t i = 0; i < 300; ++i) sizes.push_back(i % 7 == 0 ? 0 : (i * 37) % 29);
    sizes.push_back(3000);
    const std::vector<uint32_t> offsets = offsets_of(sizes);
    const uint64_t n = offsets.back(), segments = offsets.size() - 1;
    const auto input = workloads::generate_keys(key, {Distribution::few_unique, 50}, n, 11);
    const auto input_values = make_values(n, 4);
    Buffer keys(gpu, n * kb, "keys"), values(gpu, n * 4, "values"), staged(gpu, offsets.size() * 4, "staged offsets");
    Buffer device_offsets(gpu, offsets.size() * 4, "offsets"), scratch(gpu, sorter.scratch_bytes(n, segments), "scratch");
    keys.upload(input);
    values.upload(input_values);
    staged.upload(std::as_bytes(std::span(offsets)));
    test::AppCommands app(gpu);
    // The application's pass writes the offsets (zeroes them, then copies them in): at record time their
    // contents are not known, and the sort reads them only when it runs.
    vksort::detail::context_of(gpu).vk.vkCmdFillBuffer(app.cmd(), device_offsets.vk_buffer(), 0, VK_WHOLE_SIZE, 0);
    app.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{0, 0, offsets.size() * 4};
    vksort::detail::context_of(gpu).vk.vkCmdCopyBuffer(app.cmd(), staged.vk_buffer(), device_offsets.vk_buffer(), 1, &region);
    app.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const Status s = sorter.record(app.cmd(), {keys.ref(), values.ref(), scratch.ref()}, device_offsets.ref(), segments, n);
    REQUIRE_MESSAGE(s.ok(), s.message);
    app.submit_and_wait();
    std::vector<std::byte> got(n * kb), got_values(n * 4);
    keys.download(got);
    values.download(got_values);
    std::vector<std::byte> expected = input, expected_values = input_values;
    reference_segmented(key, Order::ascending, expected, expected_values, 4, offsets);
    CHECK_MESSAGE(workloads::first_difference(key, expected, got).empty(), workloads::first_difference(key, expected, got));
    CHECK(got_values == expected_values);
  }
}

TEST_CASE("segmented sort refuses bad offsets and arguments, leaving the data alone") {
  Device& gpu = test::device();
  std::vector<uint32_t> keys = {3, 1, 2, 0}, values = {0, 1, 2, 3};
  const std::vector<uint32_t> before = keys;
  auto sort = [&](std::vector<uint32_t> offsets) {
    return segmented_sort(gpu, std::span(keys), std::span(values), std::span<const uint32_t>(offsets));
  };
  CHECK_THROWS_WITH_AS(sort({1, 4}), doctest::Contains("offsets[0] must be 0"), Error);
  CHECK_THROWS_WITH_AS(sort({0, 3, 2, 4}), doctest::Contains("must not decrease"), Error);
  CHECK_THROWS_WITH_AS(sort({0, 2, 3}), doctest::Contains("must be n = 4"), Error);
  CHECK_THROWS_WITH_AS(sort({0, 2, 5}), doctest::Contains("must be n = 4"), Error);
  CHECK_THROWS_WITH_AS(sort({}), doctest::Contains("segments + 1"), Error);
  CHECK(keys == before);
  CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, keys.data(), 4, nullptr, 0, nullptr, 1, {}), doctest::Contains("offsets is a null"), Error);
  CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, keys.data(), 4, values.data(), 6, std::array<uint32_t, 2>{0, 4}.data(), 1, {}),
                       doctest::Contains("value_bytes"), Error);
  // More segments than 32-bit offsets allow are refused before segments + 1 offsets are read: 2^62
  // wrapped (segments + 1) * 4 and read past a one-entry copy of the offsets, 2^32 - 1 past the array.
  for (const uint64_t segments : {uint64_t(UINT32_MAX), uint64_t(1) << 62, ~uint64_t(0)}) {
    CAPTURE(segments);
    CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, keys.data(), 4, nullptr, 0, std::array<uint32_t, 2>{0, 4}.data(),
                                             segments, {}),
                         doctest::Contains("at most 2^32 - 2 segments"), Error);
  }
  CHECK(keys == before);
  for (const uint32_t value_bytes : {2u, 6u, 260u})
    CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, {.value_bytes = value_bytes}),
                         doctest::Contains("SegmentedSorter: SortOptions::value_bytes must be 0"), Error);
  // Recording path: a Status, nothing recorded.
  SegmentedSorter sorter(gpu, {});
  Buffer k(gpu, 64, "keys"), off(gpu, 64, "offsets"), scratch(gpu, sorter.scratch_bytes(16, 3), "scratch");
  test::AppCommands app(gpu);
  CHECK(!sorter.record(app.cmd(), {k.ref(), {}, scratch.ref()}, off.ref(), 0, 16).ok());   // no segment
  CHECK(!sorter.record(app.cmd(), {k.ref(), {}, scratch.ref()}, off.ref(), 16, 16).ok());  // offsets too small
  CHECK(!sorter.record(app.cmd(), {k.ref(), {}, scratch.ref()}, k.ref(), 3, 16).ok());     // offsets overlap keys
  CHECK(!sorter.record(app.cmd(), {k.ref(), {}, {scratch.vk_buffer(), 0, 8}}, off.ref(), 3, 16).ok());
  app.submit_and_wait();
}

TEST_CASE("segmented sort: a few large segments are sorted one by one, the small ones beside them by the kernel") {
  std::vector<uint32_t> keys(140000);
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = (i * 2654435761u) >> 7;
  const uint32_t limit = SegmentedSorter(test::device(), {.key = Key::u32}).small_segment_limit();
  // Two segments: the host path sorts each (the first one too where the tile holds 2047 keys).
  const std::vector<uint32_t> few = {0, 2047, 4096};
  // Many small segments and one too large for the small-segment kernel: the kernel, and one sort apart.
  std::vector<uint32_t> sizes(100, 8);
  sizes.push_back(4096 - 800);
  const std::vector<uint32_t> mixed = offsets_of(sizes);
  // More than 64 segments above the tile: the general path.
  std::vector<uint32_t> large_sizes(65, limit + 1);
  large_sizes.push_back(uint32_t(keys.size()) - 65 * (limit + 1));
  const std::vector<uint32_t> many_large = offsets_of(large_sizes);
  REQUIRE(many_large.back() == keys.size());
  // The paths without composed keys (which automatic takes for many large segments, and on a CPU device
  // for a segment of 2047 keys beside one of 2049: see the composed keys' test case).
  std::vector<uint32_t> a(keys.begin(), keys.begin() + 4096), b = a, c = keys, d = keys;
  const SortStats each = segmented_sort(test::device(), std::span(a), std::span(few), {}, SegmentedPath::by_size);
  const SortStats apart = segmented_sort(test::device(), std::span(b), std::span<const uint32_t>(mixed), {}, SegmentedPath::by_size);
  const SortStats whole = segmented_sort(test::device(), std::span(c), std::span<const uint32_t>(many_large), {}, SegmentedPath::by_size);
  const SortStats composed = segmented_sort(test::device(), std::span(d), std::span<const uint32_t>(many_large));
  // Tiny segments beside the large one: no tile kernel, so automatic sorts the large one apart too.
  std::vector<uint32_t> e(keys.begin(), keys.begin() + 4096);
  const SortStats apart_automatic = segmented_sort(test::device(), std::span(e), std::span<const uint32_t>(mixed));
  auto sorted_in = [](const std::vector<uint32_t>& v, const std::vector<uint32_t>& offsets) {
    for (size_t s = 0; s + 1 < offsets.size(); ++s)
      if (!std::is_sorted(v.begin() + offsets[s], v.begin() + offsets[s + 1])) return false;
    return true;
  };
  CHECK(sorted_in(a, few));
  CHECK(sorted_in(b, mixed));
  CHECK(sorted_in(c, many_large));
  CHECK(d == c);
  CHECK(e == b);
  auto fact = [](const SortStats& s, const char* name) {
    for (const auto& [key, value] : s.facts)
      if (key == name) return value;
    return -1.0;
  };
  CHECK(fact(apart, "sorted_apart") == 1);
  CHECK(fact(apart, "small_segment_kernel") == 1);
  CHECK(fact(whole, "sorted_apart") == 0);
  CHECK(fact(whole, "small_segment_kernel") == 0);
  CHECK(fact(whole, "composed_keys") == 0);
  CHECK(fact(composed, "composed_keys") == 1);
  CHECK(fact(composed, "sorted_apart") == 0);
  CHECK(fact(apart_automatic, "sorted_apart") == 1);
  CHECK(fact(apart_automatic, "composed_keys") == 0);
  auto has = [](const SortStats& s, const char* phase) {
    return std::any_of(s.phases_ms.begin(), s.phases_ms.end(), [&](const auto& p) { return p.first == phase; });
  };
  if (!each.timed()) return;  // no timestamps, no phases to tell the paths apart (the results are checked above)
  CHECK(has(each, "sort each"));
  CHECK(!has(each, "segment ids"));
  CHECK(has(apart, "sort segments in tiles"));
  CHECK(has(apart, "sort each"));
  CHECK(!has(apart, "segment ids"));
  CHECK(has(whole, "segment ids"));
  CHECK(has(composed, "sort composed keys"));
  CHECK(!has(composed, "segment ids"));
}

// Offsets and the key count both written by a GPU pass (SegmentedSorter::record_indirect): one recording,
// submitted again for each count, sorts the first min(count, max_n) keys in their segments cut at the
// count; the keys and values past it stay as they were.
TEST_CASE("segmented sort with a GPU-side count: one recording, any count up to max_n") {
  Device& gpu = test::device();
  for (const SegmentedPath path : {SegmentedPath::automatic, SegmentedPath::by_size}) {
    CAPTURE(path == SegmentedPath::by_size);
    SegmentedSorter sorter(gpu, {.key = Key::i32, .order = Order::descending, .value_bytes = 4}, 0, path);
    // 32-bit keys and no promise: composed keys, unless by_size (the general path) is asked for.
    CHECK(sorter.path() == (path == SegmentedPath::by_size ? SegmentedPath::by_size : SegmentedPath::composed_keys));
    const std::vector<uint32_t> offsets = offsets_of({100, 0, 1000, 7, 1, 2500, 300});
    const uint64_t max_n = offsets.back(), segments = offsets.size() - 1;
    const auto input = workloads::generate_keys(Key::i32, {Distribution::few_unique, 40}, max_n, 4);
    const auto input_values = make_values(max_n, 4);
    Buffer keys(gpu, max_n * 4, "keys"), values(gpu, max_n * 4, "values"), count(gpu, 4, "count");
    Buffer device_offsets(gpu, offsets.size() * 4, "offsets");
    Buffer scratch(gpu, sorter.scratch_bytes_indirect(max_n, segments), "scratch");
    device_offsets.upload(std::as_bytes(std::span(offsets)));
    test::AppCommands app(gpu);
    const Status s = sorter.record_indirect(app.cmd(), {keys.ref(), values.ref(), scratch.ref()}, device_offsets.ref(),
                                            segments, count.ref(), max_n);
    REQUIRE_MESSAGE(s.ok(), s.message);
    bool first = true;
    for (const uint32_t c : {0u, 1u, 99u, 1107u, 1300u, uint32_t(max_n), uint32_t(max_n) + 50}) {
      CAPTURE(c);
      keys.upload(input);
      values.upload(input_values);
      count.upload(std::as_bytes(std::span(&c, 1)));
      if (first) app.submit_and_wait();
      else app.submit_again_and_wait();
      first = false;
      std::vector<std::byte> got(max_n * 4), got_values(max_n * 4);
      keys.download(got);
      values.download(got_values);
      const uint32_t sorted = std::min<uint32_t>(c, uint32_t(max_n));
      std::vector<uint32_t> cut;
      for (uint32_t o : offsets) cut.push_back(std::min(o, sorted));
      std::vector<std::byte> expected(input.begin(), input.begin() + sorted * 4);
      std::vector<std::byte> expected_values(input_values.begin(), input_values.begin() + sorted * 4);
      reference_segmented(Key::i32, Order::descending, expected, expected_values, 4, cut);
      expected.insert(expected.end(), input.begin() + sorted * 4, input.end());
      expected_values.insert(expected_values.end(), input_values.begin() + sorted * 4, input_values.end());
      CHECK_MESSAGE(workloads::first_difference(Key::i32, expected, got).empty(), workloads::first_difference(Key::i32, expected, got));
      CHECK(got_values == expected_values);
    }
    // Brick sort has no GPU-side count: a Status, nothing recorded.
    SegmentedSorter brick(gpu, {.algorithm = Algorithm::brick});
    CHECK(brick.scratch_bytes_indirect(max_n, segments) == 0);
    test::AppCommands other(gpu);
    CHECK(!brick.record_indirect(other.cmd(), {keys.ref(), {}, scratch.ref()}, device_offsets.ref(), segments, count.ref(),
                                 max_n).ok());
    CHECK(!sorter.record_indirect(other.cmd(), {keys.ref(), values.ref(), scratch.ref()}, device_offsets.ref(), segments,
                                  {}, max_n).ok());  // no count buffer
    other.submit_and_wait();
  }
}

// The small-segment kernel: segments of 0 .. limit keys (the limit exactly, and limit + 1 beside them
// sending the call to the general path), every key type, both orders, keys alone, values and records.
// Without composed keys (SegmentedPath::by_size), which a CPU device would take for the large tiles.
TEST_CASE("segmented sort: many small segments take the small-segment kernel, one segment a key larger is sorted apart") {
  for (const Key key : all_keys) {
    const uint32_t limit = SegmentedSorter(test::device(), {.key = key}).small_segment_limit();
    REQUIRE(limit >= 64);
    std::mt19937 rng{uint32_t(key)};
    std::vector<uint32_t> sizes;
    for (int i = 0; i < 200; ++i) sizes.push_back(rng() % 70);
    sizes.push_back(limit);
    for (const bool over : {false, true})
      for (const Order order : {Order::ascending, Order::descending}) {
        std::vector<uint32_t> these = sizes;
        if (over) these.push_back(limit + 1);
        const uint32_t value_bytes = std::array{0u, 4u, 12u}[(uint32_t(key) + uint32_t(order) + over) % 3];
        bool small = false;
        double apart = -1;
        const std::string diff = check_segmented({.key = key, .order = order, .value_bytes = value_bytes},
                                                 offsets_of(these), 20 + uint32_t(key), &small, &apart,
                                                 SegmentedPath::by_size);
        CHECK_MESSAGE(diff.empty(), to_string(key), " ", to_string(order), " value_bytes=", value_bytes, " over=", over,
                      ": ", diff);
        // The one large segment is sorted on its own where it has 1024 keys or more (a tile of 1024 or
        // 2048 keys, as on lavapipe); a smaller one costs less on the general path.
        const bool sorted_apart = over && limit + 1 >= 1024;
        CHECK_MESSAGE(small == (!over || sorted_apart), to_string(key), " over=", over);
        CHECK_MESSAGE(apart == (sorted_apart ? 1.0 : 0.0), to_string(key), " over=", over);
      }
  }
}

// The recording path with the promise (SegmentedSorter's max_segment_keys): offsets written by a GPU
// pass, 12-byte records, any algorithm (the kernel needs no key sort), a GPU-side count cutting segments;
// a segment above the promise stays as it was, its records too. The same with composed keys forced
// (radix sort only), which sort that segment too.
TEST_CASE("segmented sort on the recording path with max_segment_keys: the small-segment kernel") {
  Device& gpu = test::device();
  CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, {}, 1u << 20), doctest::Contains("max_segment_keys"), Error);
  CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, {.end_bit = 8}, 64), doctest::Contains("bit range"), Error);
  // The host path with a bit range keeps the general path: stable by the low 4 bits only.
  std::vector<uint32_t> k(3000), expected;
  for (uint32_t i = 0; i < k.size(); ++i) k[i] = (i * 2654435761u) >> 3;
  const std::vector<uint32_t> few_bits = offsets_of({1000, 7, 1993});
  expected = k;
  for (size_t seg = 0; seg + 1 < few_bits.size(); ++seg)
    std::stable_sort(expected.begin() + few_bits[seg], expected.begin() + few_bits[seg + 1],
                     [](uint32_t a, uint32_t b) { return (a & 15) < (b & 15); });
  segmented_sort(gpu, std::span(k), std::span<const uint32_t>(few_bits), {.end_bit = 4});
  CHECK(k == expected);
  for (const auto& [a, path] : {std::pair{Algorithm::radix, SegmentedPath::by_size},
                                 std::pair{Algorithm::brick, SegmentedPath::by_size},
                                 std::pair{Algorithm::radix, SegmentedPath::composed_keys}}) {
    CAPTURE(a);
    CAPTURE(path == SegmentedPath::composed_keys);
    const SortOptions o{.key = Key::f32, .order = Order::descending, .algorithm = a, .value_bytes = 12};
    SegmentedSorter sorter(gpu, o, 300, path);
    CHECK(sorter.path() == path);
    std::vector<uint32_t> sizes;
    for (uint32_t i = 0; i < 400; ++i) sizes.push_back(i % 9 == 0 ? 0 : (i * 37) % 301);
    sizes.push_back(301);  // above the promise: left alone
    sizes.push_back(5);
    const std::vector<uint32_t> offsets = offsets_of(sizes);
    const uint64_t max_n = offsets.back(), segments = offsets.size() - 1;
    const auto input = workloads::generate_keys(Key::f32, {Distribution::special, workloads::default_param(Distribution::special)}, max_n, 13);
    const auto input_values = make_values(max_n, 12);
    Buffer keys(gpu, max_n * 4, "keys"), values(gpu, max_n * 12, "values"), count(gpu, 4, "count");
    Buffer staged(gpu, offsets.size() * 4, "staged offsets"), device_offsets(gpu, offsets.size() * 4, "offsets");
    Buffer scratch(gpu, std::max(sorter.scratch_bytes(max_n, segments), sorter.scratch_bytes_indirect(max_n, segments)),
                   "scratch");
    staged.upload(std::as_bytes(std::span(offsets)));
    for (const uint32_t c : {uint32_t(max_n), 5000u, 0u}) {  // max_n: record(); the others: record_indirect()
      CAPTURE(c);
      keys.upload(input);
      values.upload(input_values);
      count.upload(std::as_bytes(std::span(&c, 1)));
      test::AppCommands app(gpu);
      auto& vk = vksort::detail::context_of(gpu).vk;
      vk.vkCmdFillBuffer(app.cmd(), device_offsets.vk_buffer(), 0, VK_WHOLE_SIZE, 0);
      app.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT);
      VkBufferCopy region{0, 0, offsets.size() * 4};
      vk.vkCmdCopyBuffer(app.cmd(), staged.vk_buffer(), device_offsets.vk_buffer(), 1, &region);
      app.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      const SortBuffers b{keys.ref(), values.ref(), scratch.ref()};
      const Status s = c == max_n ? sorter.record(app.cmd(), b, device_offsets.ref(), segments, max_n)
                                  : sorter.record_indirect(app.cmd(), b, device_offsets.ref(), segments, count.ref(), max_n);
      REQUIRE_MESSAGE(s.ok(), s.message);
      app.submit_and_wait();
      std::vector<std::byte> got(max_n * 4), got_values(max_n * 12);
      keys.download(got);
      values.download(got_values);
      // The reference: segments cut at the count, the one above the promise not sorted (composed keys: sorted).
      std::vector<uint32_t> cut;
      for (uint32_t x : offsets) cut.push_back(std::min(x, c));
      std::vector<std::byte> expected = input, expected_values = input_values;
      const uint32_t over = uint32_t(segments - 2);
      std::vector<std::byte> expected_part(expected.begin(), expected.begin() + uint64_t(cut.back()) * 4);
      std::vector<std::byte> values_part(expected_values.begin(), expected_values.begin() + uint64_t(cut.back()) * 12);
      for (uint32_t seg = 0; seg < segments; ++seg) {
        if (seg == over && cut[seg + 1] - cut[seg] > 300 && path == SegmentedPath::by_size) continue;
        const std::vector<uint32_t> one = {0, cut[seg + 1] - cut[seg]};
        std::vector<std::byte> k(expected_part.begin() + cut[seg] * 4, expected_part.begin() + cut[seg + 1] * 4);
        std::vector<std::byte> v(values_part.begin() + cut[seg] * 12, values_part.begin() + cut[seg + 1] * 12);
        reference_segmented(Key::f32, Order::descending, k, v, 12, one);
        std::copy(k.begin(), k.end(), expected.begin() + cut[seg] * 4);
        std::copy(v.begin(), v.end(), expected_values.begin() + cut[seg] * 12);
      }
      CHECK_MESSAGE(workloads::first_difference(Key::f32, expected, got).empty(),
                    workloads::first_difference(Key::f32, expected, got));
      CHECK(got_values == expected_values);
    }
  }
}

// Offsets that leave keys outside every segment (offsets[0] > 0, offsets[segments] < n): those keys
// and their values stay where they are. The small-segment kernel wrote the gather's index only inside
// segments, so the values gather read whatever the scratch held there as positions: values unpaired
// or, with junk in the scratch, reads far outside the buffers (a crash on lavapipe).
TEST_CASE("segmented sort with max_segment_keys: keys outside every segment keep their values, whatever the scratch held") {
  Device& gpu = test::device();
  const uint32_t n = 1000;
  SegmentedSorter sorter(gpu, {.value_bytes = 4}, 64);
  REQUIRE(sorter.path() == SegmentedPath::by_size);
  std::vector<uint32_t> input(n);
  for (uint32_t i = 0; i < n; ++i) input[i] = (i * 2654435761u) >> 20;
  const std::vector<std::byte> input_values = make_values(n, 4);
  for (const std::vector<uint32_t>& offsets : {std::vector<uint32_t>{8, 60, 1000}, std::vector<uint32_t>{0, 50, 100},
                                               std::vector<uint32_t>{100, 130, 190, 250, 900}}) {
    CAPTURE(offsets.front());
    CAPTURE(offsets.back());
    const uint32_t segments = uint32_t(offsets.size() - 1);
    Buffer keys(gpu, n * 4, "keys"), values(gpu, n * 4, "values"), device_offsets(gpu, offsets.size() * 4, "offsets");
    Buffer scratch(gpu, sorter.scratch_bytes(n, segments), "scratch");
    keys.upload(std::as_bytes(std::span(input)));
    values.upload(input_values);
    device_offsets.upload(std::as_bytes(std::span(offsets)));
    const std::vector<uint32_t> junk(scratch.size() / 4, 0x40000000u);
    scratch.upload(std::as_bytes(std::span(junk)));
    test::AppCommands app(gpu);
    const Status st = sorter.record(app.cmd(), {keys.ref(), values.ref(), scratch.ref()}, device_offsets.ref(), segments, n);
    REQUIRE_MESSAGE(st.ok(), st.message);
    app.submit_and_wait();
    std::vector<std::byte> expected(n * 4), expected_values = input_values, got(n * 4), got_values(n * 4);
    std::memcpy(expected.data(), input.data(), expected.size());
    // Segments above the promise (64 keys) are left as they are, as the promise allows.
    std::vector<uint32_t> small;
    for (uint32_t seg = 0; seg < segments; ++seg)
      if (offsets[seg + 1] - offsets[seg] <= 64) {
        const std::vector<uint32_t> one = {offsets[seg], offsets[seg + 1]};
        reference_segmented(Key::u32, Order::ascending, expected, expected_values, 4, one);
      }
    keys.download(got);
    values.download(got_values);
    CHECK(got == expected);
    CHECK(got_values == expected_values);
  }
}

// The small-segment kernel's tiny segments, sorted one per invocation (segment_serial.comp; up to 16
// keys on a GPU, 128 on a CPU device) beside the tile kernel: sizes around both limits and around
// subgroup sizes 4..64 (each size +-1), every key type and order; 100k+ segments of 0..8 keys (the
// serial kernel alone) on the host path and on the recording path with a promise of 8 keys.
TEST_CASE("segmented sort: tiny segments sorted one per invocation beside the tile kernel") {
  std::vector<uint32_t> around;
  for (const uint32_t edge : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u})
    for (const uint32_t size : {edge - 1, edge, edge + 1}) around.push_back(size);
  for (const Key key : all_keys)
    for (const Order order : {Order::ascending, Order::descending}) {
      const uint32_t limit = SegmentedSorter(test::device(), {.key = key}).small_segment_limit();
      std::vector<uint32_t> sizes = around;
      sizes.push_back(limit);  // the tile kernel's largest, beside the tiny ones
      sizes.insert(sizes.end(), around.rbegin(), around.rend());
      const uint32_t value_bytes = std::array{0u, 4u, 12u}[(uint32_t(key) + uint32_t(order)) % 3];
      bool small = false;
      const std::string diff = check_segmented({.key = key, .order = order, .value_bytes = value_bytes},
                                               offsets_of(sizes), 40 + uint32_t(key), &small, nullptr,
                                               SegmentedPath::by_size);
      CHECK_MESSAGE(diff.empty(), to_string(key), " ", to_string(order), " value_bytes=", value_bytes, ": ", diff);
      CHECK(small);
    }

  std::mt19937 rng{7};
  std::vector<uint32_t> tiny(120000);
  for (uint32_t& size : tiny) size = rng() % 9;
  const std::vector<uint32_t> offsets = offsets_of(tiny);
  for (const SortOptions o : {SortOptions{.key = Key::u32}, SortOptions{.key = Key::f64, .order = Order::descending, .value_bytes = 12},
                              SortOptions{.key = Key::i32, .value_bytes = 4}}) {
    bool small = false;
    const std::string diff = check_segmented(o, offsets, 50 + uint32_t(o.key), &small);
    CHECK_MESSAGE(diff.empty(), to_string(o.key), ": ", diff);
    CHECK(small);
  }

  // The recording path, promised segments of at most 8 keys: f32 (NaNs of both signs, -0.0) with values.
  Device& gpu = test::device();
  const SortOptions o{.key = Key::f32, .value_bytes = 4};
  SegmentedSorter sorter(gpu, o, 8);
  const uint64_t n = offsets.back(), segments = tiny.size();
  const auto input = workloads::generate_keys(Key::f32, {Distribution::special, workloads::default_param(Distribution::special)}, n, 61);
  std::vector<std::byte> values = make_values(n, 4), expected = input, expected_values = values;
  reference_segmented(o.key, o.order, expected, expected_values, 4, offsets);
  Buffer keys(gpu, n * 4, "keys"), value_buffer(gpu, n * 4, "values"), offset_buffer(gpu, offsets.size() * 4, "offsets");
  Buffer scratch(gpu, sorter.scratch_bytes(n, segments), "scratch");
  keys.upload(input);
  value_buffer.upload(values);
  offset_buffer.upload(std::as_bytes(std::span(offsets)));
  test::AppCommands app(gpu);
  const Status s = sorter.record(app.cmd(), {keys.ref(), value_buffer.ref(), scratch.ref()}, offset_buffer.ref(), segments, n);
  REQUIRE_MESSAGE(s.ok(), s.message);
  app.submit_and_wait();
  std::vector<std::byte> got(n * 4), got_values(n * 4);
  keys.download(got);
  value_buffer.download(got_values);
  CHECK_MESSAGE(workloads::first_difference(Key::f32, expected, got).empty(), workloads::first_difference(Key::f32, expected, got));
  CHECK(got_values == expected_values);
}

// Composed (segment, key) keys (SegmentedPath::composed_keys): forced on the host path for every 32-bit
// key type, both orders, keys alone, values and records, over every layout (empty segments, one
// segment, every key its own, sizes crossing tiles); chosen by automatic for mid-sized segments on a CPU
// device (60k keys in segments of 16..1024, spanning many of the compose kernel's 4096-key blocks), not
// for tiny ones nor for 64-bit keys; refused for options it cannot sort; the recording path's choice.
// (Offsets written by the GPU and a GPU-side count with composed keys: the max_segment_keys and
// GPU-side count test cases.)
TEST_CASE("segmented sort by composed (segment, key) keys: forced and chosen") {
  uint64_t seed = 100;
  for (const Key key : {Key::u32, Key::i32, Key::f32})
    for (const Order order : {Order::ascending, Order::descending}) {
      const uint32_t value_bytes = std::array{0u, 4u, 12u}[(uint32_t(key) + uint32_t(order)) % 3];
      for (const Layout& l : layouts()) {
        bool composed = false;
        const std::string diff = check_segmented({.key = key, .order = order, .value_bytes = value_bytes}, l.offsets,
                                                 ++seed, nullptr, nullptr, SegmentedPath::composed_keys, &composed);
        CHECK_MESSAGE(diff.empty(), to_string(key), " ", to_string(order), " value_bytes=", value_bytes, " ", l.name,
                      ": ", diff);
        CHECK_MESSAGE(composed == (l.offsets.back() > 0), l.name);  // n = 0 sorts nothing, reports nothing
      }
    }

  const bool cpu = test::device().info().type == "cpu";
  std::mt19937 rng{3};
  std::vector<uint32_t> mid;
  for (uint32_t used = 0; used < 60000; used += mid.back()) mid.push_back(16 + rng() % 1009);
  std::vector<uint32_t> tiny(5000);
  for (uint32_t& size : tiny) size = rng() % 9;
  struct Case {
    SortOptions options;
    const std::vector<uint32_t>* sizes;
    bool composed;
  };
  for (const Case& c : {Case{{.key = Key::f32, .order = Order::descending, .value_bytes = 4}, &mid, cpu},
                        Case{{.key = Key::u32}, &mid, cpu}, Case{{.key = Key::i32, .value_bytes = 12}, &tiny, false},
                        Case{{.key = Key::u64}, &mid, false}}) {
    CAPTURE(to_string(c.options.key));
    CAPTURE(c.sizes->size());
    bool composed = !c.composed;
    const std::string diff = check_segmented(c.options, offsets_of(*c.sizes), 7, nullptr, nullptr,
                                             SegmentedPath::automatic, &composed);
    CHECK_MESSAGE(diff.empty(), diff);
    CHECK(composed == c.composed);
  }

  Device& gpu = test::device();
  const std::vector<uint32_t> offsets = {0, 2, 4};
  for (const SortOptions& o : {SortOptions{.key = Key::u64}, SortOptions{.key = Key::u32, .end_bit = 16},
                               SortOptions{.key = Key::f32, .algorithm = Algorithm::sample}}) {
    CAPTURE(to_string(o.key));
    CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, o, 0, SegmentedPath::composed_keys), doctest::Contains("composed_keys needs"),
                         Error);
    std::vector<std::byte> k(4 * key_bytes(o.key), std::byte{7});
    const std::vector<std::byte> before = k;
    CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, k.data(), 4, nullptr, 0, offsets.data(), 2, o, SegmentedPath::composed_keys),
                         doctest::Contains("composed_keys needs"), Error);
    CHECK(k == before);
  }
  // Whole keys were named "bits [0, 0)", an empty range.
  CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, SortOptions{.key = Key::u64}, 0, SegmentedPath::composed_keys),
                       doctest::Contains("these are u64 keys, whole keys, auto sort"), Error);
  CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, SortOptions{.key = Key::u32, .end_bit = 16}, 0, SegmentedPath::composed_keys),
                       doctest::Contains("bits [0, 16)"), Error);
  // A path that names none is refused, not taken for by_size.
  {
    std::vector<uint32_t> k = {3, 1, 2, 0};
    const std::vector<uint32_t> before = k;
    CHECK_THROWS_WITH_AS(SegmentedSorter(gpu, {.key = Key::u32}, 0, SegmentedPath(7)),
                         doctest::Contains("unknown SegmentedPath 7"), Error);
    CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, k.data(), 4, nullptr, 0, offsets.data(), 2, {.key = Key::u32},
                                             SegmentedPath(7)),
                         doctest::Contains("unknown SegmentedPath 7"), Error);
    CHECK(k == before);
  }
  CHECK(SegmentedSorter(gpu, {.key = Key::u32}).path() == SegmentedPath::composed_keys);
  CHECK(SegmentedSorter(gpu, {.key = Key::u32}, 8).path() == SegmentedPath::by_size);
  CHECK(SegmentedSorter(gpu, {.key = Key::f32}, 300).path() == (cpu ? SegmentedPath::composed_keys : SegmentedPath::by_size));
  CHECK(SegmentedSorter(gpu, {.key = Key::u32}, 0, SegmentedPath::by_size).path() == SegmentedPath::by_size);
  CHECK(SegmentedSorter(gpu, {.key = Key::i64}).path() == SegmentedPath::by_size);
  CHECK(SegmentedSorter(gpu, {.key = Key::i32, .algorithm = Algorithm::brick}).path() == SegmentedPath::by_size);
}

// What a GPU gets, on a CPU driver pretending to be one (DeviceOptions::pretend.gpu): mid-sized
// segments stay with the tile kernel (its barriers are cheap on a GPU), composed keys replace only the
// general path, and forced composed keys run the compose kernels' GPU layout (positions a workgroup
// apart); the recording path keeps the small-segment kernels for any promise.
TEST_CASE("segmented sort by composed (segment, key) keys on a pretend GPU: the GPU's choices and layout") {
  DeviceOptions options = test::options_like_device();
  options.pretend.gpu = true;
  Device gpu(options);
  REQUIRE(gpu.info().type != "cpu");
  std::mt19937 rng{5};
  std::vector<uint32_t> mid;
  for (uint32_t used = 0; used < 20000; used += mid.back()) mid.push_back(16 + rng() % 1009);
  std::vector<uint32_t> many_large(70, 2100);
  for (const auto& [sizes, path, composed] :
       {std::tuple{&mid, SegmentedPath::automatic, false}, std::tuple{&mid, SegmentedPath::composed_keys, true},
        std::tuple{&many_large, SegmentedPath::automatic, true}}) {
    for (const SortOptions& o : {SortOptions{.key = Key::f32, .order = Order::descending, .value_bytes = 4},
                                 SortOptions{.key = Key::i32, .value_bytes = 12}}) {
      CAPTURE(to_string(o.key));
      CAPTURE(sizes->size());
      const std::vector<uint32_t> offsets = offsets_of(*sizes);
      const uint64_t n = offsets.back();
      std::vector<std::byte> keys = workloads::generate_keys(o.key, {Distribution::special, workloads::default_param(Distribution::special)}, n, 9);
      if (o.key == Key::i32) keys = workloads::generate_keys(o.key, {Distribution::few_unique, 30}, n, 9);
      std::vector<std::byte> values = make_values(n, o.value_bytes), expected = keys, expected_values = values;
      reference_segmented(o.key, o.order, expected, expected_values, o.value_bytes, offsets);
      const SortStats stats = segmented_sort_host(gpu, keys.data(), n, values.data(), o.value_bytes, offsets.data(),
                                                  offsets.size() - 1, o, path);
      CHECK_MESSAGE(workloads::first_difference(o.key, expected, keys).empty(), workloads::first_difference(o.key, expected, keys));
      CHECK(values == expected_values);
      CHECK(stats.fact("composed_keys") == (composed ? 1.0 : 0.0));
    }
  }
  CHECK(SegmentedSorter(gpu, {.key = Key::f32}, 300).path() == SegmentedPath::by_size);
  CHECK(SegmentedSorter(gpu, {.key = Key::u32}).path() == SegmentedPath::composed_keys);
}


namespace {
// Records one segmented sort of n keys (few unique) with its offsets at byte `offsets_at` of their
// buffer, submits it and returns "" when every (key, value) pair is an input pair used once and, unless
// `any_order`, keys and values match the reference over the offsets with offsets[0] taken as 0 and
// offsets[segments] as n (keys outside every segment sorted with the first or last segment).
std::string check_recorded(SegmentedSorter& sorter, const std::vector<uint32_t>& offsets, uint64_t n,
                           uint64_t offsets_at, bool any_order, uint64_t seed) {
  Device& gpu = test::device();
  const SortOptions o = sorter.options();
  const uint32_t kb = key_bytes(o.key), vb = std::max(o.value_bytes, 4u);
  const uint64_t segments = offsets.size() - 1;
  const auto input = workloads::generate_keys(o.key, {Distribution::few_unique, 20}, n, seed);
  const auto input_values = make_values(n, vb);
  Buffer keys(gpu, n * kb, "keys"), values(gpu, n * vb, "values"), off(gpu, offsets_at + offsets.size() * 4, "offsets");
  Buffer scratch(gpu, sorter.scratch_bytes(n, segments), "scratch");
  keys.upload(input);
  values.upload(input_values);
  std::vector<std::byte> placed(off.size(), std::byte{0xEE});
  std::memcpy(placed.data() + offsets_at, offsets.data(), offsets.size() * 4);
  off.upload(placed);
  test::AppCommands app(gpu);
  const Status s = sorter.record(app.cmd(), {keys.ref(), o.value_bytes ? values.ref() : BufferRef{}, scratch.ref()},
                                 {off.vk_buffer(), offsets_at, offsets.size() * 4}, segments, n);
  if (!s) return "record: " + s.message;
  app.submit_and_wait();
  std::vector<std::byte> got(n * kb), got_values(n * vb);
  keys.download(got);
  values.download(got_values);
  if (o.value_bytes) {
    std::vector<bool> used(n);
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t word = 0;
      std::memcpy(&word, &got_values[i * vb], 4);
      const uint64_t from = word / 64;  // make_values: word w of value i is i * 64 + w
      if (from >= n || used[from]) return "position " + std::to_string(i) + ": a value lost or duplicated";
      used[from] = true;
      if (std::memcmp(&got[i * kb], &input[from * kb], kb) || std::memcmp(&got_values[i * vb], &input_values[from * vb], vb))
        return "position " + std::to_string(i) + ": key and value parted";
    }
  }
  if (any_order) return "";
  std::vector<uint32_t> covering = offsets;
  covering.front() = 0;
  covering.back() = uint32_t(n);
  std::vector<std::byte> expected = input, expected_values = input_values;
  reference_segmented(o.key, o.order, expected, expected_values, vb, covering);
  if (const std::string d = workloads::first_difference(o.key, expected, got); !d.empty()) return "keys: " + d;
  if (o.value_bytes && got_values != expected_values) return "values differ";
  return "";
}
}  // namespace

// The recording path as the header describes it for offsets a user may get wrong, on composed keys
// and the general path, one SegmentedSorter reused across segment counts (new bit widths): offsets at
// a 4-byte (not 8-byte) offset of their buffer; more segments than keys; keys outside every segment
// (offsets[0] > 0, offsets[segments] < n) sorted with the first or last segment; decreasing offsets
// and offsets beyond n losing and duplicating nothing.
TEST_CASE("segmented sort on the recording path: offsets at any 4-byte offset, uncovered keys, offsets out of order") {
  Device& gpu = test::device();
  const uint64_t n = 3000;
  std::vector<uint32_t> empty_but_last(5000, 0);
  empty_but_last.push_back(uint32_t(n));
  for (const Key key : {Key::f32, Key::i64})
    for (const uint32_t vb : {0u, 12u})
      for (const SegmentedPath path : {SegmentedPath::automatic, SegmentedPath::by_size}) {
        SegmentedSorter sorter(gpu, {.key = key, .order = Order::descending, .value_bytes = vb}, 0, path);
        CAPTURE(to_string(key));
        CAPTURE(vb);
        CAPTURE(sorter.path() == SegmentedPath::composed_keys);
        for (const std::vector<uint32_t>& offsets :
             {std::vector<uint32_t>{0, 3000}, std::vector<uint32_t>{0, 1, 2, 3000}, empty_but_last,
              offsets_of(std::vector<uint32_t>(3000, 1)), std::vector<uint32_t>{0, 0, 1500, 1500, 3000, 3000}})
          for (const uint64_t at : {0u, 4u, 12u}) {
            CAPTURE(offsets.size());
            CAPTURE(at);
            const std::string diff = check_recorded(sorter, offsets, n, at, false, offsets.size() + at);
            CHECK_MESSAGE(diff.empty(), diff);
          }
        for (const std::vector<uint32_t>& offsets :
             {std::vector<uint32_t>{100, 500, 2000}, std::vector<uint32_t>{7, 7, 7}, std::vector<uint32_t>{2999, 3000}}) {
          CAPTURE(offsets.front());
          const std::string diff = check_recorded(sorter, offsets, n, 4, false, 5);
          CHECK_MESSAGE(diff.empty(), diff);
        }
        for (const std::vector<uint32_t>& offsets :
             {std::vector<uint32_t>{0, 2000, 100, 3000}, std::vector<uint32_t>{5000, 4000, 0xFFFFFFFFu, 1, 3},
              std::vector<uint32_t>{0, 0xFFFFFFFFu}}) {
          CAPTURE(offsets[1]);
          const std::string diff = check_recorded(sorter, offsets, n, 0, true, 6);
          CHECK_MESSAGE(diff.empty(), diff);
        }
      }
}
