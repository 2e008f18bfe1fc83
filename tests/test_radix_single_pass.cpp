// SPDX-License-Identifier: MIT
// The single-pass radix sort (Onesweep with Decoupled Fallback, runtime/src/sort/radix_onesweep.hpp)
// against the CPU reference: every key type x order x with/without values x ranking (counter columns,
// and subgroup ballots where the device has them) on awkward sizes and inputs, with the device's tiles
// and with tiny ones (16 keys: hundreds of tiles, so look-backs go far). Then the look-back's fallback
// forced at 50% and 100% (DeviceOptions::pretend.lookback_stall_percent), the GPU-side decisions
// (sorted on entry, constant digits, the finish copy), bit ranges, a GPU-side count, small devices and
// the recording path. ctest runs the threads case at LP_NUM_THREADS 1, 2 and 8, and the matrix at
// subgroup sizes 4, 8 and 16 and without subgroups. Test names of the matrix end in the key type.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "host_keys.hpp"
#include "reference_sort.hpp"
#include "sort/radix_onesweep.hpp"
#include "support/app_commands.hpp"
#include "support/scoped_env.hpp"
#include "support/sort_check.hpp"
#include "support/test_device.hpp"

using namespace vksort;
using workloads::Distribution;

namespace {

SortOptions single_pass(Key key, Order order, uint32_t value_bytes, RadixRanking ranking) {
  SortOptions o{.key = key, .order = order, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
  o.tuning.radix_scan = RadixScan::single_pass;
  o.tuning.radix_ranking = ranking;
  return o;
}

// Options for a further device whose look-back finds `percent` of its predecessors unpublished, so the
// fallback runs that often.
DeviceOptions stalling_options(uint32_t percent) {
  DeviceOptions o = test::options_like_device();
  o.pretend.lookback_stall_percent = percent;
  return o;
}

// Checks that making a Sorter of `o` on `gpu` is refused as unsupported, with `needle` in the message.
void check_unsupported(Device& gpu, const SortOptions& o, const std::string& needle) {
  try {
    Sorter refused(gpu, o);
    FAIL("not refused: expected an unsupported error naming \"" << needle << "\"");
  } catch (const Error& e) {
    CHECK(e.code() == Status::Code::unsupported);
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

bool has_ballot(const Device& gpu) {
  return gpu.info().subgroup_ballot && gpu.info().subgroup_shuffle && gpu.info().subgroup_size > 0;
}

// Reports the test skipped where `gpu` has no ballot ranking (no subgroup ballot and shuffle).
bool skip_without_ballot(const Device& gpu) {
  if (has_ballot(gpu)) return false;
  test::skip("the device has no subgroup ballot: no ballot ranking");
  return true;
}

// Whether the experiment switch `name` is on ("1") in this process's environment.
bool switched_on(const char* name) {
  const char* v = std::getenv(name);
  return v && std::string(v) == "1";
}
// Whether this process's ballot kernels count a round's first-digit group with one atomic
// (VKSORT_BALLOT_COUNT_AGGREGATE=1, ctest's radix_single_pass_count_aggregate_sg16).
bool count_aggregate() { return switched_on("VKSORT_BALLOT_COUNT_AGGREGATE"); }
// Whether they order the ranking's rounds by one subgroup barrier on shared memory
// (VKSORT_BALLOT_ROUND_BARRIER=1), take full subgroups' lanes from the builtins
// (VKSORT_BALLOT_BUILTIN_LANES=1) and move 32-bit rows' places by atomics (VKSORT_BALLOT_LEADER_ATOMIC=1),
// and whether the per-digit look-back's first round reads a whole window (VKSORT_LOOKBACK_FIRST_WINDOW=1,
// every ranking): ctest's radix_single_pass_experiments_sg16 asks all four.
bool round_barrier() { return switched_on("VKSORT_BALLOT_ROUND_BARRIER"); }
bool builtin_lanes() { return switched_on("VKSORT_BALLOT_BUILTIN_LANES"); }
bool leader_atomic() { return switched_on("VKSORT_BALLOT_LEADER_ATOMIC"); }
bool first_window() { return switched_on("VKSORT_LOOKBACK_FIRST_WINDOW"); }

// Whether this process forces a variant of the ballot kernel that no other ranking's kernel reads
// (VKSORT_BALLOT_ROW_BITS=16, VKSORT_BALLOT_COUNT_AGGREGATE=1, VKSORT_BALLOT_ROUND_BARRIER=1,
// VKSORT_BALLOT_BUILTIN_LANES=1 or VKSORT_BALLOT_LEADER_ATOMIC=1: ctest's radix_single_pass_rows16_sg16,
// _count_aggregate_sg16 and _experiments_sg16), so that the other rankings would only repeat other
// entries' runs.
bool ballot_variant_forced() {
  const char* rows = std::getenv("VKSORT_BALLOT_ROW_BITS");
  return count_aggregate() || round_barrier() || builtin_lanes() || leader_atomic() || (rows && std::string(rows) == "16");
}

// The rankings the single pass has on `gpu`: ballot only where the device has subgroup ballot and shuffle, match
// only where it has subgroup partitions too (a device without them refuses those rankings: tested below);
// ballot alone where a ballot variant is forced and the device has it.
std::vector<RadixRanking> rankings(const Device& gpu) {
  if (ballot_variant_forced() && has_ballot(gpu)) return {RadixRanking::ballot};
  std::vector<RadixRanking> r{RadixRanking::columns};
  if (has_ballot(gpu)) r.push_back(RadixRanking::ballot);
  if (has_ballot(gpu) && gpu.info().subgroup_partitioned) r.push_back(RadixRanking::match);
  return r;
}

template <class U>
std::vector<std::byte> to_bytes(const std::vector<U>& v) {
  std::vector<std::byte> b(v.size() * sizeof(U));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// n values of vb bytes each (none, 32-bit values or records) whose 32-bit words are all distinct (the
// w-th word of the array is w), so a value moved to the wrong place, torn or shifted is a byte difference.
std::vector<std::byte> distinct_values(uint64_t n, uint32_t vb) {
  const std::vector<uint32_t> words = workloads::generate_values(n * (vb / 4));
  std::vector<std::byte> bytes(words.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

// The reference for sorting the first `sorted` keys (and their values of o.value_bytes) by o's order
// and bit range: they are sorted stably, the values moved with them; keys and values past them stay.
void reference_prefix(const SortOptions& o, std::vector<std::byte>& keys, std::vector<std::byte>& values, uint64_t sorted) {
  const size_t kb = key_bytes(o.key), vb = o.value_bytes;
  std::vector<uint32_t> from = workloads::generate_values(sorted);  // 0, 1, ...
  workloads::reference_sort(o.key, o.order, std::span(keys).first(sorted * kb), from, o.begin_bit, o.end_bit);
  if (!vb) return;
  const std::vector<std::byte> before(values.begin(), values.begin() + sorted * vb);
  for (uint64_t i = 0; i < sorted; ++i) std::memcpy(&values[i * vb], &before[size_t(from[i]) * vb], vb);
}

// "" when keys and values equal the reference's byte for byte, else the first difference.
std::string difference(const SortOptions& o, const std::vector<std::byte>& expected, const std::vector<std::byte>& got,
                       const std::vector<std::byte>& expected_values, const std::vector<std::byte>& got_values) {
  std::string diff = workloads::first_difference(o.key, expected, got);
  if (!diff.empty()) return "keys: " + diff;
  for (size_t b = 0; b < expected_values.size(); b += 4)
    if (std::memcmp(&expected_values[b], &got_values[b], 4) != 0)
      return "values: value " + std::to_string(b / o.value_bytes) + " differs at byte " + std::to_string(b % o.value_bytes);
  return got_values.size() == expected_values.size() ? "" : "values differ in size";
}

// A Sorter for `o`, checked by a small sort to run the single pass with the ranking asked for.
Sorter checked_sorter(Device& gpu, const SortOptions& o) {
  Sorter sorter(gpu, o);
  SortStats stats;
  REQUIRE(test::check_on(gpu, sorter, workloads::generate_keys(o.key, {Distribution::uniform, 0}, 100, 3), &stats) == "");
  CHECK(stats.fact("single_pass") == 1.0);
  CHECK(stats.fact("ranking_ballot") == (o.tuning.radix_ranking == RadixRanking::ballot ? 1.0 : 0.0));
  CHECK(stats.fact("ranking_columns") == (o.tuning.radix_ranking == RadixRanking::columns ? 1.0 : 0.0));
  // Digits look back on their own where each invocation owns at most one.
  const double radix = double(1u << uint32_t(*stats.fact("radix_bits")));
  CHECK(stats.fact("lookback_per_digit") == (*stats.fact("workgroup") >= radix ? 1.0 : 0.0));
  return sorter;
}

void single_pass_matrix(Key key) {
  Device& gpu = test::device();
  uint64_t seed = 1;
  for (RadixRanking ranking : rankings(gpu)) {
    INFO("ranking ", to_string(ranking));
    for (Order order : {Order::ascending, Order::descending}) {
      for (uint32_t value_bytes : {0u, 4u}) {
        SortOptions o = single_pass(key, order, value_bytes, ranking);
        Sorter device_tiles = checked_sorter(gpu, o);
        const uint32_t tile = device_tiles.tile_size();
        for (uint64_t n : test::awkward_sizes(16, tile, 100000)) test::check_case(device_tiles, {{Distribution::uniform, 0}, n, seed++});
        for (Distribution d : test::all_distributions)
          for (uint64_t n : {uint64_t(tile) + 1, uint64_t(3 * tile - 3)})
            test::check_case(device_tiles, {workloads::default_spec(d), n, seed++});

        // Tiny tiles (4 invocations x 4 keys): every size up to two tiles + 1, every input at 17 tiles,
        // then hundreds of tiles.
        o.tuning.workgroup_size = 4;
        o.tuning.items_per_thread = 4;
        Sorter tiny = checked_sorter(gpu, o);
        REQUIRE(tiny.tile_size() == 16);
        for (uint64_t n = 0; n <= 2 * 16 + 1; ++n) test::check_case(tiny, {{Distribution::uniform, 0}, n, seed++});
        for (Distribution d : test::all_distributions) test::check_case(tiny, {workloads::default_spec(d), 257, seed++});
        for (Distribution d : test::many_tile_distributions) test::check_case(tiny, {workloads::default_spec(d), 5000, seed++});

        // The other digit widths (2-bit digits: a radix of 4, as many as the tiny workgroup).
        for (uint32_t bits : {2u}) {
          SortOptions w = single_pass(key, order, value_bytes, ranking);
          w.tuning.radix_bits = bits;
          if (bits == 2 && ranking == RadixRanking::columns) w.tuning.workgroup_size = 4;
          Sorter wide = checked_sorter(gpu, w);
          for (uint64_t n : {uint64_t(3), uint64_t(2 * wide.tile_size() + 1), uint64_t(40009)})
            test::check_case(wide, {{Distribution::uniform, 0}, n, seed++});
          test::check_case(wide, {workloads::default_spec(Distribution::special), 3001, seed++});
          w.tuning.workgroup_size = 4;
          w.tuning.items_per_thread = 4;
          Sorter narrow = checked_sorter(gpu, w);
          test::check_case(narrow, {{Distribution::uniform, 0}, 1000, seed++});
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("single-pass radix sort u32") { single_pass_matrix(Key::u32); }
TEST_CASE("single-pass radix sort i32") { single_pass_matrix(Key::i32); }
TEST_CASE("single-pass radix sort f32") { single_pass_matrix(Key::f32); }
TEST_CASE("single-pass radix sort u64") { single_pass_matrix(Key::u64); }
TEST_CASE("single-pass radix sort i64") { single_pass_matrix(Key::i64); }
TEST_CASE("single-pass radix sort f64") { single_pass_matrix(Key::f64); }

// The look-back's fallback, forced: the pretend device makes a share of (tile, predecessor) pairs read
// as unpublished, so the workgroup counts that predecessor's keys itself. At 100% every step of every
// look-back is counted, down to tile 0. The result must not change, and the fact says it happened.
TEST_CASE("single-pass radix sort with the look-back's fallback forced") {
  for (uint32_t percent : {50u, 100u}) {
    Device gpu(stalling_options(percent));
    uint64_t seed = 900;
    for (RadixRanking ranking : rankings(gpu)) {
      for (Key key : {Key::u32, Key::f64}) {
        for (uint32_t items : {4u, 0u}) {
          SortOptions o = single_pass(key, Order::descending, 4, ranking);
          o.tuning.workgroup_size = items ? 4 : 0;
          o.tuning.items_per_thread = items;
          Sorter sorter(gpu, o);
          for (uint64_t n : {uint64_t(2), uint64_t(17), uint64_t(3001), uint64_t(3 * sorter.tile_size() + 5)}) {
            INFO("stall ", percent, "% ", to_string(ranking), " ", to_string(key), " n ", n, " tile ", sorter.tile_size());
            SortStats stats;
            CHECK(test::check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
            const uint64_t tiles = (n + sorter.tile_size() - 1) / sorter.tile_size();
            // Every pass that ran looked back from tiles 1.. at least one step; at 100% each step counted.
            const double runs = *stats.fact("passes_run");
            if (tiles > 1) CHECK(*stats.fact("lookback_fallbacks") > 0);
            if (percent == 100) CHECK(*stats.fact("lookback_fallbacks") == runs * double(tiles * (tiles - 1) / 2));
          }
        }
      }
    }
  }
}

// A look-back that falls back on many predecessors in a row, at CPU drivers' shapes (thousands of keys per
// invocation): lavapipe ends an invocation's loops after 65535 iterations in all, silently, and counting
// a predecessor one key per iteration spent 2048 of them a fallback at the default u32 tile, so that a
// chain of about 31 (LP_NUM_THREADS - 1 workgroups in flight can make one, without pretending) came out
// wrong. At 100% the last tile of 64 falls back on all 63 predecessors; at the default shape, at 4
// invocations of 4096 keys (lavapipe's shape at 4-lane subgroups, LP_NATIVE_VECTOR_WIDTH=128: 64 digits
// an invocation in the lockstep look-back), and 64-bit keys with values. Fails without grouped counting.
TEST_CASE("single-pass radix sort: the look-back's fallback along 63 predecessors, CPU drivers' tiles") {
  Device gpu(stalling_options(100));
  if (gpu.info().type != "cpu") {
    test::skip("not a CPU driver: tiles of a few keys per invocation");
    return;
  }
  uint64_t seed = 2900;
  for (RadixRanking ranking : rankings(gpu)) {
    for (const auto& [key, values, wg, items] : {std::tuple{Key::u32, 0u, 0u, 0u}, {Key::u32, 0u, 4u, 4096u}, {Key::u64, 4u, 0u, 0u}}) {
      SortOptions o = single_pass(key, Order::ascending, values, ranking);
      o.tuning.workgroup_size = wg;
      o.tuning.items_per_thread = items;
      Sorter sorter(gpu, o);
      const uint64_t tiles = 64, n = tiles * sorter.tile_size() - 3;
      INFO(to_string(ranking), " ", to_string(key), " values ", values, " tile ", sorter.tile_size(), " n ", n);
      SortStats stats;
      CHECK(test::check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
      CHECK(*stats.fact("lookback_fallbacks") == *stats.fact("passes_run") * double(tiles * (tiles - 1) / 2));
    }
  }
}

// The look-back of GPU shapes (DeviceOptions::pretend.gpu), reading several predecessors per round (the
// fact lookback_window: the device's choice, and Tuning::lookback_window's 3 and 32). Where each
// invocation owns at most one digit (4-bit digits here; lavapipe's 32 KiB of shared memory keeps
// 8-bit workgroups narrower than 256), each digit walks back on its own (the fact lookback_per_digit),
// else all in lockstep. Tiles of 1 key per invocation make dozens of tiles, so rounds advance by whole
// windows, stop at unpublished tiles (50%) and count every one (100%).
TEST_CASE("single-pass radix sort with GPU shapes: the look-back's window, with the fallback forced") {
  for (const auto& [percent, window] : {std::pair{0u, 0u}, {0u, 32u}, {50u, 3u}, {100u, 0u}}) {
    DeviceOptions shapes = test::options_like_device();
    shapes.pretend.gpu = true;
    shapes.pretend.lookback_stall_percent = percent;
    Device gpu(shapes);
    uint64_t seed = 1900;
    for (RadixRanking ranking : rankings(gpu)) {
      for (const auto& [key, bits] : {std::pair{Key::u32, 8u}, {Key::u32, 4u}, {Key::i64, 4u}}) {
        SortOptions o = single_pass(key, Order::ascending, 4, ranking);
        o.tuning.items_per_thread = 1;
        o.tuning.lookback_window = window;
        o.tuning.radix_bits = bits;
        Sorter sorter(gpu, o);
        for (uint64_t n : {uint64_t(3), uint64_t(5 * sorter.tile_size() - 1), uint64_t(40 * sorter.tile_size() + 3)}) {
          INFO("stall ", percent, "% window ", window, " ", to_string(ranking), " ", to_string(key), " bits ", bits, " n ", n,
               " tile ", sorter.tile_size());
          SortStats stats;
          CHECK(test::check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
          const uint64_t tiles = (n + sorter.tile_size() - 1) / sorter.tile_size();
          const double runs = *stats.fact("passes_run");
          if (window) CHECK(stats.fact("lookback_window") == window);
          else if (ranking == RadixRanking::ballot) CHECK(*stats.fact("lookback_window") > 1);
          CHECK(stats.fact("lookback_per_digit") == (sorter.tile_size() >= (1u << bits) ? 1 : 0));
          CHECK(stats.fact("lookback_first_window") ==
                (first_window() && stats.fact("lookback_per_digit") == 1 && *stats.fact("lookback_window") > 1 ? 1 : 0));
          if (bits == 4) CHECK(stats.fact("lookback_per_digit") == 1);
          if (tiles > 1) CHECK(*stats.fact("lookback_rounds_per_tile") >= 1);
          if (percent == 100) CHECK(*stats.fact("lookback_fallbacks") == runs * double(tiles * (tiles - 1) / 2));
          if (percent == 50 && tiles > 2) CHECK(*stats.fact("lookback_fallbacks") > 0);
        }
      }
    }
  }
}

// ctest runs this case with LP_NUM_THREADS = 1, 2 and 8: workgroups then run one at a time, in pairs,
// or many at once, so predecessors are published, in flight or not yet started when looked at. The
// GPU shapes (pretend.gpu) look back through several predecessors a round; with 4-bit digits (16
// invocations or more per 16 digits) each digit on its own, spinning while its predecessor is unpublished.
TEST_CASE("single-pass radix sort across driver threads") {
  DeviceOptions shapes = test::options_like_device();
  shapes.pretend.gpu = true;
  Device gpu_shapes(shapes);
  uint64_t seed = 500;
  for (Device* gpu : {&test::device(), &gpu_shapes}) {
    for (RadixRanking ranking : rankings(*gpu)) {
      for (uint32_t items : {4u, 16u, 0u}) {
        SortOptions o = single_pass(Key::u32, Order::ascending, 4, ranking);
        o.tuning.workgroup_size = items && gpu != &gpu_shapes ? 4 : 0;
        o.tuning.items_per_thread = items;
        const bool per_digit = gpu == &gpu_shapes && items == 4;
        if (per_digit) o.tuning.radix_bits = 4;
        Sorter sorter(*gpu, o);
        for (uint64_t n : {uint64_t(999), uint64_t(20011), uint64_t(131073)})
          for (Distribution d : {Distribution::uniform, Distribution::few_unique, Distribution::zipf}) {
            INFO("GPU shapes ", gpu == &gpu_shapes, " ", to_string(ranking), " items ", items, " n ", n);
            SortStats stats;
            CHECK(test::check_on(*gpu, sorter, workloads::generate_keys(Key::u32, workloads::default_spec(d), n, seed++), &stats) == "");
            if (per_digit) CHECK(stats.fact("lookback_per_digit") == 1);
          }
      }
    }
  }
}

// The upfront read's order check must see every adjacent pair, also where one invocation's keys end and
// the next one's begin, and across its blocks and the passes' tiles (powers of two on every device):
// sorted keys with one neighbouring pair swapped at such places must sort, not pass for sorted.
// The order check rides on the upfront histogram's read: one swapped neighbour pair anywhere must count
// as an inversion, wherever it falls among the histogram's chunks, batches and blocks (GPUs read whole
// blocks in 16-byte chunks, a chunk's last key's successor apart; the last block key by key), for
// 32- and 64-bit keys, at lavapipe's shapes and a GPU's (pretend.gpu: blocks of 256 invocations).
TEST_CASE("single-pass radix sort: one swapped pair anywhere is out of order") {
  DeviceOptions shapes = test::options_like_device();
  shapes.pretend.gpu = true;
  Device gpu_shapes(shapes);
  for (Device* gpu : {&test::device(), &gpu_shapes}) {
    for (Key key : {Key::u32, Key::u64}) {
      for (RadixRanking ranking : rankings(*gpu)) {
        INFO(to_string(ranking), ", ", to_string(key), " keys, GPU shapes ", gpu == &gpu_shapes);
        Sorter sorter(*gpu, single_pass(key, Order::ascending, 0, ranking));
        const uint64_t n = 3 * uint64_t(sorter.tile_size()) + 5;
        std::vector<uint64_t> places = {0, n - 2};
        for (uint64_t step = 2; step < n; step *= 2)
          for (uint64_t k = 1; k <= 3 && k * step < n; ++k) places.insert(places.end(), {k * step - 1, k * step});
        for (uint64_t at : places) {
          if (at + 1 >= n) continue;
          std::vector<uint64_t> keys(n);
          // Increasing; 64-bit keys differ in both words.
          for (uint64_t i = 0; i < n; ++i) keys[i] = 3 * i + 1 + (key == Key::u64 ? i << 32 : 0);
          std::swap(keys[at], keys[at + 1]);
          INFO("n ", n, " swapped at ", at);
          SortStats stats;
          std::vector<std::byte> bytes;
          if (key == Key::u32) bytes = to_bytes(std::vector<uint32_t>(keys.begin(), keys.end()));
          else bytes = to_bytes(keys);
          CHECK(test::check_on(*gpu, sorter, bytes, &stats) == "");
          CHECK(stats.fact("sorted_on_entry") == 0);
        }
      }
    }
  }
}

TEST_CASE("single-pass radix sort: sorted input runs no pass; constant digits are skipped; the finish copy") {
  Device& gpu = test::device();
  for (RadixRanking ranking : rankings(gpu)) {
    INFO(to_string(ranking));
    for (Key key : {Key::u32, Key::f64}) {
      for (Order order : {Order::ascending, Order::descending}) {
        Sorter sorter(gpu, single_pass(key, order, 4, ranking));
        const Distribution d = order == Order::ascending ? Distribution::sorted : Distribution::reverse;
        for (uint64_t n : {uint64_t(2), uint64_t(5000), uint64_t(100003)}) {
          SortStats stats;
          test::check_case(sorter, {{d, 0}, n, 4}, &stats);
          CHECK(stats.fact("sorted_on_entry") == 1);
          CHECK(stats.fact("passes_run") == 0);
          CHECK(stats.fact("order_checks") == 1);
        }
        SortStats stats;
        test::check_case(sorter, {{Distribution::all_equal, 0}, 7777, 5}, &stats);
        CHECK(stats.fact("passes_run") == 0);
      }
    }
    SortOptions o = single_pass(Key::u32, Order::ascending, 4, ranking);
    o.tuning.radix_bits = 8;
    Sorter sorter(gpu, o);
    uint32_t x = 777;
    auto next = [&] { return x = x * 1664525u + 1013904223u; };
    std::vector<uint32_t> keys(20011);
    SortStats stats;
    // Low 16 bits constant: passes 0 and 1 skipped, 2 and 3 run (data home after an even count).
    for (uint32_t& k : keys) k = (next() & 0xffff0000u) | 0xab;
    CHECK(test::check_on(gpu, sorter, to_bytes(keys), &stats) == "");
    CHECK(stats.fact("passes_skipped") == 2);
    CHECK(stats.fact("passes_run") == 2);
    CHECK(stats.fact("sorted_on_entry") == 0);
    // Byte 1 constant: three passes leave the data in scratch; the finish copy decodes it home.
    for (uint32_t& k : keys) k = (next() & 0xffff00ffu) | 0x5a00;
    CHECK(test::check_on(gpu, sorter, to_bytes(keys), &stats) == "");
    CHECK(stats.fact("passes_skipped") == 1);
    CHECK(stats.fact("passes_run") == 3);
    // The same where the encoding is not the identity: descending signed 64-bit keys, byte 3 zero.
    SortOptions d = single_pass(Key::i64, Order::descending, 4, ranking);
    d.tuning.radix_bits = 8;
    Sorter wide(gpu, d);
    std::vector<int64_t> wk(7001);
    for (int64_t& k : wk) k = int64_t((uint64_t(next()) << 32 | next()) & ~(uint64_t(0xff) << 24));
    CHECK(test::check_on(gpu, wide, to_bytes(wk), &stats) == "");
    CHECK(stats.fact("passes_skipped") == 1);
    CHECK(stats.fact("passes_run") == 7);
  }
}

// On the device as it is, every ranking, and posing as a GPU, the ballot ranking at a small shape (its
// compile on lavapipe is what costs): the upfront histogram counts by shared atomics there, its passes'
// bit range built into the pipeline (onesweep_histogram.comp).
TEST_CASE("single-pass radix sort by a key bit range") {
  DeviceOptions posing = test::options_like_device();
  posing.pretend.gpu = true;
  Device pretend_gpu(posing);
  for (Device* device : {&test::device(), &pretend_gpu}) {
    Device& gpu = *device;
    const bool posing_as_gpu = device == &pretend_gpu;
    if (posing_as_gpu && !has_ballot(gpu)) continue;  // (the histogram's atomics: the same path as above's)
    INFO(gpu.info().type, " device");
    struct Range {
      Key key;
      Order order;
      uint32_t begin, end, bits;
    };
    const Range ranges[] = {{Key::u32, Order::ascending, 8, 24, 8}, {Key::u32, Order::ascending, 31, 32, 2},
                            {Key::f32, Order::descending, 20, 32, 4}, {Key::u64, Order::ascending, 5, 37, 8},
                            {Key::i64, Order::descending, 0, 40, 8}};
    uint64_t seed = 300;
    const std::vector<RadixRanking> tried = posing_as_gpu ? std::vector{RadixRanking::ballot} : rankings(gpu);
    for (RadixRanking ranking : tried) {
      for (const Range& r : ranges) {
        SortOptions o = single_pass(r.key, r.order, 4, ranking);
        o.begin_bit = r.begin;
        o.end_bit = r.end;
        o.tuning.radix_bits = r.bits;
        if (r.bits == 2 && ranking == RadixRanking::columns) o.tuning.workgroup_size = 4;
        if (posing_as_gpu) o.tuning.workgroup_size = 64, o.tuning.items_per_thread = 4;
        Sorter sorter(gpu, o);
        // The reference: a stable sort by those bits of the encoded key, the other bits carried.
        std::vector<std::byte> keys = workloads::generate_keys(r.key, {Distribution::uniform, 0}, 12345, seed++);
        const size_t kb = key_bytes(r.key), n = keys.size() / kb;
        const uint64_t mask = (uint64_t(1) << (r.end - r.begin)) - 1;
        std::vector<uint32_t> order(n);
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        auto field = [&](uint32_t i) { return (workloads::encode_key(r.key, r.order, keys.data() + i * kb) >> r.begin) & mask; };
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return field(a) < field(b); });
        std::vector<std::byte> expected(keys.size());
        for (size_t i = 0; i < n; ++i) std::memcpy(&expected[i * kb], &keys[order[i] * kb], kb);
        Buffer kbuf(gpu, keys.size(), "keys"), vbuf(gpu, n * 4, "values");
        kbuf.upload(keys);
        const std::vector<uint32_t> values = workloads::generate_values(n);
        vbuf.upload(std::as_bytes(std::span(values)));
        sorter.sort(kbuf, &vbuf, n);
        std::vector<std::byte> got(keys.size());
        std::vector<uint32_t> got_values(n);
        kbuf.download(got);
        vbuf.download(std::as_writable_bytes(std::span(got_values)));
        INFO(to_string(ranking), " ", to_string(r.key), " [", r.begin, ", ", r.end, ") bits ", r.bits);
        CHECK(got == expected);
        CHECK(got_values == order);
      }
    }
  }
}

// CPU drivers count the upfront histogram in per-invocation columns: two passes per read of the keys
// where both passes' columns fit in shared memory beside the histograms, one where only one pass's do
// (wider workgroups, longer keys), by atomics where none do. Each, at even and odd numbers of passes
// (bit ranges), sorts as the reference does, and its order check (in the first pass's count) finds an
// input sorted on those bits and one pair swapped, also where two invocations' runs meet. Columns read
// the keys once more per pass or two only where the first read found them out of order: sorted input
// is read once (fact histogram_reads), as reduce-then-scan's first count reads it.
TEST_CASE("single-pass radix sort on a CPU driver: the histogram's columns count two passes per read where they fit") {
  Device& gpu = test::device();
  if (gpu.info().type != "cpu") {
    test::skip("not a CPU driver: the histogram adds by atomics");
    return;
  }
  const uint64_t shared_words = gpu.info().max_shared_memory / 4;
  struct Case {
    Key key;
    uint32_t begin, end, bits, workgroup;
    RadixRanking ranking = RadixRanking::columns;
  };
  // (The passes rank 32-invocation tiles by ballot: their columns would not fit either.)
  const Case cases[] = {{Key::u32, 0, 32, 8, 8},  {Key::u32, 8, 32, 8, 8},   {Key::f32, 12, 32, 4, 8}, {Key::i64, 0, 40, 8, 8},
                        {Key::u64, 0, 64, 8, 16}, {Key::u64, 3, 59, 8, 16}, {Key::u32, 0, 32, 8, 32, RadixRanking::ballot}};
  std::vector<double> seen;
  uint64_t seed = 4100;
  for (const Case& c : cases) {
    if (c.ranking == RadixRanking::ballot && !has_ballot(gpu)) continue;
    SortOptions o = single_pass(c.key, Order::ascending, 4, c.ranking);
    o.begin_bit = c.begin;
    o.end_bit = c.end;
    o.tuning.radix_bits = c.bits;
    o.tuning.workgroup_size = c.workgroup;
    Sorter sorter(gpu, o);
    const uint64_t radix = uint64_t(1) << c.bits, kb = key_bytes(c.key);
    const uint64_t beside = (kb * 8 + c.bits - 1) / c.bits * radix + 2;  // the histograms, two counters
    const double column_passes = radix * c.workgroup + beside > shared_words       ? 0.0
                                 : 2 * radix * c.workgroup + beside <= shared_words ? 2.0
                                                                                    : 1.0;
    const uint64_t passes = (c.end - c.begin + c.bits - 1) / c.bits;
    const double reads = column_passes == 0 ? 1.0 : double((passes + uint64_t(column_passes) - 1) / uint64_t(column_passes));
    const uint64_t n = 3 * uint64_t(sorter.tile_size()) + 5;
    // Uniform keys; the same sorted on the bits; and that with one pair swapped where two invocations'
    // runs meet (the key after a run is read apart) and inside a run.
    std::vector<std::vector<std::byte>> inputs = {workloads::generate_keys(c.key, {Distribution::uniform, 0}, n, seed++)};
    std::vector<std::byte> sorted = inputs[0];
    std::vector<uint32_t> unused(n);
    workloads::reference_sort(c.key, Order::ascending, sorted, unused, c.begin, c.end);
    inputs.push_back(sorted);
    const uint64_t run = sorter.tile_size() / c.workgroup;
    for (uint64_t at : {run - 1, run + 6}) {
      std::vector<std::byte> swapped = sorted;
      const auto pair = [&](uint64_t i) { return std::span(swapped).subspan(i * kb, 2 * kb); };
      // The first pair from `at` on whose keys differ on the bits (equal ones would stay sorted).
      while (workloads::is_sorted_encoded(c.key, Order::descending, pair(at), c.begin, c.end)) at += 1;
      std::swap_ranges(swapped.begin() + at * kb, swapped.begin() + (at + 1) * kb, swapped.begin() + (at + 1) * kb);
      inputs.push_back(swapped);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      INFO(to_string(c.key), " [", c.begin, ", ", c.end, ") bits ", c.bits, " workgroup ", c.workgroup, " input ", i);
      std::vector<std::byte> keys = inputs[i];
      std::vector<uint32_t> values = workloads::generate_values(n);
      Buffer kbuf(gpu, keys.size(), "keys"), vbuf(gpu, n * 4, "values");
      kbuf.upload(keys);
      vbuf.upload(std::as_bytes(std::span(values)));
      const SortStats stats = sorter.sort(kbuf, &vbuf, n);
      std::vector<std::byte> got(keys.size());
      std::vector<uint32_t> got_values(n);
      kbuf.download(got);
      vbuf.download(std::as_writable_bytes(std::span(got_values)));
      workloads::reference_sort(c.key, Order::ascending, keys, values, c.begin, c.end);
      CHECK(workloads::first_difference(c.key, keys, got, values, got_values) == "");
      CHECK(stats.fact("histogram_column_passes") == column_passes);
      // Input 1 is sorted on the bits; the others are not.
      CHECK(stats.fact("sorted_on_entry") == (i == 1 ? 1.0 : 0.0));
      CHECK(stats.fact("histogram_reads") == (i == 1 ? 1.0 : reads));
    }
    seen.push_back(column_passes);
  }
  // The cases reach all three (lavapipe: 32 KiB of shared memory, ballots).
  if (shared_words == 8192 && has_ballot(gpu)) CHECK(seen == std::vector<double>{2, 2, 2, 2, 1, 1, 0});
}

// CPU drivers' histogram columns check the order in a block's first read of its keys; a block that
// found no inversion while no other block had reported one defers its later reads to a second
// dispatch, which reads them only on input out of order: sorted input is read once. With the pretend
// stall no block sees another's inversions, so exactly the blocks without one of their own defer:
// one pair swapped in one block (its first, inside, or its last key with the next block's first)
// defers all the others, whose later reads then must count, or the passes would sort by incomplete
// histograms. Passes in twos, an odd number of them, and one per read (wider workgroup, longer keys).
TEST_CASE("single-pass radix sort on a CPU driver: blocks in order defer their later reads until the order is known") {
  Device& plain = test::device();
  if (plain.info().type != "cpu") {
    test::skip("not a CPU driver: the histogram reads the keys once");
    return;
  }
  Device stalling(stalling_options(50));
  struct Case {
    Key key;
    uint32_t end, workgroup;
  };
  const Case cases[] = {{Key::u32, 32, 8}, {Key::i64, 40, 8}, {Key::u64, 64, 16}};
  uint64_t seed = 4300;
  for (Device* gpu : {&plain, &stalling}) {
    for (const Case& c : cases) {
      SortOptions o = single_pass(c.key, Order::ascending, 4, RadixRanking::columns);
      o.end_bit = c.end;
      o.tuning.workgroup_size = c.workgroup;
      Sorter sorter(*gpu, o);
      const uint64_t kb = key_bytes(c.key), n = 5 * uint64_t(sorter.tile_size()) + 7;
      std::vector<std::byte> sorted = workloads::generate_keys(c.key, {Distribution::uniform, 0}, n, seed++);
      std::vector<uint32_t> unused(n);
      workloads::reference_sort(c.key, Order::ascending, sorted, unused, 0, c.end);
      SortStats stats;
      CHECK(test::check_on(*gpu, sorter, sorted, &stats) == "");
      REQUIRE(stats.fact("histogram_block_keys"));
      const double column_passes = *stats.fact("histogram_column_passes");
      REQUIRE(column_passes > 0);
      const uint64_t block = uint64_t(*stats.fact("histogram_block_keys")), blocks = (n + block - 1) / block;
      const uint64_t passes = (c.end + 7) / 8;
      const double reads = double((passes + uint64_t(column_passes) - 1) / uint64_t(column_passes));
      REQUIRE(blocks >= 3);
      INFO(to_string(c.key), " [0, ", c.end, ") workgroup ", c.workgroup, " stall ", gpu == &stalling, " blocks ", blocks,
           " column passes ", column_passes);
      // In order: every block defers, and nothing more is read.
      CHECK(stats.fact("sorted_on_entry") == 1);
      CHECK(stats.fact("histogram_deferred_blocks") == double(blocks));
      CHECK(stats.fact("histogram_reads") == 1);
      for (uint64_t at : {block, block + block / 2, 2 * block - 1, n - 2}) {
        std::vector<std::byte> swapped = sorted;
        const auto pair = [&](uint64_t i) { return std::span(swapped).subspan(i * kb, 2 * kb); };
        // The first pair from `at` on whose keys differ (an equal pair swapped stays in order), in the
        // same block (the block of a pair's first key counts its inversion).
        const uint64_t in_block = at / block;
        while (workloads::is_sorted_encoded(c.key, Order::descending, pair(at), 0, c.end)) at += 1;
        REQUIRE(at / block == in_block);
        REQUIRE(at + 1 < n);
        std::swap_ranges(swapped.begin() + at * kb, swapped.begin() + (at + 1) * kb, swapped.begin() + (at + 1) * kb);
        INFO("swapped at ", at);
        CHECK(test::check_on(*gpu, sorter, swapped, &stats) == "");
        CHECK(stats.fact("sorted_on_entry") == 0);
        CHECK(stats.fact("histogram_reads") == reads);
        // Stalled: all blocks but the swap's defer; as it is, those that read before it reported.
        if (gpu == &stalling) CHECK(stats.fact("histogram_deferred_blocks") == double(blocks - 1));
        else CHECK(*stats.fact("histogram_deferred_blocks") <= double(blocks - 1));
      }
      // Random keys: every block finds inversions of its own, none defers.
      CHECK(test::check_on(*gpu, sorter, workloads::generate_keys(c.key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
      CHECK(stats.fact("histogram_deferred_blocks") == 0);
      CHECK(stats.fact("histogram_reads") == reads);
    }
  }
}

// The single pass runs a workgroup per tile, so a device's grid (maxComputeWorkGroupCount) bounds its
// keys: on every real GPU far past its 2^30 - 1, on a device pretending 7 x 7 x 7 at 343 tiles. Radix
// sort with the scan left automatic then takes reduce-then-scan (whose workgroups loop over tiles) for
// larger arrays, and the single pass asked for refuses them, instead of recording a dispatch the device
// cannot run (which an H200 showed with test_radix's pretend-small device, session 26).
TEST_CASE("single-pass radix sort beyond the device's grid: reduce-then-scan takes over, or a refusal") {
  DeviceOptions small = test::options_like_device();
  small.pretend = {.max_shared_memory = 8192, .max_workgroup_invocations = 64, .max_workgroup_count = 7};
  small.pretend.gpu = true;
  Device gpu(small);
  SortOptions automatic{.key = Key::u32, .algorithm = Algorithm::radix};
  automatic.tuning.radix_bits = 8;
  Sorter sorter(gpu, automatic);
  const uint64_t most = 7 * 7 * 7 * uint64_t(sorter.tile_size());
  uint64_t seed = 7300;
  for (uint64_t n : {most, most + 1}) {
    SortStats stats;
    INFO("n ", n, " tile ", sorter.tile_size());
    CHECK(test::check_on(gpu, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, n, seed++), &stats) == "");
    CHECK(stats.fact("single_pass") == (n == most ? 1 : 0));
  }
  SortOptions asked = automatic;
  asked.tuning.radix_scan = RadixScan::single_pass;
  Sorter single(gpu, asked);
  REQUIRE(single.tile_size() == sorter.tile_size());
  CHECK(test::check_on(gpu, single, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, most, seed++)) == "");
  const std::vector<std::byte> keys = workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, most + 1, seed++);
  Buffer buffer(gpu, keys.size(), "keys");
  buffer.upload(keys);
  CHECK_THROWS_WITH_AS(single.sort(buffer, nullptr, most + 1), doctest::Contains("more than the single pass takes on this device"), Error);
  std::vector<std::byte> after(keys.size());
  buffer.download(after);
  CHECK(after == keys);
}

// Keys are reached through device addresses, so an array may exceed what one storage-buffer binding can
// see (maxStorageBufferRange: 128 MiB on lavapipe). Both sides of that limit, in the device's ranking.
TEST_CASE("single-pass radix sort of an array larger than maxStorageBufferRange") {
  Device& gpu = test::device();
  const uint64_t range = gpu.info().max_storage_buffer_range;
  const uint64_t beyond = range / 8 + 3;  // u64 keys: 24 bytes past the limit
  if (beyond > (uint64_t(1) << 25)) {
    test::skip("maxStorageBufferRange " + std::to_string(range) + " bytes: beyond it is too large for a test on this device");
    return;
  }
  Sorter sorter(gpu, single_pass(Key::u64, Order::ascending, 0, RadixRanking::automatic));
  test::check_case(sorter, {{Distribution::uniform, 0}, beyond, 12});
}

// The columns ranking (CPU drivers) reaches keys and values through storage-buffer bindings where the
// device takes push descriptors and every range fits one binding at an aligned offset
// (onesweep_bound.glsl), else through device addresses; VKSORT_BOUND_BUFFERS=0 keeps the addresses. The
// ballot ranking (GPUs) keeps the addresses unless VKSORT_BOUND_BUFFERS=1 (an experiment for GPU runs).
// Each way sorts alike, checked against the reference: whole buffers (Sorter::sort, whose fact
// bound_buffers says which way ran), and in a caller's command buffer with keys, values and scratch at
// an offset of the binding alignment (bound) and at 8 bytes off it (addresses: the keys' pairs stay
// aligned). ctest runs it posing as a GPU too (radix_single_pass_bound_gpu_shape), where the ballot
// ranking keeps keys in registers and stages its tile.
TEST_CASE("single-pass radix sort: each ranking binds its buffers where it can and should, else takes addresses") {
  Device& gpu = test::device();
  const gpu::Context& ctx = detail::context_of(gpu);
  // On lavapipe both ways run.
  if (gpu.info().type == "cpu") CHECK(ctx.push_descriptors);
  const VkDeviceSize alignment = std::max<VkDeviceSize>(ctx.push_descriptors ? ctx.min_storage_offset_alignment : 16, 16);
  const uint64_t n = 3000;
  uint64_t seed = 17;
  struct Way {
    RadixRanking ranking;
    std::optional<std::string> env;  // VKSORT_BOUND_BUFFERS (nullopt: unset)
    bool binds;                      // where the device takes push descriptors
  };
  const Way ways[] = {{RadixRanking::columns, std::nullopt, true}, {RadixRanking::columns, "0", false},
                      {RadixRanking::ballot, std::nullopt, false}, {RadixRanking::ballot, "1", true}};
  for (const Way& way : ways) {
    if (way.ranking == RadixRanking::ballot && !has_ballot(gpu)) continue;
    for (Key key : {Key::u32, Key::i64}) {
      for (uint32_t value_bytes : {0u, 4u, 12u}) {  // none, 32-bit values, records (their index in scratch)
        CAPTURE(to_string(way.ranking));
        CAPTURE(way.env.value_or("unset"));
        CAPTURE(to_string(key));
        CAPTURE(value_bytes);
        const SortOptions o = single_pass(key, Order::ascending, value_bytes, way.ranking);
        const uint32_t kb = key_bytes(key);
        const test::ScopedEnv env("VKSORT_BOUND_BUFFERS", way.env);
        Sorter sorter(gpu, o);
        for (VkDeviceSize offset : {VkDeviceSize(0), alignment, alignment + 8}) {
          CAPTURE(offset);
          const auto input = workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++);
          const std::vector<std::byte> input_values = distinct_values(n, value_bytes);
          Buffer keys(gpu, offset + n * kb, "keys"), values(gpu, offset + std::max<uint64_t>(n * value_bytes, 4), "values");
          // (offset 0: whole buffers, as Sorter::sort takes them)
          Buffer scratch(gpu, offset + sorter.scratch_bytes(n), "scratch");
          keys.upload(input, offset);
          if (value_bytes) values.upload(input_values, offset);
          const SortBuffers b{{keys.vk_buffer(), offset, n * kb},
                              value_bytes ? BufferRef{values.vk_buffer(), offset, n * value_bytes} : BufferRef{},
                              {scratch.vk_buffer(), offset, sorter.scratch_bytes(n)}};
          if (offset == 0) {
            const SortStats stats = sorter.sort(keys, value_bytes ? &values : nullptr, n);
            CHECK(stats.fact("bound_buffers") == (ctx.push_descriptors && way.binds ? 1.0 : 0.0));
          } else {
            test::AppCommands app(gpu);
            const Status status = sorter.record(app.cmd(), b, n);
            REQUIRE_MESSAGE(status.ok(), status.message);
            app.submit_and_wait();
          }
          std::vector<std::byte> got(n * kb), got_values(n * value_bytes);
          keys.download(got, offset);
          if (value_bytes) values.download(got_values, offset);
          std::vector<std::byte> expected = input, expected_values = input_values;
          reference_prefix(o, expected, expected_values, n);
          CHECK_MESSAGE(difference(o, expected, got, expected_values, got_values) == "",
                        difference(o, expected, got, expected_values, got_values));
        }
      }
    }
  }
}

// One recording, submitted again after each new count, sorts the first min(count, max_n) keys.
// The ballot kernel keeps a chunk's keys and ranks in registers up to 32 keys per invocation (GPUs):
// its loops over them are unrolled and skip keys past the last. Beyond 32 it loads each key where it
// is used and its loops stop at the last key (CPU drivers). Both sides of that limit, 32- and 64-bit
// keys, with and without values, on sizes that end a subgroup's chunk anywhere: one key, within the
// first round, a round and one, a tile and one either way, several tiles.
TEST_CASE("single-pass radix sort: ballot ranking on both sides of the in-register limit") {
  Device& gpu = test::device();
  if (skip_without_ballot(gpu)) return;
  const uint64_t lanes = gpu.info().subgroup_size;
  uint64_t seed = 1300;
  // Each side with each key width and each with and without values, in four pipelines (each takes
  // lavapipe seconds to compile).
  for (const auto& [items, key, value_bytes] : {std::tuple{32u, Key::u32, 4u}, std::tuple{32u, Key::i64, 0u},
                                                std::tuple{64u, Key::u32, 0u}, std::tuple{64u, Key::i64, 4u}}) {
    INFO(items, " keys per invocation, ", std::string(to_string(key)), " keys, value bytes ", value_bytes);
    SortOptions o = single_pass(key, Order::ascending, value_bytes, RadixRanking::ballot);
    o.tuning.workgroup_size = uint32_t(lanes);  // one subgroup: its chunk is the tile
    o.tuning.items_per_thread = items;
    Sorter sorter = checked_sorter(gpu, o);
    const uint64_t tile = sorter.tile_size();
    REQUIRE(tile == lanes * items);
    for (uint64_t n : {uint64_t(1), uint64_t(2), lanes - 1, lanes + 1, tile - 1, tile, tile + 1, 3 * tile + 5})
      test::check_case(sorter, {{Distribution::uniform, 0}, n, seed++});
    test::check_case(sorter, {workloads::default_spec(Distribution::few_unique), 2 * tile + 3, seed++});
  }
}

// Keys per invocation for the staging test's case in memory (beyond the 32 kept in registers): 64,
// else the most of 48, 40, 36 and 33 whose tile stages early (the most shared memory of the three
// stagings) on `gpu`; 0 where none fits. Two subgroups of 32 lanes x 64 keys, 64-bit with values, stage
// early in 55 KiB: more than NVIDIA's 48 KiB (and lavapipe's 32 posing as such a GPU).
uint32_t staged_items_in_memory(Device& gpu, SortOptions o) {
  o.tuning.radix_staging = RadixStaging::early;
  for (uint32_t items : {64u, 48u, 40u, 36u, 33u}) {
    o.tuning.items_per_thread = items;
    try {
      Sorter fits(gpu, o);
      return items;
    } catch (const Error& e) {
      REQUIRE_MESSAGE(e.code() == Status::Code::unsupported, e.what());
    }
  }
  return 0;
}

// Each staging of the ballot ranking (RadixStaging: direct, late into the histograms' memory after the
// look-back, early into memory of its own as each key is ranked), with keys in registers (4 per
// invocation) and in memory (64 where the device's shared memory stages them: staged_items_in_memory),
// 32- and 64-bit keys with and without values, over many tiles and with half of the look-back's
// predecessors forced unpublished. The facts say which staging ran; automatic stages early where
// histograms and tile fit together.
TEST_CASE("single-pass radix sort: ballot ranking with each staging") {
  Device& plain = test::device();
  if (skip_without_ballot(plain)) return;
  Device stalls(stalling_options(50));
  const uint32_t lanes = plain.info().subgroup_size;
  uint64_t seed = 2800;
  for (RadixStaging staging : {RadixStaging::direct, RadixStaging::late, RadixStaging::early, RadixStaging::automatic}) {
    for (const auto& [in_memory, key, value_bytes] : {std::tuple{false, Key::u32, 4u}, std::tuple{false, Key::i64, 0u},
                                                      std::tuple{true, Key::f32, 0u}, std::tuple{true, Key::u64, 4u}}) {
      SortOptions o = single_pass(key, Order::descending, value_bytes, RadixRanking::ballot);
      o.tuning.workgroup_size = 2 * lanes;  // two subgroups: ranks cross their chunks
      const uint32_t items = in_memory ? staged_items_in_memory(plain, o) : 4u;
      INFO("staging ", to_string(staging), ", ", items, " keys per invocation, ", to_string(key), " keys, value bytes ", value_bytes);
      if (items == 0) {
        test::skip("no tile of more than 32 " + std::string(to_string(key)) + " keys per invocation" +
                   (value_bytes ? " with values" : "") + " stages early in this device's shared memory");
        continue;
      }
      o.tuning.items_per_thread = items;
      o.tuning.radix_staging = staging;
      for (Device* gpu : {&plain, &stalls}) {
        Sorter sorter(*gpu, o);
        const uint64_t tile = sorter.tile_size();
        for (uint64_t n : {uint64_t(2), tile - 1, 7 * tile + 3}) {
          SortStats stats;
          CHECK(test::check_on(*gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
          const bool early = staging == RadixStaging::early || staging == RadixStaging::automatic;
          CHECK(stats.fact("staged") == (staging == RadixStaging::direct ? 0 : 1));
          CHECK(stats.fact("staged_early") == (early ? 1 : 0));
          CHECK(stats.fact("ballot_count_aggregate") == (count_aggregate() ? 1 : 0));
          CHECK(stats.fact("ballot_round_barrier") == (round_barrier() ? 1 : 0));
          CHECK(stats.fact("ballot_builtin_lanes") == (builtin_lanes() && stats.fact("full_subgroups") == 1 ? 1 : 0));
          CHECK(stats.fact("ballot_leader_atomic") == (leader_atomic() && stats.fact("ballot_row_bits") == 32 ? 1 : 0));
        }
        CHECK(test::check_on(*gpu, sorter, workloads::generate_keys(key, workloads::default_spec(Distribution::few_unique), 3 * tile + 1, seed++)) == "");
      }
    }
  }
}

// The ballot ranking takes shapes of no power of two (CUB's Onesweep tiles are 384 invocations x 21 keys):
// three subgroups per workgroup with 5 keys each (in registers) and with 37 (in memory, beyond 32; one
// subgroup of 32 lanes, whose three would not fit lavapipe's 32 KiB staged), each staging, 32-bit keys
// with values and 64-bit keys without, descending, over many tiles and a partial last one, also with
// half of the look-back's predecessors forced unpublished. Then, where shared memory holds it, a
// workgroup of at least one invocation per digit (their digits look back on their own): the least
// multiple of the subgroup size above 256, 3 keys each. ctest runs this at subgroup sizes 4, 8, 16, 32.
TEST_CASE("single-pass radix sort: ballot ranking at shapes of no power of two") {
  Device& plain = test::device();
  if (skip_without_ballot(plain)) return;
  Device stalls(stalling_options(50));
  const uint32_t lanes = plain.info().subgroup_size;
  uint64_t seed = 5100;
  auto check_shape = [&](Device& gpu, const SortOptions& o, std::initializer_list<uint64_t> sizes) {
    Sorter sorter(gpu, o);
    const uint64_t tile = sorter.tile_size();
    REQUIRE(tile == uint64_t(o.tuning.workgroup_size) * o.tuning.items_per_thread);
    for (uint64_t n : sizes) {
      SortStats stats;
      CHECK(test::check_on(gpu, sorter, workloads::generate_keys(o.key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
      CHECK(stats.fact("ranking_ballot") == 1);
      if (n > 1) CHECK(stats.fact("workgroup") == o.tuning.workgroup_size);
      if (n > 1) CHECK(stats.fact("lookback_per_digit") == (o.tuning.workgroup_size >= 256 ? 1 : 0));
    }
    CHECK(test::check_on(gpu, sorter, workloads::generate_keys(o.key, workloads::default_spec(Distribution::few_unique), 3 * tile + 1, seed++)) == "");
  };
  for (RadixStaging staging : {RadixStaging::direct, RadixStaging::late, RadixStaging::early}) {
    for (const auto& [items, key, value_bytes] : {std::tuple{5u, Key::u32, 4u}, std::tuple{5u, Key::i64, 0u},
                                                  std::tuple{37u, Key::u32, 4u}, std::tuple{37u, Key::i64, 0u}}) {
      SortOptions o = single_pass(key, Order::descending, value_bytes, RadixRanking::ballot);
      o.tuning.workgroup_size = items > 32 && lanes > 16 ? lanes : 3 * lanes;
      o.tuning.items_per_thread = items;
      o.tuning.radix_staging = staging;
      INFO("staging ", to_string(staging), ", ", o.tuning.workgroup_size, " invocations x ", items, " keys, ", to_string(key),
           " keys, value bytes ", value_bytes);
      const uint64_t tile = uint64_t(o.tuning.workgroup_size) * items;
      for (Device* gpu : {&plain, &stalls}) check_shape(*gpu, o, {uint64_t(1), tile - 1, tile + 1, 9 * tile + 7});
    }
  }
  SortOptions wide = single_pass(Key::u32, Order::ascending, 4, RadixRanking::ballot);
  wide.tuning.workgroup_size = (256 / lanes + 1) * lanes;
  wide.tuning.items_per_thread = 3;
  wide.tuning.radix_staging = RadixStaging::direct;
  INFO("workgroup ", wide.tuning.workgroup_size);
  bool fits = true;
  try {
    Sorter probe(plain, wide);
  } catch (const Error& e) {
    // Only shared memory may refuse it (lavapipe's 32 KiB at subgroups of 8 or fewer).
    fits = false;
    CHECK(e.code() == Status::Code::unsupported);
    CHECK(std::string(e.what()).find("bytes of shared memory") != std::string::npos);
  }
  if (fits)
    for (Device* gpu : {&plain, &stalls}) check_shape(*gpu, wide, {uint64_t(700), 5000, 40 * uint64_t(wide.tuning.workgroup_size) * 3 + 5});
}

// Where pipelines can require full subgroups (VK_EXT_subgroup_size_control's computeFullSubgroups), the
// ballot kernel's histogram rows take as much shared memory as there are subgroups (fact ballot_rows):
// 32 subgroups x 2 keys sort there, also with half of the look-back's predecessors forced unpublished.
// A device pretending it cannot require them (DeviceOptions::pretend.no_full_subgroups) sizes the rows
// for the fewest live invocations per subgroup vksort knows its driver to run (lavapipe: all of its
// lanes; other drivers half, where 32 subgroups' rows would take 32 KiB and may be refused for shared
// memory). A workgroup of less than a subgroup never requires full ones. ctest runs this at subgroup
// sizes 4, 8 and 16 (lavapipe at 32 lanes cannot require them: DeviceInfo).
TEST_CASE("single-pass radix sort: full subgroups size the ballot rows exactly") {
  Device& plain = test::device();
  if (!has_ballot(plain) || !plain.info().full_subgroups) {
    test::skip("the device cannot require full subgroups (or has no subgroup ballot)");
    return;
  }
  const uint32_t lanes = plain.info().subgroup_size;
  REQUIRE(plain.info().max_subgroup_size >= lanes);
  Device stalls(stalling_options(50));
  DeviceOptions without = test::options_like_device();
  without.pretend.no_full_subgroups = true;
  Device no_full(without);
  CHECK_FALSE(no_full.info().full_subgroups);
  uint64_t seed = 6100;

  SortOptions o = single_pass(Key::u32, Order::ascending, 4, RadixRanking::ballot);
  o.tuning.workgroup_size = std::min(32 * plain.info().max_subgroup_size, plain.info().max_workgroup_invocations);
  o.tuning.items_per_thread = 2;
  o.tuning.radix_staging = RadixStaging::direct;
  INFO("workgroup ", o.tuning.workgroup_size);
  for (Device* gpu : {&plain, &stalls}) {
    Sorter sorter(*gpu, o);
    for (uint64_t n : {uint64_t(3), uint64_t(sorter.tile_size()) + 1, 37 * uint64_t(sorter.tile_size()) - 5}) {
      SortStats stats;
      CHECK(test::check_on(*gpu, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, n, seed++), &stats) == "");
      CHECK(stats.fact("full_subgroups") == 1);
      CHECK(stats.fact("ballot_rows") == o.tuning.workgroup_size / lanes);
      // The lanes from the builtins (an experiment) where asked: full subgroups here.
      CHECK(stats.fact("ballot_builtin_lanes") == (builtin_lanes() ? 1 : 0));
    }
  }
  // Without them, rows for the fewest live invocations the driver is known to run per subgroup
  // (lavapipe: all of its lanes; elsewhere half): twice 32 subgroups' rows alone would be 32 KiB.
  try {
    Sorter sorter(no_full, o);
    SortStats stats;
    CHECK(test::check_on(no_full, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 5000, seed++), &stats) == "");
    CHECK(stats.fact("full_subgroups") == 0);
    CHECK(stats.fact("ballot_builtin_lanes") == 0);  // counted by ballot without full subgroups, asked or not
    CHECK(stats.fact("ballot_rows") == o.tuning.workgroup_size / gpu::partial_subgroup_lanes(no_full.info()));
  } catch (const Error& e) {
    CHECK(e.code() == Status::Code::unsupported);
    CHECK(std::string(e.what()).find("bytes of shared memory") != std::string::npos);
  }
  // Less than one subgroup: never full.
  if (lanes >= 8) {
    o.tuning.workgroup_size = lanes / 2;
    Sorter partial(plain, o);
    SortStats stats;
    CHECK(test::check_on(plain, partial, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 999, seed++), &stats) == "");
    CHECK(stats.fact("full_subgroups") == 0);
  }
}

// Vulkan bounds neither how many subgroups a workgroup has nor how full they are unless the pipeline
// requires full ones. A ballot workgroup with more subgroups than the rows it was built with (here: rows
// counted on twice the subgroup size, VKSORT_BALLOT_SUBGROUP_LANES, which no driver runs) refuses instead of indexing
// past them: the sort throws, saying the keys and values are unchanged, and they are, byte for byte;
// also where the first pass that runs is not pass 0 (a constant lowest digit), and with the look-back's
// fallback forced. The knob takes 1 to 128 lanes.
TEST_CASE("single-pass radix sort: a ballot workgroup of more subgroups than rows refuses, the keys unchanged") {
  if (skip_without_ballot(test::device())) return;
  DeviceOptions options = test::options_like_device();
  options.pretend.no_full_subgroups = true;
  Device no_full(options);
  options.pretend.lookback_stall_percent = 50;
  Device no_full_stalls(options);
  const uint32_t lanes = gpu::partial_subgroup_lanes(no_full.info());
  SortOptions o = single_pass(Key::u32, Order::ascending, 4, RadixRanking::ballot);
  // 4 subgroups or more (full ones, or partial), rows for 2 (for 4 where subgroups of 128 are counted
  // as 128, the knob's most: lavapipe runs them 16 wide).
  const uint32_t size = no_full.info().subgroup_size;
  o.tuning.workgroup_size = 4 * size;
  o.tuning.items_per_thread = 4;
  const uint32_t counted = std::min(2 * size, 128u);
  for (const char* bad : {"0", "129", "x", "-1", "1000"}) {
    const test::ScopedEnv env("VKSORT_BALLOT_SUBGROUP_LANES", bad);
    INFO("VKSORT_BALLOT_SUBGROUP_LANES=", bad);
    CHECK_THROWS_WITH_AS(Sorter(no_full, o), doctest::Contains("VKSORT_BALLOT_SUBGROUP_LANES"), Error);
  }
  const test::ScopedEnv env("VKSORT_BALLOT_SUBGROUP_LANES", std::to_string(counted));
  uint64_t seed = 6300;
  for (Device* gpu : {&no_full, &no_full_stalls}) {
    Sorter sorter(*gpu, o);
    for (bool constant_low_digit : {false, true}) {
      INFO("constant lowest digit: ", constant_low_digit);
      const uint64_t n = 3 * uint64_t(sorter.tile_size()) + 5;
      const std::vector<std::byte> bytes = workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, n, seed++);
      std::vector<uint32_t> keys(n), values(n);
      std::memcpy(keys.data(), bytes.data(), bytes.size());
      for (uint64_t i = 0; i < n; ++i) {
        if (constant_low_digit) keys[i] = (keys[i] & ~0xffu) | 0x5au;
        values[i] = uint32_t(i * 2654435761u);
      }
      Buffer kb(*gpu, n * 4, "keys"), vb(*gpu, n * 4, "values");
      kb.upload(std::as_bytes(std::span(keys)));
      vb.upload(std::as_bytes(std::span(values)));
      try {
        sorter.sort(kb, &vb, n);
        FAIL("the sort did not refuse");
      } catch (const Error& e) {
        CHECK(e.code() == Status::Code::unsupported);
        CHECK(std::string(e.what()).find("more subgroups than") != std::string::npos);
        CHECK(std::string(e.what()).find("are unchanged") != std::string::npos);
        CHECK(std::string(e.what()).find(constant_low_digit ? "pass 1 " : "pass 0 ") != std::string::npos);
      }
      std::vector<uint32_t> keys_after(n), values_after(n);
      kb.download(std::as_writable_bytes(std::span(keys_after)));
      vb.download(std::as_writable_bytes(std::span(values_after)));
      CHECK(keys_after == keys);
      CHECK(values_after == values);
    }
  }
  // Rows for the lanes lavapipe runs: the same sorter's shape sorts.
  const test::ScopedEnv unset("VKSORT_BALLOT_SUBGROUP_LANES", std::nullopt);
  Sorter sorter(no_full, o);
  SortStats stats;
  CHECK(test::check_on(no_full, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 3001, seed++), &stats) == "");
  CHECK(stats.fact("ballot_rows") == o.tuning.workgroup_size / lanes);
}

// The ballot ranking's histogram rows: 32-bit counters (a plain load and store per ranking round)
// wherever the shape and staging fit with them, 16-bit ones (two to a word, an atomic per round) where
// only those fit. Growing a staged-early tile of two subgroups until 32-bit rows no longer fit finds a
// tile that takes 16-bit rows; both sort right, also with half of the look-back's predecessors
// unpublished, and VKSORT_BALLOT_ROW_BITS=32 is refused there. (ctest's radix_single_pass_rows16_sg16
// runs the ballot cases with 16-bit rows forced at a GPU's shape.)
TEST_CASE("single-pass radix sort: ballot rows of 32-bit counters where they fit, else 16-bit") {
  Device& plain = test::device();
  if (skip_without_ballot(plain)) return;
  // The runtime's own choice, also where ctest forces a width for the other cases (restored on leaving).
  const test::ScopedEnv row_bits_env("VKSORT_BALLOT_ROW_BITS", std::nullopt);
  Device stalls(stalling_options(50));
  const uint32_t lanes = plain.info().subgroup_size;
  uint64_t seed = 6400;
  SortOptions o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::ballot);
  o.tuning.workgroup_size = 2 * lanes;
  o.tuning.radix_staging = RadixStaging::early;
  auto row_bits = [&](Device& gpu, Sorter& sorter, uint64_t n) {
    SortStats stats;
    CHECK(test::check_on(gpu, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, n, seed++), &stats) == "");
    return stats.fact("ballot_row_bits");
  };
  o.tuning.items_per_thread = 4;
  {
    Sorter small(plain, o);
    CHECK(row_bits(plain, small, 5 * small.tile_size() + 1) == 32);
  }
  // The most keys per invocation (a multiple of 4) that stage early at all (bisection: 4 fits, `most`
  // does not), then down until 32-bit rows fit.
  uint32_t items = 4, most = (1u << 15) / o.tuning.workgroup_size + 4;
  while (most - items > 4) {
    const uint32_t mid = (items + most) / 2 / 4 * 4;
    o.tuning.items_per_thread = mid;
    try {
      Sorter probe(plain, o);
      items = mid;
    } catch (const Error&) {
      most = mid;
    }
  }
  bool narrow = false;
  for (uint32_t tries = 0; tries < 64 && items >= 4; ++tries, items -= 4) {
    o.tuning.items_per_thread = items;
    Sorter sorter(plain, o);
    INFO(items, " keys per invocation, tile ", sorter.tile_size());
    if (row_bits(plain, sorter, 3 * sorter.tile_size() + 7) == 32) break;
    narrow = true;
    Sorter stalling(stalls, o);
    CHECK(row_bits(stalls, stalling, 9 * sorter.tile_size() - 2) == 16);
    // 32-bit rows forced there do not fit.
    row_bits_env.set("32");
    check_unsupported(plain, o, "VKSORT_BALLOT_ROW_BITS=32 needs");
    row_bits_env.set(std::nullopt);
  }
  CHECK(narrow);
  // Bad values are refused when a sorter is made (the experiments' switches too).
  row_bits_env.set("24");
  CHECK_THROWS_WITH_AS(Sorter(plain, o), doctest::Contains("VKSORT_BALLOT_ROW_BITS is \"24\"; it takes 16 or 32"), Error);
  row_bits_env.set(std::nullopt);
  for (const auto& [name, bad] : {std::pair{"VKSORT_BALLOT_COUNT_AGGREGATE", "yes"}, {"VKSORT_BALLOT_ROUND_BARRIER", "2"},
                                  {"VKSORT_BALLOT_BUILTIN_LANES", "on"}, {"VKSORT_BALLOT_LEADER_ATOMIC", "true"},
                                  {"VKSORT_LOOKBACK_FIRST_WINDOW", "8"}}) {
    const test::ScopedEnv switch_env(name, std::string(bad));  // (the process's own value back at the end)
    const std::string message = std::string(name) + " is \"" + bad + "\"; it takes 0 or 1";
    CHECK_THROWS_WITH_AS(Sorter(plain, o), doctest::Contains(message.c_str()), Error);
  }
}

// The upfront histogram's copies of each counter (onesweep_histogram.comp), over which a subgroup's lanes
// that share a digit spread their atomics. On a GPU's shapes (lavapipe posing as one, 32 KiB of shared
// memory) as many as fit in half of it, up to 4: 4 for 32-bit keys, 2 for 64-bit ones. The counts are
// right with every number forced, on inputs whose digits are skewed or constant for every key (64-bit
// keys below 2^20: five of eight digits); a number that does not fit is refused, a bad one too.
TEST_CASE("single-pass radix sort: the histogram's copies of each counter") {
  const test::ScopedEnv replicas_env("VKSORT_HISTOGRAM_REPLICAS", std::nullopt);
  DeviceOptions shapes = test::options_like_device();
  shapes.pretend.gpu = true;
  Device gpu(shapes);
  const uint32_t shared = gpu.info().max_shared_memory;
  uint64_t seed = 7600;
  for (Key key : {Key::u32, Key::u64}) {
    const uint64_t histogram_bytes = uint64_t(key_bytes(key)) * 256 * 4;  // a pass per key byte, one copy
    uint32_t fitting = 4;
    while (fitting > 1 && fitting * histogram_bytes > shared / 2) fitting /= 2;
    for (const char* forced : {"", "1", "2", "4", "8"}) {
      INFO(to_string(key), " keys, VKSORT_HISTOGRAM_REPLICAS=\"", forced, "\"");
      replicas_env.set(std::string(forced));
      SortOptions o = single_pass(key, Order::ascending, 0, RadixRanking::automatic);
      o.tuning.radix_bits = 8;
      const uint32_t replicas = *forced ? uint32_t(std::stoul(forced)) : fitting;
      if (replicas * histogram_bytes + 64 > shared) {
        check_unsupported(gpu, o, std::string("VKSORT_HISTOGRAM_REPLICAS=") + forced + " needs");
        continue;
      }
      Sorter sorter(gpu, o);
      const uint64_t tile = sorter.tile_size();
      for (uint64_t n : {3 * tile + 5, uint64_t(20011)}) {
        std::vector<std::vector<std::byte>> inputs;
        for (workloads::DistributionSpec d : {workloads::DistributionSpec{Distribution::uniform, 0}, workloads::DistributionSpec{Distribution::few_unique, 3},
                                   workloads::DistributionSpec{Distribution::entropy, 4}})
          inputs.push_back(workloads::generate_keys(key, d, n, seed++));
        if (key == Key::u64) {
          std::vector<uint64_t> small(n);
          std::memcpy(small.data(), inputs[0].data(), n * 8);
          for (uint64_t& k : small) k &= (uint64_t(1) << 20) - 1;
          inputs.push_back(to_bytes(small));
        }
        for (size_t i = 0; i < inputs.size(); ++i) {
          INFO("n ", n, ", input ", i);
          SortStats stats;
          CHECK(test::check_on(gpu, sorter, inputs[i], &stats) == "");
          CHECK(stats.fact("histogram_replicas") == double(replicas));
        }
      }
    }
  }
  replicas_env.set("3");
  CHECK_THROWS_WITH_AS(Sorter(gpu, single_pass(Key::u32, Order::ascending, 0, RadixRanking::automatic)),
                       doctest::Contains("VKSORT_HISTOGRAM_REPLICAS is \"3\"; it takes 1, 2, 4 or 8"), Error);
}

// A described GPU as NVIDIA's H100 and H200 report themselves: subgroups of 32, full subgroups on
// request, 48 KiB of shared memory, 1024 invocations.
static DeviceInfo described_nvidia_gpu() {
  DeviceInfo gpu;
  gpu.type = "discrete";
  gpu.subgroup_size = gpu.max_subgroup_size = 32;
  gpu.full_subgroups = true;
  gpu.max_shared_memory = 48 * 1024;
  gpu.max_workgroup_invocations = 1024;
  return gpu;
}

// The ballot ranking's default workgroup (RadixOnesweep::default_ballot_workgroup), on described
// devices: 384 invocations for 32-bit keys alone where a tile of 384 x 16 stages early (measured on an
// H200), 256 for pairs and 64-bit keys and where 384 does not fit, halved where even the histogram rows
// do not fit; one subgroup on CPU drivers. Lavapipe's 32 KiB never takes 384 (so the sorts elsewhere in
// this file run 256 when posing as a GPU): what a 384-invocation workgroup sorts is tested by the
// shapes of no power of two above and on GPUs (scripts/gpu-check.sh).
TEST_CASE("single-pass radix sort: the ballot ranking's default workgroup per device") {
  const DeviceInfo gpu = described_nvidia_gpu();
  using algo::RadixOnesweep;
  CHECK(RadixOnesweep::default_ballot_workgroup(gpu, Key::u32, false, 8) == 384);
  CHECK(RadixOnesweep::default_ballot_workgroup(gpu, Key::f32, false, 8) == 384);
  CHECK(RadixOnesweep::default_ballot_workgroup(gpu, Key::i32, true, 8) == 256);
  CHECK(RadixOnesweep::default_ballot_workgroup(gpu, Key::u64, false, 8) == 256);
  DeviceInfo wave64 = gpu;  // AMD-like: subgroups of 64, 64 KiB
  wave64.subgroup_size = wave64.max_subgroup_size = 64;
  wave64.max_shared_memory = 64 * 1024;
  CHECK(RadixOnesweep::default_ballot_workgroup(wave64, Key::u32, false, 8) == 384);
  DeviceInfo no_full = gpu;  // rows for twice the subgroups: 384 x 16 staged early needs 45 KiB, fits 48
  no_full.full_subgroups = false;
  CHECK(RadixOnesweep::default_ballot_workgroup(no_full, Key::u32, false, 8) == 384);
  DeviceInfo small = gpu;  // 32 KiB: 384 x 16 staged early does not fit
  small.max_shared_memory = 32 * 1024;
  CHECK(RadixOnesweep::default_ballot_workgroup(small, Key::u32, false, 8) == 256);
  DeviceInfo few = gpu;  // at most 256 invocations
  few.max_workgroup_invocations = 256;
  CHECK(RadixOnesweep::default_ballot_workgroup(few, Key::u32, false, 8) == 256);
  DeviceInfo wide = gpu;  // subgroups of 128 (Vulkan's largest) divide 384 too
  wide.subgroup_size = wide.max_subgroup_size = 128;
  wide.max_shared_memory = 64 * 1024;
  CHECK(RadixOnesweep::default_ballot_workgroup(wide, Key::u32, false, 8) == 384);
  DeviceInfo tiny = gpu;  // 8 KiB: the rows and look-back of 256 invocations do not fit; halved
  tiny.max_shared_memory = 8 * 1024;
  const uint32_t halved = RadixOnesweep::default_ballot_workgroup(tiny, Key::u32, false, 8);
  CHECK(halved < 256);
  CHECK(halved >= 1);
  DeviceInfo cpu = gpu;
  cpu.type = "cpu";
  cpu.subgroup_size = cpu.max_subgroup_size = 8;
  CHECK(RadixOnesweep::default_ballot_workgroup(cpu, Key::u32, false, 8) == 8);

  // The device this runs on: a sort that leaves the workgroup to it reports the same.
  Device& plain = test::device();
  if (skip_without_ballot(plain)) return;
  Sorter sorter(plain, single_pass(Key::u32, Order::ascending, 0, RadixRanking::ballot));
  SortStats stats;
  CHECK(test::check_on(plain, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 20000, 6200), &stats) == "");
  CHECK(stats.fact("workgroup") == RadixOnesweep::default_ballot_workgroup(plain.info(), Key::u32, false, 8));
}

// Their default keys per invocation (RadixOnesweep::default_ballot_items) on described devices: 16 on
// GPUs for every key kind and workgroup (20 for 32-bit keys alone took an H200's pass kernel to 87
// registers, one workgroup per SM: 1.29x slower, session 53), CPU drivers the column ranking's tile. 20
// keys per invocation are sorted here by asking for them.
TEST_CASE("single-pass radix sort: the ballot ranking's default keys per invocation per device") {
  const DeviceInfo gpu = described_nvidia_gpu();
  using algo::RadixOnesweep;
  for (uint32_t wg : {64u, 256u, 384u, 1024u}) CHECK(RadixOnesweep::default_ballot_items(gpu, wg) == 16);
  DeviceInfo wave64 = gpu;  // AMD-like: subgroups of 64, 64 KiB
  wave64.subgroup_size = wave64.max_subgroup_size = 64;
  wave64.max_shared_memory = 64 * 1024;
  CHECK(RadixOnesweep::default_ballot_items(wave64, 384) == 16);
  DeviceInfo cpu = gpu;
  cpu.type = "cpu";
  cpu.subgroup_size = cpu.max_subgroup_size = 8;
  CHECK(RadixOnesweep::default_ballot_items(cpu, 8) == 2048);

  // The device this runs on: a sort that leaves the shape to it reports the same; and 20 keys per
  // invocation sort (with and without values) where asked for.
  Device& plain = test::device();
  if (skip_without_ballot(plain)) return;
  uint64_t seed = 6300;
  for (uint32_t value_bytes : {0u, 4u}) {
    SortOptions o = single_pass(Key::u32, Order::descending, value_bytes, RadixRanking::ballot);
    {
      Sorter sorter(plain, o);
      const uint32_t wg = RadixOnesweep::default_ballot_workgroup(plain.info(), o.key, value_bytes != 0, 8);
      SortStats stats;
      CHECK(test::check_on(plain, sorter, workloads::generate_keys(o.key, {Distribution::uniform, 0}, 3001, seed++), &stats) == "");
      CHECK(stats.fact("workgroup") == wg);
      // The staged tile may have been halved to fit this device: at most the default.
      CHECK(sorter.tile_size() <= uint64_t(wg) * RadixOnesweep::default_ballot_items(plain.info(), wg));
    }
    o.tuning.workgroup_size = 2 * plain.info().subgroup_size;
    o.tuning.items_per_thread = 20;
    Sorter twenty(plain, o);
    REQUIRE(twenty.tile_size() == 40 * plain.info().subgroup_size);
    for (uint64_t n : {twenty.tile_size() - 1, 3 * twenty.tile_size() + 5})
      test::check_case(twenty, {{Distribution::uniform, 0}, n, seed++});
  }
}

TEST_CASE("single-pass radix sort with a GPU-side count") {
  Device& gpu = test::device();
  for (RadixRanking ranking : rankings(gpu)) {
    const SortOptions o = single_pass(Key::u32, Order::ascending, 4, ranking);
    Sorter sorter(gpu, o);
    const uint64_t max_n = 3 * sorter.tile_size() + 17;
    const auto input = workloads::generate_keys(o.key, {Distribution::uniform, 0}, max_n, 5);
    const auto input_values = workloads::generate_values(max_n);
    Buffer keys(gpu, max_n * 4, "keys"), values(gpu, max_n * 4, "values"), count(gpu, 4, "count");
    Buffer scratch(gpu, sorter.scratch_bytes_indirect(max_n), "scratch");
    test::AppCommands app(gpu);
    const Status status = sorter.record_indirect(app.cmd(), {keys.ref(), values.ref(), scratch.ref()}, count.ref(), max_n);
    REQUIRE_MESSAGE(status.ok(), status.message);
    bool first = true;
    for (uint64_t c : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(sorter.tile_size()) + 1, max_n - 1, max_n + 1000}) {
      CAPTURE(c);
      keys.upload(input);
      values.upload(std::as_bytes(std::span(input_values)));
      const uint32_t c32 = uint32_t(c);
      count.upload(std::as_bytes(std::span(&c32, 1)));
      if (first) app.submit_and_wait();
      else app.submit_again_and_wait();
      first = false;
      std::vector<std::byte> got(max_n * 4);
      std::vector<uint32_t> got_values(max_n);
      keys.download(got);
      values.download(std::as_writable_bytes(std::span(got_values)));
      const uint64_t sorted = std::min(c, max_n);
      std::vector<std::byte> expected(input.begin(), input.begin() + sorted * 4);
      std::vector<uint32_t> expected_values(input_values.begin(), input_values.begin() + sorted);
      workloads::reference_sort(o.key, o.order, expected, expected_values);
      expected.insert(expected.end(), input.begin() + sorted * 4, input.end());
      expected_values.insert(expected_values.end(), input_values.begin() + sorted, input_values.end());
      CHECK(workloads::first_difference(o.key, expected, got, expected_values, got_values) == "");
    }
  }
}

// The GPU-side count beyond u32 keys with 4-byte values: 64-bit keys alone, 64-bit floats with 4-byte
// values, 12-byte records (a few distinct keys: stability), and a bit range of an odd number of passes
// (the finish copy). Up to 2^12 + 3 keys in buffers that hold 5 more: counts of none, one, fewer than
// max_n, max_n and beyond it; keys and values past min(count, max_n) must stay as they were.
TEST_CASE("single-pass radix sort with a GPU-side count: 64-bit keys, records, a bit range") {
  Device& gpu = test::device();
  struct Case {
    Key key;
    Order order;
    uint32_t value_bytes, begin, end;
    Distribution input;
  };
  const Case cases[] = {{Key::u64, Order::descending, 0, 0, 0, Distribution::uniform},
                        {Key::f64, Order::descending, 4, 0, 0, Distribution::special},
                        {Key::i64, Order::ascending, 12, 0, 0, Distribution::few_unique},
                        {Key::i32, Order::descending, 4, 3, 27, Distribution::uniform}};
  const uint64_t max_n = (uint64_t(1) << 12) + 3, capacity = max_n + 5;
  uint64_t seed = 900;
  for (RadixRanking ranking : rankings(gpu)) {
    for (const Case& c : cases) {
      SortOptions o = single_pass(c.key, c.order, c.value_bytes, ranking);
      o.begin_bit = c.begin;
      o.end_bit = c.end;
      Sorter sorter(gpu, o);
      INFO(to_string(ranking), " ", to_string(c.key), " ", to_string(c.order), " value_bytes ", c.value_bytes, " bits [",
           c.begin, ", ", c.end, ") tile ", sorter.tile_size());
      const size_t kb = key_bytes(c.key), vb = c.value_bytes;
      const std::vector<std::byte> input = workloads::generate_keys(c.key, workloads::default_spec(c.input), capacity, seed++);
      const std::vector<std::byte> input_values = distinct_values(capacity, c.value_bytes);
      Buffer keys(gpu, capacity * kb, "keys"), count(gpu, 4, "count");
      std::optional<Buffer> values;
      if (vb) values.emplace(gpu, capacity * vb, "values");
      Buffer scratch(gpu, sorter.scratch_bytes_indirect(max_n), "scratch");
      test::AppCommands app(gpu);
      const SortBuffers b{keys.ref(), values ? values->ref() : BufferRef{}, scratch.ref()};
      const Status status = sorter.record_indirect(app.cmd(), b, count.ref(), max_n);
      REQUIRE_MESSAGE(status.ok(), status.message);
      bool first = true;
      for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(sorter.tile_size()) + 1, (uint64_t(1) << 11) + 5, max_n, max_n + 1000}) {
        CAPTURE(n);
        keys.upload(input);
        if (values) values->upload(input_values);
        const uint32_t n32 = uint32_t(n);
        count.upload(std::as_bytes(std::span(&n32, 1)));
        if (first) app.submit_and_wait();
        else app.submit_again_and_wait();
        first = false;
        std::vector<std::byte> got(input.size()), got_values(input_values.size());
        keys.download(got);
        if (values) values->download(got_values);
        std::vector<std::byte> expected = input, expected_values = input_values;
        reference_prefix(o, expected, expected_values, std::min(n, max_n));
        const std::string diff = difference(o, expected, got, expected_values, got_values);
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
}

// A bit range with records (the index sort, then the gather) on the single pass: 32- and 64-bit keys,
// 12- and 16-byte records, odd and even numbers of passes, inputs with ties (stability within the field).
TEST_CASE("single-pass radix sort by a key bit range, with records") {
  Device& gpu = test::device();
  uint64_t seed = 950;
  for (RadixRanking ranking : rankings(gpu)) {
    for (const test::RecordBitRange& r : test::record_bit_ranges) {
      SortOptions o = single_pass(r.key, r.order, r.record_bytes, ranking);
      o.begin_bit = r.begin;
      o.end_bit = r.end;
      Sorter sorter(gpu, o);
      for (uint64_t n : {uint64_t(3 * sorter.tile_size() + 7), uint64_t(12345)}) {
        INFO(to_string(ranking), " ", to_string(r.key), " ", to_string(r.order), " records of ", r.record_bytes, " bytes [",
             r.begin, ", ", r.end, ") n ", n);
        const std::vector<std::byte> input = workloads::generate_keys(r.key, workloads::default_spec(r.input), n, seed++);
        const std::vector<std::byte> input_records = distinct_values(n, r.record_bytes);
        Buffer keys(gpu, input.size(), "keys"), records(gpu, input_records.size(), "records");
        keys.upload(input);
        records.upload(input_records);
        const SortStats stats = sorter.sort(keys, &records, n);
        CHECK(stats.fact("single_pass") == 1.0);
        std::vector<std::byte> got(input.size()), got_records(input_records.size());
        keys.download(got);
        records.download(got_records);
        std::vector<std::byte> expected = input, expected_records = input_records;
        reference_prefix(o, expected, expected_records, n);
        const std::string diff = difference(o, expected, got, expected_records, got_records);
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
}

TEST_CASE("single-pass radix sort on a pretend-small device: 3-D grids, little shared memory") {
  DeviceOptions small = test::options_like_device();
  small.pretend = {.max_shared_memory = 8192, .max_workgroup_invocations = 32, .max_workgroup_count = 7};
  Device gpu(small);
  uint64_t seed = 50;
  for (RadixRanking ranking : rankings(gpu)) {
    for (Key key : {Key::u32, Key::f64}) {
      SortOptions o = single_pass(key, Order::ascending, 4, ranking);
      o.tuning.radix_bits = 4;
      o.tuning.workgroup_size = ranking == RadixRanking::columns ? 8 : 0;
      o.tuning.items_per_thread = 4;
      Sorter sorter(gpu, o);
      // Up to 313 tiles of 32 keys: the grids need the third dimension (> 49 groups), within the 7^3 a
      // dispatch may have.
      for (uint64_t n : {uint64_t(1000), uint64_t(10007)}) {
        INFO(to_string(ranking), " ", to_string(key), " n ", n, " tile ", sorter.tile_size());
        CHECK(test::check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++)) == "");
      }
    }
  }
}

TEST_CASE("single-pass radix sort records into a caller's command buffer: two sorts share one scratch") {
  for (RadixRanking ranking : rankings(test::device()))
    test::check_two_recorded_sorts(single_pass(Key::f32, Order::descending, 4, ranking));
}

TEST_CASE("single-pass radix sort reports its path, dispatches, barriers, bytes per key and phases") {
  Device& gpu = test::device();
  SortOptions o = single_pass(Key::u32, Order::ascending, 4, RadixRanking::columns);
  Sorter sorter(gpu, o);
  SortStats stats;
  REQUIRE(test::check_on(gpu, sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 50000, 9), &stats) == "");
  CHECK(stats.fact("single_pass") == 1);
  CHECK(stats.fact("passes_recorded") == 4);
  // Init, histogram, plan, 4 passes, finish; CPU drivers' columns (two passes per read of the keys
  // here) in two histogram dispatches, one per read (the second cancelled on sorted input).
  const double column_passes = *stats.fact("histogram_column_passes");
  const double reads = column_passes == 0 ? 1 : 4 / column_passes;
  if (gpu.info().type == "cpu") CHECK(reads == 2);
  CHECK(stats.fact("histogram_reads") == reads);
  CHECK(stats.fact("dispatches") == 3 + reads + 4);
  CHECK(stats.fact("global_barriers") == 2 + reads + 4);
  // The histogram's reads; per pass keys read twice, written, values moved.
  CHECK(stats.fact("bytes_per_key") == 4 * reads + 4 * (8 + 4 + 8));
  REQUIRE(gpu.info().timestamps);
  std::vector<std::string> names;
  for (const auto& [name, ms] : stats.phases_ms) names.push_back(name);
  CHECK(names == std::vector<std::string>{"histogram", "pass", "finish"});  // same names add up

  // Ballot ranking stages a tile that fits shared memory (tiny tiles here) for coalesced writes.
  if (has_ballot(gpu)) {
    SortOptions b = single_pass(Key::u32, Order::ascending, 4, RadixRanking::ballot);
    b.tuning.workgroup_size = 4;
    b.tuning.items_per_thread = 4;
    Sorter staged(gpu, b);
    REQUIRE(test::check_on(gpu, staged, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 999, 9), &stats) == "");
    CHECK(stats.fact("staged") == 1);
  }
  // Wide workgroups on a CPU driver: the histogram's per-invocation columns (RADIX x workgroup
  // counters) would not fit its shared memory, so it counts by atomics; sorted right, validation silent.
  if (has_ballot(gpu) && gpu.info().type == "cpu") {
    for (Key key : {Key::u32, Key::u64}) {
      SortOptions wide = single_pass(key, Order::ascending, 0, RadixRanking::ballot);
      wide.tuning.workgroup_size = 64;
      wide.tuning.items_per_thread = 16;
      Sorter sorter(gpu, wide);
      REQUIRE(test::check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, 20000, 5), &stats) == "");
    }
  }

  // Reduce-then-scan reports the same facts of its own recording: more dispatches and barriers.
  o.tuning.radix_scan = RadixScan::reduce_then_scan;
  Sorter rts(gpu, o);
  REQUIRE(test::check_on(gpu, rts, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 50000, 9), &stats) == "");
  CHECK(stats.fact("single_pass") == 0);
  CHECK(*stats.fact("dispatches") > 4 + 4);
  CHECK(stats.fact("global_barriers") == *stats.fact("dispatches") - 1);
}

// Phase clocks (DeviceOptions::phase_clocks): the instrumented pass kernels sort exactly as the plain
// ones; every tile of every pass that ran adds its ticks once (clock_tiles = tiles x passes run); the
// shares of the phases each kernel has cover its passes, and the phases it lacks stay 0. Without the
// option, and on reduce-then-scan, no clock facts.
TEST_CASE("single-pass radix sort with phase clocks") {
  DeviceOptions clocked = test::options_like_device();
  clocked.phase_clocks = true;
  std::optional<Device> made;
  try {
    made.emplace(clocked);
  } catch (const Error& e) {
    if (e.code() != Status::Code::unsupported) throw;
    test::skip(std::string("no shader clock: ") + e.what());
    return;
  }
  Device& gpu = *made;
  const std::vector<std::string> phases = {"take_tile", "load_count", "offsets", "rank", "look_back", "stage", "write"};
  uint64_t seed = 2600;
  for (RadixRanking ranking : rankings(gpu)) {
    for (const auto& [key, value_bytes, items] : {std::tuple{Key::u32, 4u, 0u}, std::tuple{Key::i64, 0u, 0u},
                                                  std::tuple{Key::u32, 4u, 4u}}) {
      SortOptions o = single_pass(key, Order::ascending, value_bytes, ranking);
      o.tuning.workgroup_size = items ? 4 : 0;  // tiny tiles: many of them, staged where ranked by ballot
      o.tuning.items_per_thread = items;
      Sorter sorter(gpu, o);
      const uint64_t tile = sorter.tile_size();
      for (uint64_t n : {uint64_t(1), uint64_t(2), 3 * tile + 5}) {
        INFO(to_string(ranking), " ", to_string(key), " value bytes ", value_bytes, " tile ", tile, " n ", n);
        SortStats stats;
        CHECK(test::check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++), &stats) == "");
        const double runs = *stats.fact("passes_run");
        CHECK(stats.fact("clock_tiles") == double((n + tile - 1) / tile) * runs);
        // The upfront histogram: every block once, whether passes run or not (n >= 2).
        const double block = *stats.fact("histogram_block_keys");
        CHECK(stats.fact("histogram_clock_blocks") == (n < 2 ? 0.0 : std::ceil(double(n) / block)));
        double histogram_sum = 0;
        for (const char* phase : {"clear", "count", "flush"}) {
          const std::optional<double> share = stats.fact(std::string("histogram_clock_share_") + phase);
          REQUIRE_MESSAGE(share, phase);
          CHECK(*share >= 0);
          histogram_sum += *share;
        }
        if (n >= 2) {
          CHECK(histogram_sum == doctest::Approx(1.0));
          CHECK(*stats.fact("histogram_clock_share_count") > 0);
          CHECK(*stats.fact("histogram_clock_ticks_per_block") > 0);
        }
        double sum = 0;
        for (const std::string& phase : phases) {
          const std::optional<double> share = stats.fact("clock_share_" + phase);
          REQUIRE_MESSAGE(share, phase);
          CHECK(*share >= 0);
          sum += *share;
        }
        if (runs == 0) continue;
        CHECK(sum == doctest::Approx(1.0));
        CHECK(*stats.fact("clock_ticks_per_tile") > 0);
        if (ranking == RadixRanking::columns) {
          // Columns rank while writing and never stage: those phases are never marked.
          CHECK(stats.fact("clock_share_rank") == 0);
          CHECK(stats.fact("clock_share_stage") == 0);
        } else if (n > tile) {
          CHECK(*stats.fact("clock_share_rank") > 0);
          CHECK((*stats.fact("clock_share_stage") > 0) == (stats.fact("staged") == 1));
        }
        if (n > tile) CHECK(*stats.fact("clock_share_write") > 0);
      }
    }
  }
  SortOptions rts = single_pass(Key::u32, Order::ascending, 0, RadixRanking::automatic);
  rts.tuning.radix_scan = RadixScan::reduce_then_scan;
  Sorter plain_path(gpu, rts);
  Sorter not_clocked(test::device(), single_pass(Key::u32, Order::ascending, 0, RadixRanking::columns));
  for (Sorter* sorter : {&plain_path, &not_clocked}) {
    SortStats stats;
    CHECK(test::check_on(sorter == &plain_path ? gpu : test::device(), *sorter,
                         workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 5000, seed++), &stats) == "");
    CHECK(!stats.fact("clock_tiles"));
    CHECK(!stats.fact("clock_share_write"));
    CHECK(!stats.fact("histogram_clock_blocks"));
  }
}

TEST_CASE("single-pass radix sort options: paths and rankings that do not go together are refused") {
  Device& gpu = test::device();
  SortOptions o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::splits);
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("reduce-then-scan only"), Error);
  o.tuning.radix_scan = RadixScan::reduce_then_scan;
  o.tuning.radix_ranking = RadixRanking::ballot;
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("ballot ranking is the single pass's"), Error);
  o.tuning.radix_ranking = RadixRanking::match;
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("match ranking is the single pass's"), Error);
  // A device without subgroup operations (pretend) has no ballot ranking, and says so.
  DeviceOptions plain = test::options_like_device();
  plain.pretend.no_subgroups = true;
  Device no_subgroups(plain);
  CHECK_THROWS_WITH_AS(Sorter(no_subgroups, single_pass(Key::u32, Order::ascending, 0, RadixRanking::ballot)),
                       doctest::Contains("subgroup ballot"), Error);
  CHECK_FALSE(no_subgroups.info().subgroup_partitioned);
  // Match ranking needs subgroup partitions (VK_NV_shader_subgroup_partitioned): refused, with the
  // status and the reason, on a device without them (lavapipe), and never by default.
  if (has_ballot(gpu) && !gpu.info().subgroup_partitioned) {
    check_unsupported(gpu, single_pass(Key::u32, Order::ascending, 0, RadixRanking::match), "VK_NV_shader_subgroup_partitioned");
  }
  // ... and ranks by columns by default.
  SortOptions automatic = single_pass(Key::u32, Order::ascending, 0, RadixRanking::automatic);
  Sorter columns(no_subgroups, automatic);
  SortStats stats;
  REQUIRE(test::check_on(no_subgroups, columns, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 999, 1), &stats) == "");
  CHECK(stats.fact("ranking_columns") == 1);
  // lavapipe's narrow workgroups own several digits each: they look back in lockstep.
  if (test::device().info().type == "cpu") CHECK(stats.fact("lookback_per_digit") == 0);
  // By default a CPU driver ranks by columns (measured faster there), a GPU with ballots by ballots.
  for (bool pose_as_gpu : {false, true}) {
    DeviceOptions like = test::options_like_device();
    like.pretend.gpu = like.pretend.gpu || pose_as_gpu;
    Device d(like);
    Sorter by_default(d, automatic);
    SortStats s;
    REQUIRE(test::check_on(d, by_default, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 5000, 2), &s) == "");
    const bool ballot_expected =
        d.info().type != "cpu" && d.info().subgroup_ballot && d.info().subgroup_shuffle && d.info().subgroup_size > 0;
    INFO("device type ", d.info().type, ", pose as GPU ", pose_as_gpu);
    CHECK(s.fact("ranking_ballot") == (ballot_expected ? 1 : 0));
    CHECK(s.fact("ranking_columns") == (ballot_expected ? 0 : 1));
    if (!pose_as_gpu && d.info().type == "cpu") CHECK(s.fact("ranking_columns") == 1);
  }
  // The ballot ranking counts in 16 bits: tiles of at most 2^15 keys (the largest allowed sorts).
  if (has_ballot(gpu)) {
    o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::ballot);
    o.tuning.radix_staging = RadixStaging::direct;
    o.tuning.workgroup_size = 8;
    o.tuning.items_per_thread = 8192;
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("tiles of at most 32768 keys"), Error);
    // At the largest tile, every key of tile 0 has digit 0 (the low half of its counters' word) and
    // every key of tile 1 digit 1 (the high half), the rest are random: a row's count and places
    // reach 2^15 without carrying into the word's other digit or out of it.
    o.tuning.items_per_thread = 4096;
    Sorter largest(gpu, o);
    std::vector<uint32_t> skewed(70000);
    for (size_t i = 0; i < skewed.size(); ++i)
      skewed[i] = i < 32768 ? uint32_t(i) << 8 : i < 65536 ? uint32_t(i) << 8 | 1u : uint32_t(i * 2654435761u);
    std::vector<std::byte> bytes(skewed.size() * 4);
    std::memcpy(bytes.data(), skewed.data(), bytes.size());
    CHECK(test::check_on(gpu, largest, bytes) == "");
  }
  // Shapes of no power of two: the ballot and match rankings take them in whole subgroups (a workgroup
  // of several subgroups that is no multiple of the subgroup size is refused), counter columns and
  // reduce-then-scan do not.
  if (has_ballot(gpu)) {
    o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::ballot);
    o.tuning.workgroup_size = gpu.info().subgroup_size + 1;
    o.tuning.items_per_thread = 4;
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("is no multiple of"), Error);
    o.tuning.workgroup_size = gpu.info().subgroup_size;
    o.tuning.items_per_thread = 40000;
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("40000 items per thread are more than a tile's 32768 keys"), Error);
    o.tuning.workgroup_size = gpu.info().max_workgroup_invocations + gpu.info().subgroup_size;
    o.tuning.items_per_thread = 4;
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("is more than maxComputeWorkGroupInvocations"), Error);
  }
  for (const auto& [workgroup, items] : {std::pair{12u, 4u}, std::pair{4u, 6u}}) {
    INFO("workgroup ", workgroup, ", items per thread ", items);
    o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::columns);
    o.tuning.workgroup_size = workgroup;
    o.tuning.items_per_thread = items;
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("must be a power of two"), Error);
    o.tuning.radix_scan = RadixScan::reduce_then_scan;
    o.tuning.radix_ranking = RadixRanking::automatic;
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("must be a power of two"), Error);
  }
  // Where automatic builds reduce-then-scan beside the single pass (a GPU whose allocations hold more
  // keys than the single pass counts: gpu-check runs this there), a shape only the single pass takes is
  // refused, saying so; else (lavapipe, whose allocations stop at 2 GiB) the single pass sorts with it.
  if (has_ballot(gpu)) {
    DeviceOptions like = test::options_like_device();
    like.pretend.gpu = true;
    Device posing(like);
    o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::automatic);
    o.tuning.radix_scan = RadixScan::automatic;
    o.tuning.workgroup_size = 3 * posing.info().subgroup_size;
    o.tuning.items_per_thread = 3;
    std::optional<Sorter> sorter;
    try {
      sorter.emplace(posing, o);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("suits the single pass only") != std::string::npos);
    }
    if (sorter) {
      SortStats s;
      CHECK(test::check_on(posing, *sorter, workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, 3000, 4), &s) == "");
      CHECK(s.fact("single_pass") == 1);
    }
  }
  // The look-back window is 1 to 32 predecessors (0: the device's choice).
  o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::automatic);
  o.tuning.lookback_window = 33;
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("look-back window 33 must be 1 to 32"), Error);
  // Names round-trip.
  for (RadixScan s : {RadixScan::automatic, RadixScan::single_pass, RadixScan::reduce_then_scan})
    CHECK(parse_radix_scan(to_string(s)) == s);
  CHECK(parse_radix_ranking("ballot") == RadixRanking::ballot);
  CHECK_FALSE(parse_radix_scan("onesweep").has_value());
  for (RadixStaging s : {RadixStaging::automatic, RadixStaging::direct, RadixStaging::late, RadixStaging::early})
    CHECK(parse_radix_staging(to_string(s)) == s);
  CHECK_FALSE(parse_radix_staging("staged").has_value());

  // A staging asked for is the ballot and match rankings': refused with the counter columns, the
  // splits and reduce-then-scan, and where the tile does not fit shared memory.
  for (RadixStaging staging : {RadixStaging::direct, RadixStaging::late, RadixStaging::early}) {
    INFO("staging ", to_string(staging));
    SortOptions s = single_pass(Key::u32, Order::ascending, 0, RadixRanking::columns);
    s.tuning.radix_staging = staging;
    CHECK_THROWS_WITH_AS(Sorter(gpu, s), doctest::Contains("counter columns write each key directly"), Error);
    s.tuning.radix_ranking = RadixRanking::splits;
    s.tuning.radix_scan = RadixScan::automatic;
    CHECK_THROWS_WITH_AS(Sorter(gpu, s), doctest::Contains("is the single pass's"), Error);
    s.tuning.radix_ranking = RadixRanking::automatic;
    s.tuning.radix_scan = RadixScan::reduce_then_scan;
    CHECK_THROWS_WITH_AS(Sorter(gpu, s), doctest::Contains("is the single pass's"), Error);
    if (has_ballot(gpu) && staging != RadixStaging::direct) {
      s = single_pass(Key::u64, Order::ascending, 4, RadixRanking::ballot);
      s.tuning.radix_staging = staging;
      s.tuning.items_per_thread = 1u << 14;  // tiles far beyond any device's shared memory
      check_unsupported(gpu, s, "bytes of shared memory");  // such a tile is never staged
    }
  }
  o = single_pass(Key::u32, Order::ascending, 0, RadixRanking::automatic);
  o.tuning.radix_staging = RadixStaging(4);
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("tuning.radix_staging is 4"), Error);
}
