// SPDX-License-Identifier: MIT
// Sample sort against the CPU reference: every key type x order x with/without values on awkward sizes
// and inputs, with the device's own sublists and with tiny ones (and few samples) that make every
// multi-sublist and multi-stage bucket path run at small n. Then the bucket-size guarantee on
// adversarial inputs, facts and per-step times, options, a small device, the recording path and a
// 2^22 sort. Test names of the matrix end in the key type so ctest can split it by that.
#include <doctest/doctest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "host_keys.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/sort_check.hpp"
#include "support/test_device.hpp"

using namespace vksort;
using workloads::Distribution;

namespace {

using test::check_on;
constexpr auto& all_inputs = test::all_distributions;

SortOptions sample(Key key, Order order = Order::ascending, uint32_t value_bytes = 0) {
  return {.key = key, .order = order, .algorithm = Algorithm::sample, .value_bytes = value_bytes};
}

// Dehne & Zaboli's bound for n keys in sublists of `tile` with s samples each: 2 n' / s, n' being n
// rounded up to whole sublists (the last one is padded).
uint64_t bucket_bound(uint64_t n, uint32_t tile, uint32_t s) { return 2 * ((n + tile - 1) / tile * tile) / s; }

void sample_matrix(Key key) {
  uint64_t seed = 1;
  for (Order order : {Order::ascending, Order::descending}) {
    for (uint32_t value_bytes : {0u, 4u}) {
      SortOptions o = sample(key, order, value_bytes);
      Sorter device_tiles(test::device(), o);
      const uint32_t tile = device_tiles.tile_size();
      for (uint64_t n : test::awkward_sizes(8, tile, 2 * tile + 2)) test::check_case(device_tiles, {{Distribution::uniform, 0}, n, seed++});
      // 3 * tile + 1: segments longer than a tile when s is at least 8 (step 9's global stages).
      for (Distribution d : {Distribution::special, Distribution::few_unique, Distribution::zipf})
        test::check_case(device_tiles, {workloads::default_spec(d), uint64_t(17 * tile + 1), seed++});

      // Tiny sublists (4 invocations x 4 keys) and s = 4: many sublists, segments of many tiles, every
      // size from one sublist to two + 1.
      o.tuning = {.workgroup_size = 4, .items_per_thread = 4, .samples = 4};
      Sorter small(test::device(), o);
      REQUIRE(small.tile_size() == 16);
      for (uint64_t n = 0; n <= 2 * 16 + 1; ++n) test::check_case(small, {{Distribution::uniform, 0}, n, seed++});
      for (Distribution d : all_inputs)
        for (uint64_t n : {uint64_t(257), uint64_t(3001)}) test::check_case(small, {workloads::default_spec(d), n, seed++});
      // s = tile: every element of a sublist is a sample.
      o.tuning.samples = 16;
      Sorter dense(test::device(), o);
      for (uint64_t n : {uint64_t(15), uint64_t(1000)}) test::check_case(dense, {{Distribution::few_unique, 3}, n, seed++});
    }
  }
}

}  // namespace

TEST_CASE("sample sort u32") { sample_matrix(Key::u32); }
TEST_CASE("sample sort i32") { sample_matrix(Key::i32); }
TEST_CASE("sample sort f32") { sample_matrix(Key::f32); }
TEST_CASE("sample sort u64") { sample_matrix(Key::u64); }
TEST_CASE("sample sort i64") { sample_matrix(Key::i64); }
TEST_CASE("sample sort f64") { sample_matrix(Key::f64); }

TEST_CASE("sample sort keeps every bucket within 2n/s on adversarial inputs") {
  const Distribution adversarial[] = {Distribution::uniform,   Distribution::all_equal,  Distribution::few_unique,
                                      Distribution::sorted,    Distribution::reverse,    Distribution::organ_pipe,
                                      Distribution::zipf,      Distribution::gaussian,   Distribution::nearly_sorted};
  struct Config {
    Tuning tuning;
    uint64_t n;
  };
  // The device's sublists with its default s, and tiny sublists with s = 4 and s = 8.
  for (const Config& c : {Config{{}, 200003}, Config{{.workgroup_size = 4, .items_per_thread = 8, .samples = 4}, 9001},
                          Config{{.workgroup_size = 4, .items_per_thread = 8, .samples = 8}, 9001}}) {
    SortOptions o = sample(Key::u64, Order::ascending, 4);
    o.tuning = c.tuning;
    Sorter sorter(test::device(), o);
    for (Distribution d : adversarial) {
      SortStats stats;
      test::check_case(sorter, {workloads::default_spec(d), c.n, 11}, &stats);
      const double samples = stats.fact("samples").value_or(0);
      if (c.tuning.samples) CHECK(samples == c.tuning.samples);
      const uint64_t bound = bucket_bound(c.n, sorter.tile_size(), uint32_t(samples));
      INFO(to_string(d), " n ", c.n, " tile ", sorter.tile_size(), " s ", samples);
      CHECK(stats.fact("bucket_bound") == double(bound));
      CHECK(stats.fact("largest_bucket").value_or(1e30) <= double(bound));
      // At least the average: the fact is a real measurement.
      CHECK(stats.fact("largest_bucket").value_or(0) * samples >= double(c.n));
      CHECK(stats.fact("bucket_overflow") == 0);
    }
  }
}

