// SPDX-License-Identifier: MIT
// Record sorting (SortOptions::value_bytes 8..256; Ha, Krüger & Silva section 4.7) against a CPU
// stable sort of indices: every algorithm, every key type, both orders, record sizes 8 to 64 bytes, awkward
// sizes and tie-heavy inputs (stability). Every word of a record encodes its original index and its
// position in the record, so a misplaced, torn or shifted word is a byte difference. Then the
// GPU-side count (tail records untouched), records at an offset that only allows narrow chunks, the
// recording path's checks, refused sizes and the typed host API. Test names hold the algorithm so
// ctest can split the matrix by it.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"
#include "support/sort_check.hpp"

using namespace vksort;
using workloads::Distribution;

namespace {

constexpr Key all_keys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};
constexpr uint32_t record_sizes[] = {8, 12, 16, 20, 64};

// Word w of record i: i in word 0, then a mix of (i, w, seed) so that no two words anywhere are alike
// in practice: a word that lands in another record or another slot of its own record shows.
std::vector<std::byte> make_records(uint64_t n, uint32_t record_bytes, uint64_t seed) {
  const uint32_t words = record_bytes / 4;
  std::vector<uint32_t> w(n * words);
  for (uint64_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < words; ++k) {
      uint64_t x = (i * words + k + 1) * 0x9e3779b97f4a7c15ull ^ seed * 0xbf58476d1ce4e5b9ull;
      x ^= x >> 31;
      w[i * words + k] = k == 0 ? uint32_t(i) : uint32_t(x) ^ uint32_t(x >> 32);
    }
  std::vector<std::byte> bytes(w.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), w.data(), bytes.size());
  return bytes;
}

// The reference: keys stably sorted (the encoded order; by its bits [begin_bit, end_bit) where given),
// records moved by the same permutation.
void reference_records(Key key, Order order, std::vector<std::byte>& keys, std::vector<std::byte>& records,
                       uint32_t record_bytes, uint32_t begin_bit = 0, uint32_t end_bit = 0) {
  const uint64_t n = keys.size() / key_bytes(key);
  std::vector<uint32_t> from(n);
  std::iota(from.begin(), from.end(), 0u);
  workloads::reference_sort(key, order, keys, from, begin_bit, end_bit);
  std::vector<std::byte> moved(records.size());
  for (uint64_t i = 0; i < n; ++i)
    std::memcpy(&moved[i * record_bytes], &records[uint64_t(from[i]) * record_bytes], record_bytes);
  records = std::move(moved);
}

// "" if the records match, else the first wrong record and word.
std::string record_difference(const std::vector<std::byte>& expected, const std::vector<std::byte>& got,
                              uint32_t record_bytes) {
  if (expected.size() != got.size()) return "record bytes differ in size";
  for (uint64_t b = 0; b < expected.size(); b += 4)
    if (std::memcmp(&expected[b], &got[b], 4) != 0) {
      uint32_t e = 0, g = 0;
      std::memcpy(&e, &expected[b], 4);
      std::memcpy(&g, &got[b], 4);
      uint32_t e_index = 0, g_index = 0;
      std::memcpy(&e_index, &expected[b / record_bytes * record_bytes], 4);
      std::memcpy(&g_index, &got[b / record_bytes * record_bytes], 4);
      return "record " + std::to_string(b / record_bytes) + " word " + std::to_string(b % record_bytes / 4) +
             ": expected " + std::to_string(e) + " (input record " + std::to_string(e_index) + "), got " +
             std::to_string(g) + " (record tagged " + std::to_string(g_index) + ")";
    }
  return "";
}

// Sorts n keys of the distribution with records through Sorter::sort; "" when keys and records are
// the reference's byte for byte (ordered by the sorter's bit range).
std::string check_records(Sorter& sorter, workloads::DistributionSpec input, uint64_t n, uint64_t seed,
                          SortStats* stats = nullptr) {
  const SortOptions& o = sorter.options();
  const uint32_t rb = o.value_bytes;
  std::vector<std::byte> keys = workloads::generate_keys(o.key, input, n, seed);
  std::vector<std::byte> records = make_records(n, rb, seed);
  std::vector<std::byte> expected_keys = keys, expected_records = records;
  reference_records(o.key, o.order, expected_keys, expected_records, rb, o.begin_bit, o.end_bit);

  Device& gpu = test::device();
  Buffer key_buffer(gpu, std::max<size_t>(keys.size(), 16), "test keys");
  Buffer record_buffer(gpu, std::max<size_t>(records.size(), 16), "test records");
  key_buffer.upload(keys);
  record_buffer.upload(records);
  SortStats s = sorter.sort(key_buffer, &record_buffer, n);
  if (stats) *stats = s;
  key_buffer.download(keys);
  record_buffer.download(records);
  std::string diff = workloads::first_difference(o.key, expected_keys, keys);
  if (diff.empty()) diff = record_difference(expected_records, records, rb);
  if (diff.empty()) return diff;
  std::string where = test::describe(sorter, {input, n, seed});
  return where.append(" records of ").append(std::to_string(rb)).append(" bytes: ").append(diff);
}

