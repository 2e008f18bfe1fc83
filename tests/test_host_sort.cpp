// SPDX-License-Identifier: MIT
// vksort::sort on host data reuses what it made (api/host_sorters.hpp, gpu/staging_pool.hpp): Sorters
// per options with their buffers, and staging memory, so a small sort does not compile pipelines and
// allocate memory on every call. The results stay exact, concurrent calls on one Device stay correct,
// a changed auto profile is followed, and large sorts keep nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "api/host_sorters.hpp"
#include "api/internals.hpp"
#include "support/test_device.hpp"
#include "vksort/auto_profile.hpp"
#include "vksort/vksort.hpp"

using namespace vksort;

namespace {
std::vector<uint32_t> random_keys(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = rng();
  return v;
}
}  // namespace

TEST_CASE("host sorts keep one Sorter per options between calls, and their results stay exact") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  detail::HostSorters& cache = *detail::Internals::host_sorters(gpu);
  CHECK(cache.idle() == 0);
  for (uint32_t round = 0; round < 3; ++round) {
    for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(70001)}) {
      std::vector<uint32_t> keys = random_keys(n, round * 7 + uint32_t(n)), expected = keys;
      std::sort(expected.begin(), expected.end());
      sort(gpu, std::span(keys));
      CHECK(keys == expected);
    }
    CHECK(cache.idle() == 1);  // one Sorter (u32 keys) served every size and round
  }
  // Other options: another entry; values too.
  std::vector<uint32_t> keys = random_keys(5000, 3), values(5000);
  for (uint32_t i = 0; i < values.size(); ++i) values[i] = i;
  const std::vector<uint32_t> input = keys;
  sort(gpu, std::span(keys), std::span(values), {.order = Order::descending});
  CHECK(std::is_sorted(keys.rbegin(), keys.rend()));
  for (size_t i = 0; i < keys.size(); ++i) CHECK(input[values[i]] == keys[i]);
  CHECK(cache.idle() == 2);
  // A copy of the Device shares the cache.
  Device copy = gpu;
  sort(copy, std::span(keys));
  CHECK(cache.idle() == 2);
  // A new auto profile: Sorters made with the old one are dropped.
  gpu.set_auto_profile(gpu.auto_profile());
  CHECK(cache.idle() == 0);
}

// A sort in flight on another thread when the profile changed gave its Sorter back afterwards, and the
// next sort on the Device took it: the old profile's choice ran until a second set_auto_profile. Here
// the in-flight sort is a lease held across the change (as that thread holds it).
TEST_CASE("a Sorter in use when the auto profile changes is not kept when it comes back") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  detail::HostSorters& cache = *detail::Internals::host_sorters(gpu);
  const Device plain = detail::Internals::without_host_sorters(gpu);
  {
    detail::HostSorters::Lease in_flight = cache.take(plain, SortOptions{});
    in_flight.bytes_held = 0;  // its sort completed
    gpu.set_auto_profile(gpu.auto_profile());
  }
  CHECK(cache.idle() == 0);
  {
    detail::HostSorters::Lease after = cache.take(plain, SortOptions{});
    after.bytes_held = 0;
  }
  CHECK(cache.idle() == 1);  // made under the new profile: kept
  // Argsort's and segmented sort's cached pipelines likewise.
  uint64_t generation = 0;
  CHECK(cache.take_composed("kind", &generation) == nullptr);
  gpu.set_auto_profile(gpu.auto_profile());
  cache.give_back_composed("kind", std::make_shared<int>(1), generation);
  uint64_t now = 0;
  CHECK(cache.take_composed("kind", &now) == nullptr);
  CHECK(now != generation);
  cache.give_back_composed("kind", std::make_shared<int>(2), now);
  CHECK(cache.take_composed("kind", &now) != nullptr);
}

TEST_CASE("host sorts of no keys with values or records") {
  // n = 0 with values, as the first call on its options: there was once no values buffer to upload into.
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  for (uint32_t value_bytes : {4u, 8u, 12u}) {
    uint32_t keys[1] = {}, values[3] = {};  // not read (n = 0), but given: values are not nullptr
    CHECK_NOTHROW(sort_host(gpu, keys, 0, values, value_bytes, SortOptions{.key = Key::u32}));
  }
}

TEST_CASE("host sorts too large to keep leave nothing behind") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  // 16 MiB of keys alone exceed what the cache keeps.
  std::vector<uint32_t> keys = random_keys(size_t(4) << 20, 5), expected = keys;
  std::sort(expected.begin(), expected.end());
  sort(gpu, std::span(keys));
  CHECK(keys == expected);
  CHECK(detail::Internals::host_sorters(gpu)->idle() == 0);
}

TEST_CASE("host sorts from several threads at once on one Device") {
  Device& gpu = test::device();
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (uint32_t t = 0; t < failures.size(); ++t)
    threads.emplace_back([&, t] {
      try {
        for (uint32_t round = 0; round < 5; ++round) {
          std::vector<uint32_t> keys = random_keys(3000 + 17 * t, t * 100 + round), expected = keys;
          std::sort(expected.begin(), expected.end());
          sort(gpu, std::span(keys));
          if (keys != expected) failures[t] = "thread " + std::to_string(t) + " round " + std::to_string(round) + ": wrong result";
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& f : failures) CHECK_MESSAGE(f.empty(), f);
  CHECK(detail::Internals::host_sorters(gpu)->idle() >= 1);
}

// Not a test: `test_host_sort --test-case='host sort call cost' --no-skip` prints the wall time of
// small vksort::sort calls with the cache, and with the cache emptied before each call (as every call
// was before it), in one run.
TEST_CASE("host sort call cost" * doctest::skip()) {
  Device& gpu = test::device();
  for (size_t n : {size_t(1000), size_t(100000)}) {
    std::vector<double> kept, fresh;
    for (int i = 0; i < 21; ++i) {
      for (bool clear : {false, true}) {
        if (clear) detail::Internals::host_sorters(gpu)->clear();
        std::vector<uint32_t> keys = random_keys(n, uint32_t(i));
        const auto t0 = std::chrono::steady_clock::now();
        sort(gpu, std::span(keys));
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (i > 0) (clear ? fresh : kept).push_back(ms);  // call 0 warms up
      }
    }
    std::sort(kept.begin(), kept.end());
    std::sort(fresh.begin(), fresh.end());
    std::printf("n=%zu: median wall ms per vksort::sort call, cached %.2f, made anew %.2f (%.2fx)\n", n,
                kept[kept.size() / 2], fresh[fresh.size() / 2], fresh[fresh.size() / 2] / kept[kept.size() / 2]);
  }
}
