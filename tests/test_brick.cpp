// SPDX-License-Identifier: MIT
// Brick sort against the CPU reference: every key type x order x with/without values, on awkward sizes
// and inputs, with the device's own tile and with tiny tiles that make every multi-tile path run at
// small n. Test names contain the key type so ctest can split the matrix by it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "support/sort_check.hpp"
#include "gpu/context.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"

using namespace vksort;
using workloads::Distribution;
using workloads::DistributionSpec;

namespace {

const Distribution all_inputs[] = {Distribution::uniform,    Distribution::sorted,       Distribution::reverse,
                                   Distribution::all_equal,  Distribution::few_unique,   Distribution::nearly_sorted,
                                   Distribution::special,    Distribution::organ_pipe,   Distribution::zipf,
                                   Distribution::gaussian};


// The whole matrix for one key type.
void brick_matrix(Key key) {
  for (Order order : {Order::ascending, Order::descending}) {
    for (uint32_t value_bytes : {0u, 4u}) {
      SortOptions o{.key = key, .order = order, .algorithm = Algorithm::brick, .value_bytes = value_bytes};
      Sorter device_tiles(test::device(), o);
      const uint32_t tile = device_tiles.tile_size();
      uint64_t seed = 1;
      for (uint64_t n : test::awkward_sizes(64, tile, 100000)) test::check_case(device_tiles, {{Distribution::uniform, 0}, n, seed++});
      for (Distribution d : all_inputs)
        for (uint64_t n : {uint64_t(tile) + 1, uint64_t(5 * tile - 3), uint64_t(33331)})
          test::check_case(device_tiles, {workloads::default_spec(d), n, seed++});

      // Tiny tiles (8 invocations x 2 keys): every size from one tile to two tiles + 1, and many tiles.
      o.tuning = {.workgroup_size = 8, .items_per_thread = 2};
      Sorter small_tiles(test::device(), o);
      REQUIRE(small_tiles.tile_size() == 16);
      for (uint64_t n = 0; n <= 2 * 16 + 1; ++n) test::check_case(small_tiles, {{Distribution::uniform, 0}, n, seed++});
      for (Distribution d : all_inputs)
        for (uint64_t n : {uint64_t(100), uint64_t(257)}) test::check_case(small_tiles, {workloads::default_spec(d), n, seed++});
    }
  }
}

}  // namespace

TEST_CASE("brick sort u32") { brick_matrix(Key::u32); }
TEST_CASE("brick sort i32") { brick_matrix(Key::i32); }
TEST_CASE("brick sort f32") { brick_matrix(Key::f32); }
TEST_CASE("brick sort u64") { brick_matrix(Key::u64); }
TEST_CASE("brick sort i64") { brick_matrix(Key::i64); }
TEST_CASE("brick sort f64") { brick_matrix(Key::f64); }

TEST_CASE("element-wise brick sort (the seed's variant) on every key type") {
  for (Key key : {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64}) {
    for (Order order : {Order::ascending, Order::descending}) {
      SortOptions o{.key = key, .order = order, .algorithm = Algorithm::brick, .value_bytes = 4,
                    .brick_variant = BrickVariant::pairs};
      Sorter sorter(test::device(), o);
      uint64_t seed = 100;
      for (uint64_t n : {0, 1, 2, 3, 255, 256, 257, 1000}) test::check_case(sorter, {{Distribution::uniform, 0}, n, seed++});
      for (Distribution d : all_inputs) test::check_case(sorter, {workloads::default_spec(d), 301, seed++});
    }
  }
}

TEST_CASE("element-wise brick sort refuses sizes it cannot record") {
  SortOptions o{.algorithm = Algorithm::brick, .brick_variant = BrickVariant::pairs};
  Sorter sorter(test::device(), o);
  Buffer keys(test::device(), 4 * 70000, "keys");
  CHECK_THROWS_WITH_AS(sorter.sort(keys, nullptr, 70000), doctest::Contains("limited to 65536 keys"), Error);
}

