// SPDX-License-Identifier: MIT
// vksort::sort on host data reuses what it made (api/host_sorters.hpp, gpu/staging_pool.hpp): Sorters
// per options with their buffers, and staging memory, so a small sort does not compile pipelines and
// allocate memory on every call. The results stay exact, concurrent calls on one Device stay correct,
// a changed auto profile or VKSORT_* knob is followed, large sorts keep nothing, what is kept stays
// within its caps (entries, bytes as allocated, staging buffers), and Device::release_cached_memory
// frees it, also beside sorting threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "api/host_sorters.hpp"
#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "gpu/staging_pool.hpp"
#include "support/scoped_env.hpp"
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
    in_flight.completed = true;  // its sort completed
    gpu.set_auto_profile(gpu.auto_profile());
  }
  CHECK(cache.idle() == 0);
  {
    detail::HostSorters::Lease after = cache.take(plain, SortOptions{});
    after.completed = true;
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

// The keys came back in one submission and the values in the next: a device lost between the two left
// the caller's keys sorted beside values that were not (the pairs parted), with only an Error to say so.
TEST_CASE("a host sort that fails leaves keys and values as they were: never one sorted without the other") {
  for (uint32_t value_bytes : {4u, 12u}) {
    bool sorted = false;
    for (uint32_t lose_after = 1; !sorted && lose_after < 16; ++lose_after) {
      CAPTURE(value_bytes);
      CAPTURE(lose_after);
      DeviceOptions options = test::options_like_device();
      options.pretend.lose_device_after = lose_after;  // every submission from this one on fails
      Device gpu(options);
      std::vector<uint32_t> keys = random_keys(1000, 3), values(1000 * value_bytes / 4);
      for (size_t i = 0; i < values.size(); ++i) values[i] = uint32_t(i);
      const std::vector<uint32_t> keys_before = keys, values_before = values;
      try {
        sort_host(gpu, keys.data(), keys.size(), values.data(), value_bytes, SortOptions{.key = Key::u32});
        sorted = true;
        CHECK(std::is_sorted(keys.begin(), keys.end()));
        for (size_t i = 0; i < keys.size(); ++i) REQUIRE(keys[i] == keys_before[values[i * value_bytes / 4] / (value_bytes / 4)]);
      } catch (const Error& e) {
        CHECK(e.code() == Status::Code::device_lost);
        CHECK(keys == keys_before);
        CHECK(values == values_before);
      }
    }
    CHECK(sorted);
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

namespace {
// A host sort of n random u32 keys (as `options.key`, whose order is not checked here) on `gpu`.
void sort_random(Device& gpu, size_t n, SortOptions options, uint32_t seed) {
  std::vector<uint32_t> keys = random_keys(n, seed);
  sort_host(gpu, keys.data(), keys.size(), nullptr, options);
}
SortOptions radix_u32(Key key = Key::u32, Order order = Order::ascending) {
  return {.key = key, .order = order, .algorithm = Algorithm::radix};
}
}  // namespace

TEST_CASE("host sorts keep at most four Sorters, dropping the least recently used") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  detail::HostSorters& cache = *detail::Internals::host_sorters(gpu);
  REQUIRE(detail::HostSorters::keep_entries == 4);
  const SortOptions a = radix_u32(), b = radix_u32(Key::u32, Order::descending), c = radix_u32(Key::i32),
                    d = radix_u32(Key::f32), e = radix_u32(Key::i32, Order::descending);
  auto key = [](const SortOptions& o) { return detail::options_key(o); };
  uint32_t seed = 40;
  for (const SortOptions& o : {a, b, c, d}) sort_random(gpu, 100, o, seed++);
  CHECK(cache.idle_keys() == std::vector<std::string>{key(a), key(b), key(c), key(d)});
  sort_random(gpu, 100, a, seed++);  // a: taken and given back, now the most recently used
  CHECK(cache.idle_keys() == std::vector<std::string>{key(b), key(c), key(d), key(a)});
  sort_random(gpu, 100, e, seed++);  // a fifth: b, the least recently used, goes
  CHECK(cache.idle_keys() == std::vector<std::string>{key(c), key(d), key(a), key(e)});
  sort_random(gpu, 100, b, seed++);  // b made anew; c goes
  CHECK(cache.idle_keys() == std::vector<std::string>{key(d), key(a), key(e), key(b)});
  CHECK(cache.idle_bytes() <= detail::HostSorters::keep_entries * detail::HostSorters::keep_bytes);
}

// The bytes an entry holds are its buffers and its Sorter's scratch as allocated: a smaller call after a
// larger one (or another algorithm under automatic) needs less scratch than the Sorter keeps, and was
// once counted by that need, so an entry could hold more than the cap while counted under it.
TEST_CASE("host sorts count the memory an entry holds as allocated, and keep none above the cap") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  detail::HostSorters& cache = *detail::Internals::host_sorters(gpu);
  const Device plain = detail::Internals::without_host_sorters(gpu);
  const SortOptions o = radix_u32();
  sort_random(gpu, 70001, o, 1);
  const VkDeviceSize after_large = cache.idle_bytes();
  {
    detail::HostSorters::Lease lease = cache.take(plain, o);
    CHECK(cache.idle() == 0);
    const VkDeviceSize scratch = detail::sorter_held_bytes(lease->sorter);
    CHECK(scratch >= lease->sorter.scratch_bytes(70001));
    CHECK(after_large == lease->keys.size() + lease->values.size() + scratch);
    CHECK(detail::HostSorters::held_bytes(*lease) == after_large);
    // What 1000 keys need is less: the count the cache once kept after such a call.
    CHECK(lease->keys.size() + lease->sorter.scratch_bytes(1000) < after_large);
    lease.completed = true;
  }
  CHECK(cache.idle_bytes() == after_large);
  std::vector<uint32_t> keys = random_keys(1000, 2), expected = keys;
  std::sort(expected.begin(), expected.end());
  sort(gpu, std::span(keys), o);
  CHECK(keys == expected);
  CHECK(cache.idle() == 1);
  CHECK(cache.idle_bytes() == after_large);  // the memory held, not what the last call needed

  // An entry whose Sorter's scratch grew past the cap (records of 256 bytes: the scratch holds a copy
  // of them) is not kept, although its own key and value buffers are empty.
  const SortOptions records{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 256};
  const uint64_t n = detail::HostSorters::keep_bytes / 256 + 1000;
  {
    detail::HostSorters::Lease lease = cache.take(plain, records);
    Buffer key_buffer(gpu, n * 4, "keys"), value_buffer(gpu, n * 256, "records");
    lease->sorter.sort(key_buffer, &value_buffer, n);
    CHECK(detail::sorter_held_bytes(lease->sorter) > detail::HostSorters::keep_bytes);
    CHECK(lease->keys.size() + lease->values.size() == 0);
    lease.completed = true;
  }
  CHECK(cache.idle() == 1);  // only the u32 entry
  CHECK(cache.idle_bytes() == after_large);
  // The same entry under the cap is kept; one whose sort threw (completed unset) is not.
  {
    detail::HostSorters::Lease lease = cache.take(plain, records);
    lease.completed = true;
  }
  CHECK(cache.idle() == 2);
  {
    detail::HostSorters::Lease lease = cache.take(plain, records);
  }
  CHECK(cache.idle() == 1);
}

// Uploads and downloads take staging from the device's pool: kept buffers (powers of two, 4 KiB at
// least) serve the copies that fit them, at most four are kept (the largest) and none above 16 MiB.
TEST_CASE("staging memory is reused between copies, within its caps") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  gpu.release_cached_memory();
  gpu::StagingPool& pool = *detail::context_of(gpu).staging;
  using Sizes = std::vector<VkDeviceSize>;
  CHECK(pool.idle_sizes().empty());
  REQUIRE(gpu::StagingPool::keep_count == 4);
  const VkDeviceSize cap = gpu::StagingPool::keep_bytes;
  Buffer buffer(gpu, cap + 4096, "staging test");
  std::vector<std::byte> data(cap + 4096, std::byte{7}), back(data.size());
  auto upload = [&](size_t bytes) { buffer.upload(std::span(data).first(bytes)); };
  upload(1000);
  CHECK(pool.idle_sizes() == Sizes{4096});
  buffer.download(std::span(back).first(1000));  // the same buffer serves the download
  CHECK(pool.idle_sizes() == Sizes{4096});
  CHECK(std::equal(back.begin(), back.begin() + 1000, data.begin()));
  upload(5000);
  CHECK(pool.idle_sizes() == Sizes{4096, 8192});
  upload(3000);  // the smallest that fits
  CHECK(pool.idle_sizes() == Sizes{4096, 8192});
  upload(20000);
  upload(40000);
  CHECK(pool.idle_sizes() == Sizes{4096, 8192, 32768, 65536});
  upload(70000);  // a fifth: the smallest goes
  CHECK(pool.idle_sizes() == Sizes{8192, 32768, 65536, 131072});
  upload(cap + 1);  // above the cap: for this copy only
  CHECK(pool.idle_sizes() == Sizes{8192, 32768, 65536, 131072});
  upload(cap);  // at the cap: kept
  CHECK(pool.idle_sizes() == Sizes{32768, 65536, 131072, cap});
  buffer.download(std::span(back).first(100));  // the smallest of the four serves it
  CHECK(pool.idle_sizes() == Sizes{32768, 65536, 131072, cap});
  // A buffer in use when the pool is cleared is freed, not kept, when its copy ends.
  {
    const gpu::StagingPool::Lease in_use = pool.take(detail::context_of(gpu), 100, "test");
    pool.clear();
    CHECK(pool.idle_sizes().empty());
  }
  CHECK(pool.idle_sizes().empty());
  upload(100);
  CHECK(pool.idle_sizes() == Sizes{4096});
}

