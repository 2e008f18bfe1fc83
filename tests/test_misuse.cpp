// SPDX-License-Identifier: MIT
// Misuse of the public API as a new user would write it (issue 15): each is refused with an error
// that names it, never a crash, garbage or a silent wrong result. Calls given a pretend command buffer
// handle prove that nothing was recorded: recording anything into it would crash.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "support/app_commands.hpp"
#include "support/sort_check.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {
const auto fake_cmd = reinterpret_cast<VkCommandBuffer>(1);

// A VkBuffer of the application's, not made by vksort (no memory bound: only its size is queried).
class RawBuffer {
 public:
  RawBuffer(Device& d, VkDeviceSize bytes) : ctx_(detail::context_of(d)) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    REQUIRE(ctx_.vk.vkCreateBuffer(ctx_.device, &info, nullptr, &buffer_) == VK_SUCCESS);
    VkMemoryRequirements req{};
    ctx_.vk.vkGetBufferMemoryRequirements(ctx_.device, buffer_, &req);
    requirement_ = req.size;
  }
  ~RawBuffer() { ctx_.vk.vkDestroyBuffer(ctx_.device, buffer_, nullptr); }
  VkBuffer get() const { return buffer_; }
  VkDeviceSize requirement() const { return requirement_; }

 private:
  gpu::Context& ctx_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceSize requirement_ = 0;
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("a default-constructed Buffer is empty (buffer.hpp), and refuses copies") {
  Buffer b;
  CHECK(b.size() == 0);
  CHECK(b.vk_buffer() == VK_NULL_HANDLE);
  CHECK(b.ref().empty());
  std::byte x{};
  CHECK_THROWS_AS(b.upload({&x, 1}), Error);
  b = Buffer(test::device(), 16, "moved in");
  CHECK(b.size() == 16);
}

TEST_CASE("to_string is total: values outside an enum are named \"invalid\"") {
  CHECK(to_string(Key(6)) == "invalid");
  CHECK(to_string(Key(0xFFFFFFFFu)) == "invalid");
  CHECK(to_string(Order(5)) == "invalid");
  CHECK(to_string(Algorithm(9)) == "invalid");
  CHECK(to_string(RadixRanking(7)) == "invalid");
  CHECK(to_string(RadixScan(3)) == "invalid");
  CHECK(to_string(Key::f64) == "f64");
  CHECK(to_string(Order::descending) == "descending");
  CHECK(to_string(Algorithm::brick) == "brick");
  CHECK(to_string(RadixRanking::columns) == "columns");
}

