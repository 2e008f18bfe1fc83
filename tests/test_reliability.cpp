// SPDX-License-Identifier: MIT
// Reliability beyond single sorts: separate Sorters on several threads, running out of device memory
// (a clear error, input untouched, the Sorter still usable), and — in the synchronization-validation
// pass only — proof that the pass really catches a missing barrier.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"
#include "vksort/vksort.hpp"

using namespace vksort;

namespace {

std::vector<uint64_t> random_u64(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

}  // namespace

TEST_CASE("threads: separate Sorters on one Device sort at the same time, every result right") {
  Device& gpu = test::device();
  const Algorithm algorithms[] = {Algorithm::radix, Algorithm::brick, Algorithm::sample, Algorithm::automatic};
  std::vector<std::string> failures(std::size(algorithms));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < std::size(algorithms); ++t)
    threads.emplace_back([&, t] {
      try {
        const SortOptions options{.key = Key::u64, .algorithm = algorithms[t], .value_bytes = 4};
        Sorter sorter(gpu, options);  // one per thread: a Sorter is single-threaded
        const uint64_t n = 3000 + 517 * t;
        Buffer keys(gpu, n * 8, "keys"), values(gpu, n * 4, "values");
        for (int round = 0; round < 3; ++round) {
          std::vector<uint64_t> input = random_u64(n, uint32_t(t * 10 + round));
          std::vector<uint32_t> vals(n);
          for (uint32_t i = 0; i < n; ++i) vals[i] = i;
          keys.upload(std::as_bytes(std::span(input)));
          values.upload(std::as_bytes(std::span(vals)));
          sorter.sort(keys, &values, n);
          std::vector<std::byte> got(n * 8), expected(n * 8);
          std::memcpy(expected.data(), input.data(), n * 8);
          std::vector<uint32_t> got_values(n), expected_values = vals;
          keys.download(got);
          values.download(std::as_writable_bytes(std::span(got_values)));
          workloads::reference_sort(Key::u64, Order::ascending, expected, expected_values);
          const std::string diff = workloads::first_difference(Key::u64, expected, got, expected_values, got_values);
          if (!diff.empty()) throw std::runtime_error("round " + std::to_string(round) + ": " + diff);
        }
      } catch (const std::exception& e) {
        failures[t] = std::string(to_string(algorithms[t])) + ": " + e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& f : failures) CHECK_MESSAGE(f.empty(), f);
}

// Device::set_auto_profile is documented safe while other threads sort: it replaces the profile under a
// lock and drops the host sorts' kept Sorters (idle ones at once, ones in use when their call ends).
// Two threads sort through vksort::sort (kept Sorters, automatic) while a third swaps profiles that
// send the same sizes to different algorithms; every result is checked.
TEST_CASE("threads: set_auto_profile while other threads sort on the Device, every result right") {
  Device gpu(test::options_like_device());
  AutoProfile sample_early, radix_only;
  for (bool values : {false, true}) {
    sample_early.of(Key::u32, values) = {.brick_up_to = 0, .sample_from = 2000};
    radix_only.of(Key::u32, values) = {.brick_up_to = 0, .sample_from = 0, .radix_bits = 4};
  }
  std::atomic<int> sorting{2};
  std::vector<std::string> failures(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int round = 0; round < 8; ++round) {
          const size_t n = round % 2 ? 3000 : 1500;
          std::mt19937 rng(uint32_t(t * 100 + round));
          std::vector<uint32_t> keys(n), values(n);
          for (size_t i = 0; i < n; ++i) keys[i] = rng() % 500, values[i] = uint32_t(i);
          std::vector<uint32_t> order(n);
          std::iota(order.begin(), order.end(), 0u);
          std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
          std::vector<uint32_t> expected_keys(n);
          for (size_t i = 0; i < n; ++i) expected_keys[i] = keys[order[i]];
          sort(gpu, std::span(keys), std::span(values), SortOptions{.key = Key::u32});
          if (keys != expected_keys || values != order) throw std::runtime_error("round " + std::to_string(round) + ": wrong result");
        }
      } catch (const std::exception& e) {
        failures[size_t(t)] = e.what();
      }
      --sorting;
    });
  int swaps = 0;
  while (sorting > 0 || swaps < 4) {
    gpu.set_auto_profile(swaps++ % 2 ? radix_only : sample_early);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& th : threads) th.join();
  for (const auto& f : failures) CHECK_MESSAGE(f.empty(), f);
  CHECK(swaps >= 4);
}

TEST_CASE("out of device memory while allocating scratch: a clear error, input untouched, Sorter still usable") {
  DeviceOptions options = test::options_like_device();
  options.pretend.device_memory = 24u << 20;  // 24 MiB
  Device gpu(options);
  // Brick sort works in place (a few control words of scratch): nothing to run out of.
  CHECK(Sorter(gpu, SortOptions{.key = Key::u64, .algorithm = Algorithm::brick}).scratch_bytes(2u << 20) < 4096);
  for (Algorithm a : {Algorithm::radix, Algorithm::sample}) {
    CAPTURE(to_string(a));
    Sorter sorter(gpu, SortOptions{.key = Key::u64, .algorithm = a});
    // 16 MiB of keys fit; their scratch does not.
    const uint64_t n = 2u << 20;
    Buffer keys(gpu, n * 8, "keys");
    std::vector<uint64_t> input = random_u64(n, 7);
    keys.upload(std::as_bytes(std::span(input)));
    try {
      sorter.sort(keys, nullptr, n);
      FAIL("a sort needing " << sorter.scratch_bytes(n) << " bytes of scratch beside 16 MiB of keys fit in 24 MiB");
    } catch (const Error& e) {
      CHECK(e.result() == VK_ERROR_OUT_OF_DEVICE_MEMORY);
      CHECK(std::string(e.what()).find("VK_ERROR_OUT_OF_DEVICE_MEMORY") != std::string::npos);
      CHECK(std::string(e.what()).find("scratch") != std::string::npos);
    }
    std::vector<uint64_t> after(n);
    keys.download(std::as_writable_bytes(std::span(after)));
    CHECK(after == input);  // untouched
    // The same Sorter sorts what fits.
    const uint64_t small = 100000;
    std::vector<uint64_t> part(input.begin(), input.begin() + small);
    keys.upload(std::as_bytes(std::span(part)));
    sorter.sort(keys, nullptr, small);
    std::vector<uint64_t> got(small);
    keys.download(std::as_writable_bytes(std::span(got)));
    std::sort(part.begin(), part.end());
    CHECK(got == part);
  }
  // The budget is what vksort holds at once: freed buffers give their memory back.
  for (int i = 0; i < 4; ++i) CHECK_NOTHROW(Buffer(gpu, 16u << 20, "big"));
  CHECK(gpu.info().device_local_bytes == 24u << 20);
}