// A global bitonic pass of k steps gives each workgroup TILE / 2^k units: with sublists of 2 and 4 keys
// a pass may take only 1 and 2 steps (three left every group without units, so steps were skipped,
// buckets overflowed and keys were lost).
TEST_CASE("sample sort with sublists of 2 and 4 keys: every global stage runs") {
  const Tuning tiny[] = {{.workgroup_size = 1, .items_per_thread = 2, .samples = 2},
                         {.workgroup_size = 2, .items_per_thread = 1, .samples = 2},
                         {.workgroup_size = 2, .items_per_thread = 2, .samples = 2},
                         {.workgroup_size = 1, .items_per_thread = 4, .samples = 4},
                         {.workgroup_size = 4, .items_per_thread = 1, .samples = 4}};
  uint64_t seed = 70;
  for (const Tuning& tuning : tiny) {
    SortOptions o = sample(Key::u32, Order::ascending, 4);
    o.tuning = tuning;
    Sorter sorter(test::device(), o);
    for (uint64_t n : {uint64_t(3), uint64_t(33), uint64_t(1000)})
      for (Distribution d : {Distribution::uniform, Distribution::few_unique, Distribution::reverse}) {
        SortStats stats;
        INFO("workgroup ", tuning.workgroup_size, " x ", tuning.items_per_thread, " s ", tuning.samples, " n ", n);
        test::check_case(sorter, {workloads::default_spec(d), n, seed++}, &stats);
        CHECK(stats.fact("bucket_overflow") == 0);
        CHECK(stats.fact("largest_bucket").value_or(1e30) <= double(bucket_bound(n, sorter.tile_size(), tuning.samples)));
      }
  }
}

TEST_CASE("sample sort reports its facts and the paper's nine steps as GPU phases") {
  SortOptions o = sample(Key::f64, Order::descending, 4);
  o.tuning.samples = 32;
  Sorter sorter(test::device(), o);
  CHECK(sorter.algorithm() == Algorithm::sample);
  SortStats stats;
  const uint64_t n = 5 * uint64_t(sorter.tile_size()) + 3;
  test::check_case(sorter, {{Distribution::gaussian, 0}, n, 3}, &stats);
  CHECK(stats.fact("tile") == sorter.tile_size());
  CHECK(stats.fact("samples") == 32);
  CHECK(stats.fact("sublists") == 6);
  REQUIRE(test::device().info().timestamps);
  CHECK(stats.timed());
  std::vector<std::string> names;
  double sum = 0;
  for (const auto& [name, ms] : stats.phases_ms) {
    names.push_back(name);
    CHECK(ms >= 0.0);
    sum += ms;
  }
  CHECK(names == std::vector<std::string>{"sublist_sort", "sample_sort", "global_samples", "locate", "prefix_sum",
                                          "relocate", "bucket_sort"});
  // The phases partition the first-to-last timestamp interval (Timestamps::phases_ms).
  CHECK(sum == doctest::Approx(stats.gpu_ms).epsilon(1e-6));
  // Below two keys nothing runs, and the facts say so.
  test::check_case(sorter, {{Distribution::uniform, 0}, 1, 3}, &stats);
  CHECK(stats.fact("sublists") == 0);
  CHECK(stats.fact("largest_bucket") == 1);
}