TEST_CASE("invalid option values are refused, naming the option, by Sorter and by the host sort") {
  Device& gpu = test::device();
  struct Bad {
    SortOptions options;
    const char* message;
  };
  SortOptions ranking, scan, window{.algorithm = Algorithm::brick};
  ranking.tuning.radix_ranking = RadixRanking(7);
  scan.tuning.radix_scan = RadixScan(3);
  window.tuning.lookback_window = 1000;  // was ignored where the single pass did not run
  const Bad bad[] = {
      {{.key = Key(6)}, "SortOptions::key is 6"},
      {{.order = Order(5)}, "SortOptions::order is 5"},
      {{.algorithm = Algorithm(9)}, "SortOptions::algorithm is 9"},
      {{.algorithm = Algorithm::brick, .brick_variant = BrickVariant(9)}, "SortOptions::brick_variant is 9"},
      {ranking, "SortOptions::tuning.radix_ranking is 7"},
      {scan, "SortOptions::tuning.radix_scan is 3"},
      {window, "SortOptions::tuning: look-back window 1000 must be 1 to 32"},
  };
  std::vector<uint32_t> keys = {3, 1, 2};
  for (const Bad& b : bad) {
    INFO(b.message);
    CHECK_THROWS_WITH_AS(Sorter(gpu, b.options), doctest::Contains(b.message), Error);
    if (b.options.key == Key::element) {  // the default: the typed sort on u32 keys takes these options
      CHECK_THROWS_WITH_AS(sort(gpu, std::span(keys), b.options), doctest::Contains(b.message), Error);
      CHECK(keys == std::vector<uint32_t>{3, 1, 2});  // untouched
    }
    CHECK_THROWS_WITH_AS(sort_host(gpu, keys.data(), keys.size(), static_cast<uint32_t*>(nullptr), b.options),
                         doctest::Contains(b.message), Error);
  }
  BucketOptions o{.buckets = 10, .capacity = 10};
  o.mode = BucketMode(4);
  CHECK_THROWS_WITH_AS(BucketLists(gpu, o), doctest::Contains("BucketOptions::mode is 4"), Error);
  // The Tuning enums, checked for buckets by the same function as for sorts.
  BucketOptions r{.buckets = 10, .capacity = 10}, s{.buckets = 10, .capacity = 10};
  r.tuning.radix_ranking = RadixRanking(7);
  s.tuning.radix_scan = RadixScan(3);
  CHECK_THROWS_WITH_AS(BucketLists(gpu, r), doctest::Contains("BucketOptions::tuning.radix_ranking is 7, not a valid vksort::RadixRanking"), Error);
  CHECK_THROWS_WITH_AS(BucketLists(gpu, s), doctest::Contains("BucketOptions::tuning.radix_scan is 3, not a valid vksort::RadixScan"), Error);
}

// workgroup_size x items_per_thread was multiplied in 32 bits: 2 x 2^31 wrapped to a tile of 0 keys,
// accepted, then a division by zero (radix) or invalid SPIR-V (brick).
TEST_CASE("tuning whose tile (workgroup size x items per thread) overflows 32 bits is refused") {
  Device& gpu = test::device();
  for (Algorithm a : {Algorithm::radix, Algorithm::brick, Algorithm::sample}) {
    for (const auto& [wg, items] : {std::pair{2u, 1u << 31}, std::pair{256u, 1u << 24}}) {
      CAPTURE(to_string(a));
      CAPTURE(items);
      SortOptions o{.algorithm = a};
      o.tuning.workgroup_size = wg;
      o.tuning.items_per_thread = items;
      CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("is more than 2^32 - 1 keys"), Error);
    }
  }
}

// Radix sort took any power of two of keys per invocation: at 65536 an invocation's key loops ran past
// lavapipe's loop limiter (keys lost and repeated; at 2^18 the order check saw nothing and skipped the
// sort as sorted). Beyond 32768 it is refused on every path; at 32768 it sorts, with the tiles' key
// loops at their longest (n between one invocation's keys and a whole tile).
TEST_CASE("radix sort refuses more than 32768 keys per invocation and sorts with 32768") {
  Device& gpu = test::device();
  for (RadixScan scan : {RadixScan::reduce_then_scan, RadixScan::single_pass}) {
    CAPTURE(to_string(scan));
    SortOptions o{.algorithm = Algorithm::radix, .value_bytes = 4};
    o.tuning = {.workgroup_size = 8, .items_per_thread = 65536, .radix_ranking = RadixRanking::columns, .radix_scan = scan};
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("65536"), Error);
    o.tuning.items_per_thread = 1u << 18;
    CHECK_THROWS_AS(Sorter(gpu, o), Error);
    o.tuning.items_per_thread = 32768;
    Sorter sorter(gpu, o);
    for (uint64_t n : {uint64_t(100000), uint64_t(262145)})
      test::check_case(sorter, {{workloads::Distribution::uniform, 0}, n, 5});
  }
}