// Sorters read the sorts' VKSORT_* knobs when they are made: a knob changed between host sorts makes a
// new entry (the kept one would sort as the old value said), and one set back finds the old entry.
TEST_CASE("host sorts follow VKSORT_* knobs changed between calls") {
  test::ScopedEnv knob("VKSORT_RADIX_PLAIN_SCANS", std::nullopt);
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  detail::HostSorters& cache = *detail::Internals::host_sorters(gpu);
  SortOptions o = radix_u32();
  o.tuning.radix_scan = RadixScan::reduce_then_scan;
  o.tuning.radix_ranking = RadixRanking::splits;
  const bool subgroups = gpu.info().subgroup_arithmetic;
  auto sorted_stats = [&](uint32_t seed) {
    std::vector<uint32_t> keys = random_keys(3000, seed), expected = keys;
    std::sort(expected.begin(), expected.end());
    const SortStats stats = sort(gpu, std::span(keys), o);
    CHECK(keys == expected);
    return stats;
  };
  const std::string unset_key = detail::options_key(o);
  CHECK(sorted_stats(1).fact("subgroup_scans") == (subgroups ? 1.0 : 0.0));
  knob.set("count,spine,scatter");
  CHECK(detail::options_key(o) != unset_key);
  CHECK(sorted_stats(2).fact("subgroup_scans") == 0.0);
  CHECK(cache.idle() == 2);
  knob.set("count,warp");  // refused as a Sorter made directly would be, not hidden by a kept one
  std::vector<uint32_t> keys = random_keys(100, 3);
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(keys), o), doctest::Contains("VKSORT_RADIX_PLAIN_SCANS is \"count,warp\""), Error);
  knob.set(std::nullopt);
  CHECK(detail::options_key(o) == unset_key);
  CHECK(sorted_stats(4).fact("subgroup_scans") == (subgroups ? 1.0 : 0.0));
  CHECK(cache.idle() == 2);  // the first entry, found again
}