TEST_CASE("brick sort stops early: sorted input runs one round, random input at most ceil(tiles/2)") {
  SortOptions o{.algorithm = Algorithm::brick, .tuning = {.workgroup_size = 8, .items_per_thread = 2}};
  Sorter sorter(test::device(), o);
  const uint64_t n = 16 * 64;  // 64 tiles, 32 rounds recorded
  SortStats stats;
  REQUIRE(test::check_sort(sorter, {{Distribution::sorted, 0}, n, 3}, &stats).empty());
  CHECK(stats.fact("rounds_recorded") == 32);
  CHECK(stats.fact("rounds_run") == 1);  // the first round finds every pair in order and stops the rest

  REQUIRE(test::check_sort(sorter, {workloads::default_spec(Distribution::nearly_sorted), n, 3}, &stats).empty());
  const double nearly = *stats.fact("rounds_run");
  REQUIRE(test::check_sort(sorter, {{Distribution::reverse, 0}, n, 3}, &stats).empty());
  CHECK(*stats.fact("rounds_run") <= 32);
  CHECK(nearly < *stats.fact("rounds_run"));

  // The element-wise variant too: a sorted input costs one round of n / 2 recorded.
  SortOptions p{.algorithm = Algorithm::brick, .brick_variant = BrickVariant::pairs};
  Sorter pairs(test::device(), p);
  REQUIRE(test::check_sort(pairs, {{Distribution::sorted, 0}, 1000, 3}, &stats).empty());
  CHECK(stats.fact("rounds_recorded") == 500);
  CHECK(stats.fact("rounds_run") == 1);
}

TEST_CASE("brick sort reports per-phase GPU times that add up") {
  SortOptions o{.algorithm = Algorithm::brick};
  Sorter sorter(test::device(), o);
  SortStats stats;
  REQUIRE(test::check_sort(sorter, {{Distribution::uniform, 0}, 50000, 9}, &stats).empty());
  REQUIRE(test::device().info().timestamps);  // lavapipe has them; a device without would report -1
  CHECK(stats.timed());
  REQUIRE(stats.phases_ms.size() == 2);
  CHECK(stats.phases_ms[0].first == "tile_sort");
  CHECK(stats.phases_ms[1].first == "merge_rounds");
  double sum = 0;
  for (const auto& [name, ms] : stats.phases_ms) {
    CHECK(ms > 0.0);
    sum += ms;
  }
  // The phases partition the first-to-last timestamp interval (Timestamps::phases_ms).
  CHECK(sum == doctest::Approx(stats.gpu_ms).epsilon(1e-6));
}

TEST_CASE("brick sort records into a caller's command buffer with the documented contract") {
  Device& gpu = test::device();
  SortOptions o{.key = Key::i64, .order = Order::descending, .algorithm = Algorithm::brick};
  Sorter sorter(gpu, o);
  Buffer keys(gpu, 8 * 5000, "keys");
  Buffer scratch(gpu, sorter.scratch_bytes(5000), "scratch");
  // A bad argument is a Status, not an exception, and records nothing.
  Status bad = sorter.record(VK_NULL_HANDLE, {keys.ref(), {}, scratch.ref()}, 5000);
  CHECK_FALSE(bad.ok());
  Status small = sorter.record(reinterpret_cast<VkCommandBuffer>(1), {keys.ref(), {}, {scratch.vk_buffer(), 0, 4}}, 5000);
  CHECK_FALSE(small.ok());
  CHECK(small.message.find("scratch") != std::string::npos);
  Status too_many = sorter.record(reinterpret_cast<VkCommandBuffer>(1), {keys.ref(), {}, scratch.ref()}, 6000);
  CHECK(too_many.message.find("keys range holds 40000 bytes, 48000 needed") != std::string::npos);
}