// ArgSorter and SegmentedSorter record a Sorter in the middle of their own commands: its refusal (here
// brick pairs' 65536-key limit) came after their first dispatch was recorded (the pretend command
// buffer crashed; a real one held half a sort).
TEST_CASE("argsort and segmented sort refuse what their inner sort refuses before recording anything") {
  Device& gpu = test::device();
  const SortOptions pairs{.algorithm = Algorithm::brick, .brick_variant = BrickVariant::pairs};
  const uint64_t n = 70000;
  Buffer keys(gpu, n * 4, "keys"), indices(gpu, n * 4, "indices"), offsets(gpu, 8, "offsets");
  ArgSorter argsorter(gpu, pairs);
  Buffer scratch(gpu, argsorter.scratch_bytes(n), "scratch");
  const Status a = argsorter.record(fake_cmd, {keys.ref(), indices.ref(), scratch.ref()}, n);
  CHECK_MESSAGE(has(a.message, "65536"), a.message);
  SegmentedSorter segmented(gpu, pairs);
  Buffer seg_scratch(gpu, segmented.scratch_bytes(n, 1), "scratch");
  const Status s = segmented.record(fake_cmd, {keys.ref(), {}, seg_scratch.ref()}, offsets.ref(), 1, n);
  CHECK_MESSAGE(has(s.message, "65536"), s.message);
}

// The host paths download keys, then values, into the caller's memory: overlapping spans lost keys
// silently ({5,3,1,4,2} with values from element 2 on came back as {1,2,2,0,4}).
// The layouts' arithmetic wrapped past 2^64: scratch_bytes(2^62) was less than scratch_bytes(2^31 - 1),
// scratch_bytes(UINT64_MAX) 96 bytes.
TEST_CASE("the scratch_bytes queries grow with n and answer the largest VkDeviceSize beyond max_sort_keys") {
  Device& gpu = test::device();
  const VkDeviceSize most = std::numeric_limits<VkDeviceSize>::max();
  const uint64_t beyond[] = {max_sort_keys + 1, uint64_t(1) << 40, uint64_t(1) << 62, std::numeric_limits<uint64_t>::max()};
  for (const SortOptions& o : {SortOptions{.key = Key::u32}, SortOptions{.key = Key::f64, .value_bytes = 256},
                               SortOptions{.key = Key::u64, .algorithm = Algorithm::sample, .value_bytes = 4}}) {
    CAPTURE(to_string(o.key));
    Sorter sorter(gpu, o);
    ArgSorter argsorter(gpu, SortOptions{.key = o.key, .algorithm = o.algorithm});  // indices are its values
    SegmentedSorter segmented(gpu, o);
    CHECK(sorter.scratch_bytes(max_sort_keys) >= sorter.scratch_bytes(max_sort_keys / 2));
    CHECK(sorter.scratch_bytes(max_sort_keys) < most);
    CHECK(argsorter.scratch_bytes(max_sort_keys) >= argsorter.scratch_bytes(max_sort_keys / 2));
    CHECK(segmented.scratch_bytes(max_sort_keys, 1) >= segmented.scratch_bytes(max_sort_keys / 2, 1));
    for (uint64_t n : beyond) {
      CAPTURE(n);
      CHECK(sorter.scratch_bytes(n) == most);
      CHECK(argsorter.scratch_bytes(n) == most);
      CHECK(segmented.scratch_bytes(n, 1) == most);
      if (const VkDeviceSize indirect = sorter.scratch_bytes_indirect(1000)) {
        CHECK(indirect < most);
        CHECK(sorter.scratch_bytes_indirect(n) == most);
      }
      if (segmented.scratch_bytes_indirect(1000, 1)) CHECK(segmented.scratch_bytes_indirect(n, 1) == most);
    }
  }
}