TEST_CASE("Device::release_cached_memory frees what host sorts keep; later sorts keep anew") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  detail::HostSorters& cache = *detail::Internals::host_sorters(gpu);
  gpu::StagingPool& pool = *detail::context_of(gpu).staging;
  const Device plain = detail::Internals::without_host_sorters(gpu);
  std::vector<uint32_t> keys = random_keys(2000, 1), values(keys.size()), indices(keys.size());
  sort(gpu, std::span(keys));
  sort(gpu, std::span(keys), std::span(values), {.order = Order::descending});
  argsort_host(gpu, keys.data(), keys.size(), indices.data(), 4, {.key = Key::u32});
  CHECK(cache.idle() == 2);
  CHECK(cache.idle_composed() == 1);
  CHECK(!pool.idle_sizes().empty());
  // On a copy: copies share what is kept. A lease held meanwhile (another thread's sort in progress)
  // keeps its entry, and gives it up when it ends.
  {
    detail::HostSorters::Lease in_flight = cache.take(plain, SortOptions{.key = Key::u32});
    CHECK(cache.idle() == 1);
    Device copy = gpu;
    copy.release_cached_memory();
    CHECK(cache.idle() == 0);
    CHECK(cache.idle_composed() == 0);
    CHECK(pool.idle_sizes().empty());
    CHECK(in_flight->keys.size() >= keys.size() * 4);  // untouched
    in_flight.completed = true;
  }
  CHECK(cache.idle() == 0);
  CHECK(cache.idle_bytes() == 0);
  gpu.release_cached_memory();  // twice: nothing to free
  std::vector<uint32_t> again = random_keys(2000, 2), expected = again;
  std::sort(expected.begin(), expected.end());
  sort(gpu, std::span(again));
  CHECK(again == expected);
  CHECK(cache.idle() == 1);
  CHECK(!pool.idle_sizes().empty());
}

TEST_CASE("Device::release_cached_memory while other threads sort on the Device") {
  DeviceOptions options = test::options_like_device();
  Device gpu(options);
  std::atomic<uint32_t> running{2};
  std::vector<std::string> failures(2);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < failures.size(); ++t)
    threads.emplace_back([&, t] {
      try {
        for (uint32_t round = 0; round < 6; ++round) {
          std::vector<uint32_t> keys = random_keys(2000 + 13 * t, t * 100 + round), values(keys.size());
          for (uint32_t i = 0; i < values.size(); ++i) values[i] = i;
          const std::vector<uint32_t> input = keys;
          sort(gpu, std::span(keys), std::span(values));
          bool right = std::is_sorted(keys.begin(), keys.end());
          for (size_t i = 0; right && i < keys.size(); ++i) right = input[values[i]] == keys[i];
          if (!right) failures[t] = "thread " + std::to_string(t) + " round " + std::to_string(round) + ": wrong result";
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
      --running;
    });
  Device copy = gpu;
  uint32_t releases = 0;
  while (running > 0) {
    copy.release_cached_memory();
    ++releases;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& th : threads) th.join();
  for (const auto& f : failures) CHECK_MESSAGE(f.empty(), f);
  CHECK(releases > 0);
  gpu.release_cached_memory();
  CHECK(detail::Internals::host_sorters(gpu)->idle() == 0);
  CHECK(detail::context_of(gpu).staging->idle_sizes().empty());
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