// Issue 14: brick and sample sort start by filling scratch (a transfer write), while the barrier
// sorter.hpp asks of the caller names only the compute stage. Brick, radix, brick on ONE scratch in ONE
// command buffer, with exactly the documented barrier between them: the second brick sort's fill must
// still come after the radix sort's shader writes and indirect reads of that scratch (the sync_brick
// ctest entry runs this with synchronization validation, which reports the hazard otherwise).
TEST_CASE("brick, radix, brick sorts of u32 pairs share one scratch in one command buffer (the documented barrier only)") {
  Device& gpu = test::device();
  for (RadixScan scan : {RadixScan::single_pass, RadixScan::reduce_then_scan}) {
    INFO("radix sort ", to_string(scan));
    Sorter brick(gpu, {.key = Key::u32, .algorithm = Algorithm::brick, .value_bytes = 4});
    SortOptions radix_options{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 4};
    radix_options.tuning.radix_scan = scan;
    Sorter radix(gpu, radix_options);
    const uint64_t ns[] = {5000, 20011, 3001};
    Sorter* sorters[] = {&brick, &radix, &brick};
    test::check_sorts_sharing_scratch(sorters, ns, [&](int i) {
      return workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, ns[i], 40 + i);
    });
  }
}

TEST_CASE("brick sort on a pretend-small device: 2-D grids past maxComputeWorkGroupCount, little shared memory") {
  DeviceOptions small = test::options_like_device();
  small.pretend = {.max_shared_memory = 4096, .max_workgroup_invocations = 32, .max_workgroup_count = 7};
  Device gpu(small);
  CHECK(gpu.info().max_workgroup_count[0] == 7);
  for (Key key : {Key::u32, Key::f64}) {
    SortOptions o{.key = key, .algorithm = Algorithm::brick, .value_bytes = 4};
    Sorter sorter(gpu, o);
    // 4 KiB of shared memory: a merge holds 2 tiles of (key + value), so tiles stay small.
    CHECK(sorter.tile_size() * 2 * (key_bytes(key) + 4) <= 4096);
    Buffer keys(gpu, 8, "probe");  // the sorter must run on this device, not the shared test device
    uint64_t seed = 50;
    for (uint64_t n : {uint64_t(1000), uint64_t(4099), uint64_t(20011)}) {
      // > 7 tiles and > 7 pairs: grids become 2-D (and some groups of the last row return at once)
      std::vector<std::byte> data = workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++);
      std::vector<uint32_t> values = workloads::generate_values(n), expected_values = values;
      std::vector<std::byte> expected = data;
      workloads::reference_sort(key, Order::ascending, expected, expected_values);
      Buffer kb(gpu, data.size(), "keys"), vb(gpu, n * 4, "values");
      kb.upload(data);
      vb.upload(std::as_bytes(std::span(values)));
      sorter.sort(kb, &vb, n);
      kb.download(data);
      vb.download(std::as_writable_bytes(std::span(values)));
      CHECK(workloads::first_difference(key, expected, data, expected_values, values) == "");
    }
  }
  // An explicit tile that does not fit is refused naming the limit.
  SortOptions big{.algorithm = Algorithm::brick, .tuning = {.workgroup_size = 32, .items_per_thread = 64}};
  CHECK_THROWS_WITH_AS(Sorter(gpu, big), doctest::Contains("maxComputeSharedMemorySize = 4096"), Error);
  SortOptions wide{.algorithm = Algorithm::brick, .tuning = {.workgroup_size = 64, .items_per_thread = 1}};
  CHECK_THROWS_WITH_AS(Sorter(gpu, wide), doctest::Contains("maxComputeWorkGroupInvocations (32)"), Error);
}

TEST_CASE("Sorter::record into the application's own command buffer: two sorts share one scratch") {
  test::check_two_recorded_sorts(
      {.key = Key::f32, .order = Order::descending, .algorithm = Algorithm::brick, .value_bytes = 4});
}