TEST_CASE("the host sorts refuse keys, values, indices and offsets that overlap in memory, leaving them alone") {
  Device& gpu = test::device();
  std::vector<uint32_t> buf = {5, 3, 1, 4, 2, 0, 0, 0};
  const std::vector<uint32_t> before = buf;
  const char* says = "memory overlap";
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(buf.data(), 5), std::span(buf.data() + 2, 5)), doctest::Contains(says), Error);
  CHECK_THROWS_WITH_AS(sort_host(gpu, buf.data(), 5, buf.data() + 4, {}), doctest::Contains(says), Error);
  CHECK_THROWS_WITH_AS(argsort(gpu, std::span<const uint32_t>(buf.data(), 5), std::span(buf.data() + 1, 5)),
                       doctest::Contains("keys and indices memory overlap"), Error);
  std::vector<uint32_t> keys_and_offsets = {0, 3, 2};  // offsets {0, 3} are the first two keys
  CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, keys_and_offsets.data(), 3, nullptr, 0, keys_and_offsets.data(), 1, {}),
                       doctest::Contains("keys and offsets memory overlap"), Error);
  CHECK(keys_and_offsets == std::vector<uint32_t>{0, 3, 2});
  const uint32_t offsets[] = {0, 2, 5};
  CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, buf.data(), 5, buf.data() + 4, 4, offsets, 2, {}),
                       doctest::Contains("keys and values memory overlap"), Error);
  CHECK(buf == before);
  // Adjacent spans do not overlap: sorted.
  CHECK_NOTHROW(sort(gpu, std::span(buf.data(), 4), std::span(buf.data() + 4, 4)));
  CHECK(buf == std::vector<uint32_t>{1, 3, 4, 5, 0, 0, 0, 2});
}

TEST_CASE("sort_host with a null keys pointer and n > 0 throws instead of reading it") {
  Device& gpu = test::device();
  CHECK_THROWS_WITH_AS(sort_host(gpu, nullptr, 10, static_cast<uint32_t*>(nullptr), {}),
                       doctest::Contains("keys is a null pointer"), Error);
  std::vector<uint32_t> values(10);
  CHECK_THROWS_WITH_AS(sort_host(gpu, nullptr, 10, values.data(), {}), doctest::Contains("keys is a null pointer"), Error);
  CHECK_THROWS_WITH_AS(sort_host(gpu, nullptr, 10, nullptr, 4, {}), doctest::Contains("keys is a null pointer"), Error);
  CHECK_NOTHROW(sort_host(gpu, nullptr, 0, static_cast<uint32_t*>(nullptr), {}));
}

// A value size no sort can take is a bad argument whether or not there are values to move: with a null
// values pointer (keys only, or an empty span's data) and for n = 0 too. The fuzzer found the
// segmented sort accepting value_bytes 2^32 - 1 with n = 0; sort_host ignored it for any n.
TEST_CASE("the host sorts refuse a value_bytes no sort takes, also without values and for n = 0") {
  Device& gpu = test::device();
  std::vector<uint32_t> keys = {3, 1, 2};
  const std::vector<uint32_t> before = keys;
  const uint32_t offsets[] = {0, 3};
  const uint32_t empty_offsets[] = {0, 0};  // one segment of no keys
  for (const uint32_t bad : {2u, 5u, 260u, 0xffffffffu}) {
    CAPTURE(bad);
    for (const uint64_t n : {uint64_t(0), uint64_t(3)}) {
      CAPTURE(n);
      CHECK_THROWS_WITH_AS(sort_host(gpu, keys.data(), n, nullptr, bad, {}),
                           doctest::Contains("sort_host: value_bytes must be 0"), Error);
      CHECK_THROWS_WITH_AS(segmented_sort_host(gpu, keys.data(), n, nullptr, bad, n ? offsets : empty_offsets, 1, {}),
                           doctest::Contains("value_bytes"), Error);
      CHECK(keys == before);
    }
  }
  // Valid sizes without values stay valid: n = 0 (an empty span of records), and keys only for sort_host.
  CHECK_NOTHROW(sort_host(gpu, keys.data(), 0, nullptr, 8, {}));
  CHECK_NOTHROW(segmented_sort_host(gpu, keys.data(), 0, nullptr, 256, empty_offsets, 1, {}));
  CHECK_NOTHROW(sort_host(gpu, keys.data(), 3, nullptr, 8, {}));
  CHECK(keys == std::vector<uint32_t>{1, 2, 3});
}