// The matrix for one algorithm: each record size in both orders, the key type rotating so that every
// key type is met, on awkward sizes around the algorithm's tile and on inputs full of ties.
void records_matrix(Algorithm algorithm) {
  uint64_t seed = 1;
  size_t rotation = size_t(algorithm);
  for (uint32_t rb : record_sizes)
    for (Order order : {Order::ascending, Order::descending}) {
      const Key key = all_keys[rotation++ % std::size(all_keys)];
      Sorter sorter(test::device(), {.key = key, .order = order, .algorithm = algorithm, .value_bytes = rb});
      const uint64_t tile = sorter.tile_size();
      for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(3), tile - 1, tile, tile + 1, 2 * tile + 1,
                         uint64_t(1021), uint64_t(3001)}) {
        const std::string diff = check_records(sorter, {Distribution::uniform, 0}, n, seed++);
        CHECK_MESSAGE(diff.empty(), diff);
      }
      // Ties: equal keys must keep their records in input order.
      for (Distribution d : {Distribution::few_unique, Distribution::all_equal, Distribution::special})
        for (uint64_t n : {tile + 3, uint64_t(2053)}) {
          const std::string diff = check_records(sorter, workloads::default_spec(d), n, seed++);
          CHECK_MESSAGE(diff.empty(), diff);
        }
    }
}

}  // namespace

TEST_CASE("records radix") { records_matrix(Algorithm::radix); }
TEST_CASE("records brick") { records_matrix(Algorithm::brick); }
TEST_CASE("records sample") { records_matrix(Algorithm::sample); }
TEST_CASE("records automatic") {
  records_matrix(Algorithm::automatic);
  // Automatic picks per n; sizes on both sides of its crossovers all carry their records.
  Sorter sorter(test::device(), {.key = Key::u32, .value_bytes = 24});
  uint64_t seed = 100;
  for (uint64_t n : {uint64_t(5), uint64_t(300), uint64_t(5000), uint64_t(40009)}) {
    CAPTURE(to_string(sorter.algorithm_for(n)));
    const std::string diff = check_records(sorter, workloads::default_spec(Distribution::few_unique), n, seed++);
    CHECK_MESSAGE(diff.empty(), diff);
  }
}

TEST_CASE("records radix: phases stage and gather are timed, and 4-byte values keep the direct path") {
  Sorter sorter(test::device(), {.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 16});
  SortStats stats;
  const std::string diff = check_records(sorter, {Distribution::uniform, 0}, 20000, 3, &stats);
  CHECK_MESSAGE(diff.empty(), diff);
  REQUIRE(test::device().info().timestamps);
  auto has = [&](const SortStats& s, const char* name) {
    return std::any_of(s.phases_ms.begin(), s.phases_ms.end(), [&](const auto& p) { return p.first == name; });
  };
  CHECK(has(stats, "stage"));
  CHECK(has(stats, "gather"));
  // Between them the radix sort's own: the single pass's passes, or reduce-then-scan's scatter.
  CHECK(has(stats, stats.fact("single_pass") == 1.0 ? "pass" : "scatter"));
  // Scratch: the index (4 bytes a key) and the record copy on top of the 4-byte sort's own.
  Sorter direct(test::device(), {.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 4});
  CHECK(sorter.scratch_bytes(20000) >= direct.scratch_bytes(20000) + 20000 * (4 + 16));
  CHECK(sorter.scratch_bytes(20000) % 16 == 0);
  std::vector<std::byte> keys = workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 1000, 4);
  Buffer kb(test::device(), keys.size(), "keys"), vb(test::device(), 4000, "values");
  kb.upload(keys);
  const SortStats direct_stats = direct.sort(kb, &vb, 1000);
  CHECK(!has(direct_stats, "gather"));
}