TEST_CASE("sample sort options: the number of samples must be a power of two within the sublist") {
  Device& gpu = test::device();
  CHECK(Sorter(gpu, SortOptions{}).algorithm() == Algorithm::radix);  // automatic stays radix
  SortOptions o = sample(Key::u32);
  for (uint32_t bad : {3u, 1u, 96u}) {
    o.tuning = {.samples = bad};
    CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("Tuning::samples must be a power of two"), Error);
  }
  o.tuning = {.workgroup_size = 4, .items_per_thread = 4, .samples = 32};
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("sublist size 16"), Error);
  o.begin_bit = 4;
  o.tuning = {};
  CHECK_THROWS_WITH_AS(Sorter(gpu, o), doctest::Contains("radix sort only"), Error);
}

TEST_CASE("sample sort on a pretend-small device: 3-D grids past maxComputeWorkGroupCount, little shared memory") {
  DeviceOptions small = test::options_like_device();
  small.pretend = {.max_shared_memory = 4096, .max_workgroup_invocations = 32, .max_workgroup_count = 7};
  Device gpu(small);
  for (Key key : {Key::u32, Key::f64}) {
    SortOptions o = sample(key, Order::ascending, 4);
    o.tuning.samples = 8;
    Sorter sorter(gpu, o);
    CHECK(sorter.tile_size() * (key_bytes(key) + 4) <= 4096);
    // Up to 20011 / 256 sublists and 256 tiles of segments: grids become 2-D (> 7) and 3-D (> 49); segments span many tiles.
    uint64_t seed = 50;
    for (uint64_t n : {uint64_t(1000), uint64_t(4099), uint64_t(20011)}) {
      std::string diff = check_on(gpu, sorter, workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++));
      INFO(to_string(key), " n ", n, " tile ", sorter.tile_size());
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
  SortOptions big = sample(Key::f64);
  big.tuning = {.workgroup_size = 32, .items_per_thread = 16};
  CHECK_THROWS_WITH_AS(Sorter(gpu, big), doctest::Contains("maxComputeSharedMemorySize = 4096"), Error);
}

TEST_CASE("sample sort records into a caller's command buffer: two sorts share one scratch") {
  test::check_two_recorded_sorts(sample(Key::f32, Order::descending, 4));
}

// Sample sort starts by filling scratch (vkCmdFillBuffer: transfer writes), while the barrier sorter.hpp
// asks of the caller names only the compute stage. Sample, radix, sample on ONE scratch in ONE command
// buffer with exactly that barrier between them (AppCommands::documented_barrier): the second sample
// sort's fills must still come after the radix sort's shader writes and indirect reads of that scratch,
// and the radix sort's first writes after the first sample sort's. The sync_sample ctest entry runs this
// with synchronization validation, which sees the fills and indirect reads (not the shaders' accesses
// through device addresses) and reports a fill left unordered after the radix sort's indirect reads (a
// write after read); the results, checked byte for byte, stand for the rest.
TEST_CASE("sample, radix, sample sorts of f32 pairs share one scratch in one command buffer (the documented barrier only)") {
  Device& gpu = test::device();
  for (RadixScan scan : {RadixScan::single_pass, RadixScan::reduce_then_scan}) {
    INFO("radix sort ", to_string(scan));
    Sorter first(gpu, sample(Key::f32, Order::descending, 4));
    SortOptions radix_options{.key = Key::f32, .order = Order::descending, .algorithm = Algorithm::radix, .value_bytes = 4};
    radix_options.tuning.radix_scan = scan;
    Sorter radix(gpu, radix_options);
    // The second sample sort with tiny sublists and s = 4: many sublists and buckets, other fills.
    SortOptions tiny = sample(Key::f32, Order::descending, 4);
    tiny.tuning = {.workgroup_size = 4, .items_per_thread = 4, .samples = 4};
    Sorter second(gpu, tiny);
    const uint64_t ns[] = {20011, 5003, 3001};
    Sorter* sorters[] = {&first, &radix, &second};
    test::check_sorts_sharing_scratch(sorters, ns, [&](int i) {
      return workloads::generate_keys(Key::f32, workloads::default_spec(i == 1 ? Distribution::special : Distribution::uniform),
                                      ns[i], 80 + i);
    });
  }
}

TEST_CASE("sample sort of 2^22 keys") {
  SortOptions o = sample(Key::u64, Order::ascending, 4);
  Sorter sorter(test::device(), o);
  SortStats stats;
  test::check_case(sorter, {{Distribution::uniform, 0}, uint64_t(1) << 22, 21}, &stats);
  CHECK(stats.fact("largest_bucket").value_or(1e30) <= double(bucket_bound(uint64_t(1) << 22, sorter.tile_size(),
                                                                           uint32_t(*stats.fact("samples")))));
}