TEST_CASE("record checks ranges against the VkBuffer's size, refuses VK_WHOLE_SIZE and overlaps, records nothing") {
  Device& gpu = test::device();
  const uint64_t n = 1000;
  for (Algorithm a : {Algorithm::radix, Algorithm::brick, Algorithm::sample}) {
    INFO(to_string(a));
    Sorter sorter(gpu, {.algorithm = a, .value_bytes = 4});
    const VkDeviceSize s = sorter.scratch_bytes(n);
    Buffer keys(gpu, n * 4, "keys"), values(gpu, n * 4, "values"), scratch(gpu, s, "scratch");
    Buffer shared(gpu, n * 8 + s + 64, "one buffer for all");
    auto refused = [&](const SortBuffers& b, const std::string& part) {
      const Status st = sorter.record(fake_cmd, b, n);
      CHECK_FALSE(st.ok());
      CHECK_MESSAGE(has(st.message, part), st.message);
    };
    // Ranges beyond a vksort::Buffer's exact size, though they claim enough bytes.
    refused({keys.ref(), values.ref(), {scratch.vk_buffer(), 0, s + 8}}, "ends beyond its VkBuffer's");
    refused({keys.ref(), values.ref(), {scratch.vk_buffer(), 8, s}}, "ends beyond its VkBuffer's");
    refused({{keys.vk_buffer(), 16, n * 4}, values.ref(), scratch.ref()}, "ends beyond its VkBuffer's");
    refused({keys.ref(), {values.vk_buffer(), 0, VK_WHOLE_SIZE}, scratch.ref()}, "VK_WHOLE_SIZE");
    // Overlaps in one VkBuffer: values = keys, scratch over keys or values.
    const VkBuffer one = shared.vk_buffer();
    refused({{one, 0, n * 4}, {one, 0, n * 4}, {one, n * 8, s}}, "keys and values ranges overlap");
    refused({{one, 0, n * 4}, {one, n * 4, n * 4}, {one, n * 4 - 8, s}}, "ranges overlap");
    refused({{one, 0, n * 4}, {one, n * 4 + s, n * 4}, {one, n * 4 - 8, s}}, "keys and scratch ranges overlap");
    // Declared sizes may overlap where the bytes the sort uses do not: accepted.
    const SortBuffers packed{{one, 0, n * 8 + s}, {one, n * 4, n * 4}, {one, n * 8, s}};
    // The application's own VkBuffer: checked against its memory requirements' size.
    RawBuffer raw(gpu, s);
    refused({keys.ref(), values.ref(), {raw.get(), 0, raw.requirement() + 8}}, "ends beyond its VkBuffer's");
    refused({keys.ref(), values.ref(), {raw.get(), raw.requirement(), s}}, "ends beyond its VkBuffer's");

    // The packed layout sorts correctly (the check refuses only what would be wrong).
    std::vector<uint32_t> k(n), v(n);
    std::mt19937 rng(7);
    for (auto& x : k) x = rng() % 100;
    std::iota(v.begin(), v.end(), 0u);
    shared.upload(std::as_bytes(std::span(k)));
    shared.upload(std::as_bytes(std::span(v)), n * 4);
    {
      test::AppCommands app(gpu);
      REQUIRE(sorter.record(app.cmd(), packed, n).ok());
      app.submit_and_wait();
    }
    std::vector<uint32_t> got_k(n), got_v(n);
    shared.download(std::as_writable_bytes(std::span(got_k)));
    shared.download(std::as_writable_bytes(std::span(got_v)), n * 4);
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return k[a] < k[b]; });
    std::vector<uint32_t> want_k(n);
    for (size_t i = 0; i < n; ++i) want_k[i] = k[order[i]];
    CHECK(got_k == want_k);
    CHECK(got_v == order);
  }
  // record_indirect: the count may not lie in what the sort writes.
  Sorter radix(gpu, {.algorithm = Algorithm::radix});
  const VkDeviceSize s = radix.scratch_bytes_indirect(n);
  Buffer keys(gpu, n * 4, "keys"), scratch(gpu, s, "scratch");
  const Status st = radix.record_indirect(fake_cmd, {keys.ref(), {}, scratch.ref()}, {scratch.vk_buffer(), 16, 4}, n);
  CHECK_MESSAGE(has(st.message, "scratch and count ranges overlap"), st.message);
  // BucketLists' ids range goes through the same checks.
  BucketLists lists(gpu, {.buckets = 10, .capacity = n});
  Buffer ids(gpu, n * 4, "ids");
  CHECK(has(lists.record_build(fake_cmd, {ids.vk_buffer(), 8, n * 4}, uint32_t(n)).message, "ends beyond its VkBuffer's"));
  CHECK(has(lists.record_build(fake_cmd, {ids.vk_buffer(), 0, VK_WHOLE_SIZE}, uint32_t(n)).message, "VK_WHOLE_SIZE"));
  // Ids in the lists' own buffers, which the build writes (it reset the heads, then read no ids: every
  // element dropped, silently).
  BucketLists small(gpu, {.buckets = 1000, .capacity = 1000});
  Buffer four_ids(gpu, 16, "ids");
  const uint32_t some_ids[] = {0, 1, 2, 3};
  four_ids.upload(std::as_bytes(std::span(some_ids)));
  small.build(four_ids, 4);  // record_resort needs lists to resort
  for (const BufferRef own : {small.head(), small.next(), small.report()}) {
    const BufferRef ids_there{own.buffer, 0, std::min<VkDeviceSize>(own.size, 16)};
    CHECK(has(small.record_build(fake_cmd, ids_there, 4).message, "lies in these bucket lists' own buffer"));
    CHECK(has(small.record_resort(fake_cmd, ids_there, 4).message, "own buffer"));
  }
}