// The gather builds 64-bit record addresses itself, so a records array may exceed what one storage
// binding sees (maxStorageBufferRange: 128 MiB on lavapipe), and so may the record copy in scratch. On
// the automatic path and on the single pass (forced: on CPU drivers the automatic scan is
// reduce-then-scan), at the smallest size whose records cross the limit.
TEST_CASE("records larger than maxStorageBufferRange") {
  const uint64_t range = test::device().info().max_storage_buffer_range;
  constexpr uint32_t rb = 128;
  const uint64_t beyond = range / rb + 5;  // 640 bytes past the limit
  if (beyond > (uint64_t(1) << 22)) {
    test::skip("maxStorageBufferRange " + std::to_string(range) + " bytes: beyond it is too large for a test on this device");
    return;
  }
  uint64_t seed = 21;
  for (RadixScan scan : {RadixScan::automatic, RadixScan::single_pass}) {
    INFO("radix scan ", to_string(scan));
    SortOptions o{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = rb};
    o.tuning.radix_scan = scan;
    Sorter sorter(test::device(), o);
    SortStats stats;
    const std::string diff = check_records(sorter, {Distribution::uniform, 0}, beyond, seed++, &stats);
    CHECK_MESSAGE(diff.empty(), diff);
    if (scan == RadixScan::single_pass) CHECK(stats.fact("single_pass") == 1.0);
  }
}

// A bit range with records on reduce-then-scan (forced; the single pass's are in test_radix_single_pass):
// 32- and 64-bit keys, 12- and 16-byte records, odd and even numbers of passes, ties within the field.
TEST_CASE("records radix by a key bit range, reduce-then-scan") {
  uint64_t seed = 60;
  for (const test::RecordBitRange& r : test::record_bit_ranges) {
    SortOptions o{.key = r.key, .order = r.order, .algorithm = Algorithm::radix, .value_bytes = r.record_bytes};
    o.begin_bit = r.begin;
    o.end_bit = r.end;
    o.tuning.radix_scan = RadixScan::reduce_then_scan;
    Sorter sorter(test::device(), o);
    for (uint64_t n : {uint64_t(3 * sorter.tile_size() + 7), uint64_t(12345)}) {
      INFO("bits [", r.begin, ", ", r.end, ")");
      SortStats stats;
      const std::string diff = check_records(sorter, workloads::default_spec(r.input), n, seed++, &stats);
      CHECK_MESSAGE(diff.empty(), diff);
      CHECK(stats.fact("single_pass") == 0.0);
    }
  }
}

// One recording, a count the GPU reads: the first min(count, max_n) keys and records are sorted, the
// rest stay as they were. The records sit 8 bytes into their buffer, so 16-byte records take the
// 8-byte chunk kernel there (and 12-byte ones the 4-byte kernel).
TEST_CASE("records radix with a GPU-side count leave the tail untouched") {
  Device& gpu = test::device();
  for (const SortOptions o : {SortOptions{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 12},
                              SortOptions{.key = Key::f64, .order = Order::descending, .algorithm = Algorithm::radix,
                                          .value_bytes = 64},
                              SortOptions{.key = Key::i32, .value_bytes = 16}}) {  // automatic: its radix sort
    CAPTURE(to_string(o.key));
    CAPTURE(o.value_bytes);
    Sorter sorter(gpu, o);
    const uint64_t tile = sorter.tile_size(), max_n = 3 * tile + 17;
    const uint32_t kb = key_bytes(o.key), rb = o.value_bytes;
    const auto input = workloads::generate_keys(o.key, workloads::default_spec(Distribution::few_unique), max_n, 5);
    const auto input_records = make_records(max_n, rb, 5);
    constexpr VkDeviceSize offset = 8;
    Buffer keys(gpu, max_n * kb, "keys"), records(gpu, offset + max_n * rb, "records"), count(gpu, 4, "count");
    Buffer scratch(gpu, sorter.scratch_bytes_indirect(max_n), "scratch");
    test::AppCommands app(gpu);
    const SortBuffers b{keys.ref(), {records.vk_buffer(), offset, max_n * rb}, scratch.ref()};
    const Status status = sorter.record_indirect(app.cmd(), b, count.ref(), max_n);
    REQUIRE_MESSAGE(status.ok(), status.message);
    bool first = true;
    for (uint64_t c : {uint64_t(0), uint64_t(1), uint64_t(2), tile - 1, tile + 1, max_n - 1, max_n, max_n + 1000}) {
      CAPTURE(c);
      keys.upload(input);
      records.upload(input_records, offset);
      const uint32_t c32 = uint32_t(c);
      count.upload(std::as_bytes(std::span(&c32, 1)));
      if (first) app.submit_and_wait();
      else app.submit_again_and_wait();
      first = false;
      std::vector<std::byte> got(max_n * kb), got_records(max_n * rb);
      keys.download(got);
      records.download(got_records, offset);
      const uint64_t sorted = std::min(c, max_n);
      std::vector<std::byte> expected(input.begin(), input.begin() + sorted * kb);
      std::vector<std::byte> expected_records(input_records.begin(), input_records.begin() + sorted * rb);
      reference_records(o.key, o.order, expected, expected_records, rb);
      expected.insert(expected.end(), input.begin() + sorted * kb, input.end());
      expected_records.insert(expected_records.end(), input_records.begin() + sorted * rb, input_records.end());
      const std::string diff = workloads::first_difference(o.key, expected, got);
      CHECK_MESSAGE(diff.empty(), diff);
      const std::string record_diff = record_difference(expected_records, got_records, rb);
      CHECK_MESSAGE(record_diff.empty(), record_diff);
    }
  }
}