TEST_CASE("a lost device: every call fails at once with VK_ERROR_DEVICE_LOST, naming what ran; no hang") {
  DeviceOptions options = test::options_like_device();
  options.pretend.lose_device_after = 3;  // upload, sort, download succeed; the next submission is lost
  Device gpu(options);
  Sorter sorter(gpu, SortOptions{.key = Key::f32});
  std::vector<float> keys = {3, 1, 2, -0.0f, 0.0f};
  Buffer buffer(gpu, keys.size() * 4, "keys");
  buffer.upload(std::as_bytes(std::span(keys)));
  sorter.sort(buffer, nullptr, keys.size());
  buffer.download(std::as_writable_bytes(std::span(keys)));
  CHECK(keys == std::vector<float>{-0.0f, 0.0f, 1, 2, 3});

  try {
    sorter.sort(buffer, nullptr, keys.size());
    FAIL("the pretend loss did not happen");
  } catch (const Error& e) {
    CHECK(e.result() == VK_ERROR_DEVICE_LOST);
    CHECK(std::string(e.what()).find("sorting 5 f32 keys") != std::string::npos);
    CHECK(std::string(e.what()).find("VK_ERROR_DEVICE_LOST") != std::string::npos);
  }
  // Everything after it fails too, at once, and says when the device was lost.
  for (int i = 0; i < 2; ++i) {
    try {
      buffer.upload(std::as_bytes(std::span(keys)));
      FAIL("a lost device accepted more work");
    } catch (const Error& e) {
      CHECK(e.result() == VK_ERROR_DEVICE_LOST);
      CHECK(std::string(e.what()).find("lost earlier, while sorting 5 f32 keys") != std::string::npos);
    }
  }
  BucketLists lists(gpu, BucketOptions{.buckets = 4, .capacity = 8});
  CHECK_THROWS_WITH_AS(lists.build(std::vector<uint32_t>{0, 1, 2, 3}), doctest::Contains("VK_ERROR_DEVICE_LOST"), Error);
  // The recording path needs no submission and still works; submitting is the caller's business.
  test::AppCommands app(gpu);
  Buffer scratch(gpu, sorter.scratch_bytes(5), "scratch");
  CHECK(sorter.record(app.cmd(), {buffer.ref(), {}, scratch.ref()}, 5).ok());
}

// Registered only in the pass with VK_LAYER_ENABLES=...SYNCHRONIZATION_VALIDATION...: proof that the
// pass checks something. What it can check is limited: shaders reach vksort's buffers through device
// addresses, which synchronization validation cannot see, so it judges only what goes through VkBuffer
// handles — fills, copies, and the indirect dispatch arguments the sorts keep in scratch. Here the
// application fills the scratch buffer and records a sort without the barrier sorter.hpp asks for: the
// sort's first indirect dispatch then reads arguments a transfer may still be writing.
TEST_CASE("synchronization validation pass: a missing barrier before the sort is reported") {
  const char* enables = std::getenv("VK_LAYER_ENABLES");
  REQUIRE_MESSAGE(enables, "run this case with VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT");
  REQUIRE(std::string(enables).find("SYNCHRONIZATION_VALIDATION") != std::string::npos);
  Device& gpu = test::device();
  REQUIRE(gpu.validation_enabled());
  Sorter sorter(gpu, SortOptions{.algorithm = Algorithm::radix});
  const uint64_t n = 5000;
  Buffer keys(gpu, n * 4, "keys"), scratch(gpu, sorter.scratch_bytes(n), "scratch");
  const SortBuffers b{keys.ref(), {}, scratch.ref()};
  const uint64_t before = gpu::validation_message_count();
  Status recorded;
  {
    test::AppCommands app(gpu);
    detail::context_of(gpu).vk.vkCmdFillBuffer(app.cmd(), scratch.vk_buffer(), 0, VK_WHOLE_SIZE, 0);
    recorded = sorter.record(app.cmd(), b, n);  // no barrier after the fill: a hazard
    // The layer reports it while recording (nothing needs to run), and record() returns it.
  }
  const uint64_t reported = gpu::validation_message_count() - before;
  CHECK_MESSAGE(reported >= 1, "synchronization validation did not report the missing barrier");
  test::expect_validation_messages(reported);
  CHECK(recorded.code == Status::Code::vulkan_error);
  CHECK_MESSAGE(recorded.message.find("SYNC-HAZARD") != std::string::npos, recorded.message);
  CHECK_NOTHROW(detail::context_of(gpu).raise_validation_messages());  // taken by the record() that caused them
}