TEST_CASE("Sorter::sort and BucketLists::build refuse a Buffer of another Device") {
  Device& gpu = test::device();
  Device other(test::options_like_device());
  Sorter sorter(gpu, {.algorithm = Algorithm::radix, .value_bytes = 4});
  Buffer mine(gpu, 400, "keys"), theirs(other, 400, "keys elsewhere");
  CHECK_THROWS_WITH_AS(sorter.sort(theirs, &mine, 100), doctest::Contains("keys Buffer was made on another vksort::Device"), Error);
  CHECK_THROWS_WITH_AS(sorter.sort(mine, &theirs, 100), doctest::Contains("values Buffer was made on another vksort::Device"), Error);
  Buffer empty;
  CHECK_THROWS_WITH_AS(sorter.sort(empty, &mine, 0), doctest::Contains("keys Buffer is empty"), Error);
  BucketLists lists(gpu, {.buckets = 10, .capacity = 100});
  CHECK_THROWS_WITH_AS(lists.build(theirs, 100), doctest::Contains("ids Buffer was made on another vksort::Device"), Error);
  // The recording calls take raw ranges: a VkBuffer that another Device's Buffer owns was used on this
  // device (undefined behaviour; validation: VUID-vkGetBufferMemoryRequirements-buffer-parent). Refused,
  // nothing recorded (the pretend command buffer would crash).
  Buffer scratch(gpu, sorter.scratch_bytes(100), "scratch");
  const char* elsewhere = "range's VkBuffer was made on another vksort::Device";
  CHECK(has(sorter.record(fake_cmd, {theirs.ref(), mine.ref(), scratch.ref()}, 100).message, elsewhere));
  CHECK(has(sorter.record(fake_cmd, {mine.ref(), theirs.ref(), scratch.ref()}, 100).message, elsewhere));
  ArgSorter argsorter(gpu, {});
  Buffer arg_scratch(gpu, argsorter.scratch_bytes(100), "scratch");
  CHECK(has(argsorter.record(fake_cmd, {mine.ref(), theirs.ref(), arg_scratch.ref()}, 100).message, elsewhere));
  SegmentedSorter segmented(gpu, {});
  Buffer seg_scratch(gpu, segmented.scratch_bytes(100, 1), "scratch"), offsets(other, 8, "offsets elsewhere");
  CHECK(has(segmented.record(fake_cmd, {mine.ref(), {}, seg_scratch.ref()}, offsets.ref(), 1, 100).message, elsewhere));
  CHECK(has(lists.record_build(fake_cmd, theirs.ref(), 100).message, elsewhere));
  // This Device's own Buffers still pass (the check looks only at handles another Device made).
  CHECK(has(sorter.record(fake_cmd, {mine.ref(), mine.ref(), scratch.ref()}, 100).message, "overlap"));
}