TEST_CASE("records: value_bytes outside 0, 4 and 8..256 in steps of 4 is refused, naming the option") {
  for (uint32_t bad : {1u, 2u, 3u, 6u, 10u, 257u, 260u, 1024u}) {
    CAPTURE(bad);
    for (Algorithm a : {Algorithm::radix, Algorithm::brick, Algorithm::sample, Algorithm::automatic}) {
      try {
        Sorter s(test::device(), {.algorithm = a, .value_bytes = bad});
        FAIL("value_bytes accepted");
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find("value_bytes") != std::string::npos);
        CHECK(std::string(e.what()).find("256") != std::string::npos);
      }
    }
  }
  CHECK_NOTHROW(Sorter(test::device(), {.algorithm = Algorithm::radix, .value_bytes = 256}));

  // The recording path: a records range too small for n * value_bytes, or none, is a Status.
  Sorter sorter(test::device(), {.algorithm = Algorithm::radix, .value_bytes = 32});
  Buffer keys(test::device(), 400, "keys"), records(test::device(), 100 * 32 - 4, "records");
  Buffer scratch(test::device(), sorter.scratch_bytes(100), "scratch");
  test::AppCommands app(test::device());
  const Status short_records = sorter.record(app.cmd(), {keys.ref(), records.ref(), scratch.ref()}, 100);
  CHECK(!short_records.ok());
  CHECK(short_records.message.find("values") != std::string::npos);
  CHECK(!sorter.record(app.cmd(), {keys.ref(), {}, scratch.ref()}, 100).ok());
  const Status short_scratch =
      sorter.record(app.cmd(), {keys.ref(), {records.vk_buffer(), 0, 100 * 32 - 4}, {scratch.vk_buffer(), 0, 64}}, 90);
  CHECK(!short_scratch.ok());
  CHECK(short_scratch.message.find("scratch") != std::string::npos);
}

TEST_CASE("records: the typed host API sorts structs with their keys") {
  struct Particle {
    float position[3];
    uint32_t id;
    float velocity[3];
    uint32_t flags;
  };
  static_assert(sizeof(Particle) == 32);
  std::vector<uint32_t> cells = {7, 3, 3, 9, 0, 7, 3, 1};
  std::vector<Particle> particles(cells.size());
  for (uint32_t i = 0; i < particles.size(); ++i) particles[i] = {{float(i), 0.5f, -1.0f}, i, {1, 2, 3}, 100 + i};
  std::vector<uint32_t> expected_ids = {4, 7, 1, 2, 6, 0, 5, 3};  // by cell, ties in input order
  const SortStats stats = vksort::sort(test::device(), std::span(cells), std::span(particles), {.algorithm = Algorithm::radix});
  CHECK(std::is_sorted(cells.begin(), cells.end()));
  for (size_t i = 0; i < particles.size(); ++i) {
    CAPTURE(i);
    const uint32_t id = expected_ids[i];
    CHECK(particles[i].id == id);
    CHECK(particles[i].flags == 100 + id);
    CHECK(particles[i].position[0] == float(id));
  }
  // 32-bit values still take the 4-byte path through the same template.
  std::vector<uint32_t> keys = {5, 1, 4}, values = {50, 10, 40};
  vksort::sort(test::device(), std::span(keys), std::span(values));
  CHECK(values == std::vector<uint32_t>{10, 40, 50});
  // The untyped form refuses a size SortOptions refuses.
  std::vector<std::byte> odd(3 * 6);
  CHECK_THROWS_AS(sort_host(test::device(), keys.data(), 3, odd.data(), 6, {}), Error);
}