// n = 0 recorded copies of 0 bytes (invalid usage; with validation on, an error) where sort() does nothing.
TEST_CASE("Sorter::sort_back_to_back with n = 0 is a no-op, as sort() with n = 0 is") {
  Device& gpu = test::device();
  Sorter sorter(gpu, {.value_bytes = 4});
  Buffer keys(gpu, 16, "keys"), values(gpu, 16, "values"), in_keys(gpu, 16, "input keys"), in_values(gpu, 16, "input values");
  Buffer out_keys(gpu, 16, "result keys"), out_values(gpu, 16, "result values");
  const Sorter::RunResult results[] = {{&out_keys, &out_values}};
  std::vector<SortStats> stats;
  CHECK_NOTHROW(stats = sorter.sort_back_to_back(keys, &values, 0, in_keys, &in_values, results));
  CHECK(stats.size() == 1);
}

TEST_CASE("Sorter::sort with n beyond the Buffers says so, before allocating scratch for n") {
  Device& gpu = test::device();
  Sorter sorter(gpu, {.algorithm = Algorithm::radix, .value_bytes = 4});
  Buffer keys(gpu, 400, "keys"), values(gpu, 400, "values"), small_values(gpu, 396, "values");
  CHECK_THROWS_WITH_AS(sorter.sort(keys, &values, uint64_t(1) << 31), doctest::Contains("n exceeds the keys Buffer (400 bytes hold 100)"), Error);
  CHECK_THROWS_WITH_AS(sorter.sort(keys, &values, 101), doctest::Contains("n exceeds the keys Buffer"), Error);
  CHECK_THROWS_WITH_AS(sorter.sort(keys, &small_values, 100), doctest::Contains("n exceeds the values Buffer (396 bytes hold 99)"), Error);
  CHECK_THROWS_WITH_AS(sorter.sort(keys, nullptr, 100), doctest::Contains("no values buffer"), Error);
  Sorter keys_only(gpu, {.algorithm = Algorithm::radix});
  CHECK_THROWS_WITH_AS(keys_only.sort(keys, &values, 100), doctest::Contains("SortOptions::value_bytes is 0"), Error);
  CHECK_NOTHROW(sorter.sort(keys, &values, 100));
}

// Another VkDevice's command buffer was recorded into with this device's pipelines: a crash inside the
// validation layer (undefined behaviour without it). Refused by every record call, before anything is
// recorded; this device's own command buffer still takes the same sort.
TEST_CASE("record refuses a command buffer of another VkDevice") {
  Device& gpu = test::device();
  Device other(test::options_like_device());
  test::AppCommands theirs(other);
  const uint32_t n = 100;
  Sorter sorter(gpu, {.algorithm = Algorithm::radix});
  Buffer keys(gpu, n * 4, "keys"), scratch(gpu, sorter.scratch_bytes(n), "scratch");
  const char* says = "the command buffer was allocated on another VkDevice";
  const Status s = sorter.record(theirs.cmd(), {keys.ref(), {}, scratch.ref()}, n);
  CHECK(s.code == Status::Code::invalid_argument);
  CHECK_MESSAGE(has(s.message, says), s.message);
  Buffer count(gpu, 4, "count");
  CHECK(has(sorter.record_indirect(theirs.cmd(), {keys.ref(), {}, scratch.ref()}, count.ref(), n).message, says));
  ArgSorter argsorter(gpu, {});
  Buffer indices(gpu, n * 4, "indices"), arg_scratch(gpu, argsorter.scratch_bytes(n), "scratch");
  CHECK(has(argsorter.record(theirs.cmd(), {keys.ref(), indices.ref(), arg_scratch.ref()}, n).message, says));
  SegmentedSorter segmented(gpu, {});
  Buffer seg_scratch(gpu, segmented.scratch_bytes(n, 1), "scratch"), offsets(gpu, 8, "offsets");
  CHECK(has(segmented.record(theirs.cmd(), {keys.ref(), {}, seg_scratch.ref()}, offsets.ref(), 1, n).message, says));
  BucketLists lists(gpu, {.buckets = 10, .capacity = n});
  CHECK(has(lists.record_build(theirs.cmd(), indices.ref(), n).message, says));
  // Nothing went into their command buffer: it ends and submits clean (validation on where available).
  theirs.submit_and_wait();
  test::AppCommands mine(gpu);
  CHECK(sorter.record(mine.cmd(), {keys.ref(), {}, scratch.ref()}, n).ok());
}

// A moved-from object's calls dereferenced a null implementation (a segfault); record() promises a Status.
TEST_CASE("calls on moved-from Sorter, ArgSorter, SegmentedSorter and BucketLists are refused") {
  Device& gpu = test::device();
  const char* says = "this object was moved from";
  Sorter sorter(gpu, {});
  Sorter taker = std::move(sorter);
  CHECK_THROWS_WITH_AS(sorter.options(), doctest::Contains(says), Error);
  CHECK_THROWS_WITH_AS(sorter.scratch_bytes(10), doctest::Contains("Sorter::scratch_bytes"), Error);
  Buffer keys(gpu, 40, "keys");
  CHECK_THROWS_WITH_AS(sorter.sort(keys, nullptr, 10), doctest::Contains(says), Error);
  CHECK(has(sorter.record(fake_cmd, {keys.ref(), {}, keys.ref()}, 10).message, says));
  ArgSorter argsorter(gpu, {});
  ArgSorter arg_taker = std::move(argsorter);
  CHECK_THROWS_WITH_AS(argsorter.scratch_bytes(10), doctest::Contains(says), Error);
  CHECK(has(argsorter.record(fake_cmd, {keys.ref(), keys.ref(), keys.ref()}, 10).message, says));
  SegmentedSorter segmented(gpu, {});
  SegmentedSorter seg_taker = std::move(segmented);
  CHECK_THROWS_WITH_AS(segmented.path(), doctest::Contains(says), Error);
  CHECK(has(segmented.record(fake_cmd, {keys.ref(), {}, keys.ref()}, keys.ref(), 1, 10).message, says));
  BucketLists lists(gpu, {.buckets = 10, .capacity = 10});
  BucketLists list_taker = std::move(lists);
  CHECK_THROWS_WITH_AS(lists.head(), doctest::Contains(says), Error);
  CHECK_THROWS_WITH_AS(lists.download_next(), doctest::Contains(says), Error);
  CHECK(has(lists.record_build(fake_cmd, keys.ref(), 10).message, says));
  // Assigned again, each works.
  sorter = std::move(taker);
  CHECK(sorter.options().key == Key::u32);
  lists = std::move(list_taker);
  CHECK(lists.options().buckets == 10);
}
