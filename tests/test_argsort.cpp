// SPDX-License-Identifier: MIT
// Argsort (vksort/argsort.hpp) against the CPU reference: the permutation that std::stable_sort on the
// encoded key gives (workloads::reference_sort carrying the input position), index for index, for
// every key type, both orders, every algorithm, 32- and 64-bit indices, awkward sizes and tie-heavy
// inputs (stability); the keys must come back unchanged. Then the recording path (two argsorts in one
// application command buffer, keys written by the GPU just before) and refused arguments.
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>

#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"
#include "api/internals.hpp"

using namespace vksort;
using workloads::Distribution;

namespace {

constexpr Key all_keys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};

std::vector<uint32_t> reference_argsort(Key key, Order order, std::vector<std::byte> keys, uint32_t begin_bit = 0,
                                        uint32_t end_bit = 0) {
  std::vector<uint32_t> from(keys.size() / key_bytes(key));
  std::iota(from.begin(), from.end(), 0u);
  workloads::reference_sort(key, order, keys, from, begin_bit, end_bit);
  return from;
}

// "" when argsort_host gives the reference permutation (in index_bytes) and leaves the keys alone.
std::string check_argsort(const SortOptions& o, uint32_t index_bytes, const std::vector<std::byte>& keys) {
  const uint64_t n = keys.size() / key_bytes(o.key);
  const std::vector<std::byte> before = keys;
  std::vector<std::byte> indices(n * index_bytes);
  argsort_host(test::device(), keys.data(), n, indices.data(), index_bytes, o);
  if (keys != before) return "the keys changed";
  const std::vector<uint32_t> expected = reference_argsort(o.key, o.order, keys, o.begin_bit, o.end_bit);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t got = 0;
    std::memcpy(&got, &indices[i * index_bytes], index_bytes);
    if (got != expected[i])
      return "index " + std::to_string(i) + ": got " + std::to_string(got) + ", expected " + std::to_string(expected[i]);
  }
  return "";
}

}  // namespace

TEST_CASE("argsort: every key type, order, algorithm and index width against the stable reference") {
  const uint64_t sizes[] = {0, 1, 3, 1025, 3001};
  for (const Key key : all_keys)
    for (const Algorithm algorithm : {Algorithm::automatic, Algorithm::radix, Algorithm::brick, Algorithm::sample})
      for (const Order order : {Order::ascending, Order::descending}) {
        const SortOptions o{.key = key, .order = order, .algorithm = algorithm};
        const uint32_t index_bytes = (uint32_t(key) + uint32_t(algorithm)) % 2 ? 8 : 4;  // both widths for each
        for (const uint64_t n : sizes) {
          // Few unique keys: ties everywhere, so only a stable permutation matches; floats get NaNs,
          // infinities and -0.0 (the "special" mix) instead at one size.
          const Distribution d = is_floating(key) && n == 1025 ? Distribution::special : Distribution::few_unique;
          const auto keys = workloads::generate_keys(key, {d, workloads::default_param(d)}, n, n + 3);
          const std::string diff = check_argsort(o, index_bytes, keys);
          CHECK_MESSAGE(diff.empty(), to_string(key), " ", to_string(order), " ", to_string(algorithm), " n=", n,
                        " index_bytes=", index_bytes, ": ", diff);
        }
      }
}

TEST_CASE("argsort: both index widths, a bit range, and the typed API") {
  const auto keys = workloads::generate_keys(Key::u64, {Distribution::uniform, 0}, 2049, 9);
  for (const uint32_t ib : {4u, 8u}) {
    CHECK(check_argsort({.key = Key::u64}, ib, keys).empty());
    // Only bits [8, 20) decide: most keys tie, and ties keep input order.
    CHECK(check_argsort({.key = Key::u64, .algorithm = Algorithm::radix, .begin_bit = 8, .end_bit = 20}, ib, keys).empty());
  }
  std::vector<float> f = {3.f, -1.f, 3.f, 0.f, -0.f, 2.f};
  std::vector<uint64_t> idx(f.size());
  argsort(test::device(), std::span<const float>(f), std::span(idx));
  CHECK(idx == std::vector<uint64_t>{1, 4, 3, 5, 0, 2});
  std::vector<uint32_t> idx32(f.size());
  argsort(test::device(), std::span<const float>(f), std::span(idx32), {.order = Order::descending});
  CHECK(idx32 == std::vector<uint32_t>{0, 2, 5, 3, 4, 1});
  // Keys of a non-const vector as std::span(f) (a std::span<float>): this did not compile.
  std::fill(idx32.begin(), idx32.end(), 0u);
  argsort(test::device(), std::span(f), std::span(idx32));
  CHECK(idx32 == std::vector<uint32_t>{1, 4, 3, 5, 0, 2});
  CHECK(f == std::vector<float>{3.f, -1.f, 3.f, 0.f, -0.f, 2.f});
}

TEST_CASE("argsort on the recording path: keys written by the GPU, two argsorts in one command buffer") {
  Device& gpu = test::device();
  for (const uint32_t ib : {4u, 8u}) {
    ArgSorter sorter(gpu, {.key = Key::i64, .order = Order::descending}, ib);
    const uint64_t n1 = 5000, n2 = 77;
    const auto in1 = workloads::generate_keys(Key::i64, {Distribution::few_unique, 16}, n1, 1);
    const auto in2 = workloads::generate_keys(Key::i64, {Distribution::uniform, 0}, n2, 2);
    Buffer staged(gpu, n1 * 8, "staged keys"), keys(gpu, n1 * 8, "keys"), keys2(gpu, n2 * 8, "keys2");
    Buffer idx(gpu, n1 * ib, "indices"), idx2(gpu, n2 * ib, "indices2");
    Buffer scratch(gpu, sorter.scratch_bytes(n1), "scratch");
    staged.upload(in1);
    keys2.upload(in2);
    test::AppCommands app(gpu);
    // The keys reach their buffer by a GPU copy in the same command buffer: the recording cannot read
    // them on the host.
    VkBufferCopy region{0, 0, n1 * 8};
    vksort::detail::context_of(gpu).vk.vkCmdCopyBuffer(app.cmd(), staged.vk_buffer(), keys.vk_buffer(), 1, &region);
    app.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    Status s = sorter.record(app.cmd(), {keys.ref(), idx.ref(), scratch.ref()}, n1);
    REQUIRE_MESSAGE(s.ok(), s.message);
    app.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    s = sorter.record(app.cmd(), {keys2.ref(), idx2.ref(), scratch.ref()}, n2);
    REQUIRE_MESSAGE(s.ok(), s.message);
    app.submit_and_wait();
    for (auto [in, out, n] : {std::tuple{&in1, &idx, n1}, std::tuple{&in2, &idx2, n2}}) {
      std::vector<std::byte> got(n * ib);
      out->download(got);
      const auto expected = reference_argsort(Key::i64, Order::descending, *in);
      bool same = true;
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t g = 0;
        std::memcpy(&g, &got[i * ib], ib);
        same = same && g == expected[i];
      }
      CHECK_MESSAGE(same, "n=", n, " index_bytes=", ib);
    }
  }
}

TEST_CASE("argsort refuses bad arguments with a clear error") {
  Device& gpu = test::device();
  std::vector<uint32_t> keys = {3, 1, 2}, idx(3);
  CHECK_THROWS_WITH_AS(argsort_host(gpu, keys.data(), 3, idx.data(), 2, {}), doctest::Contains("index_bytes"), Error);
  CHECK_THROWS_WITH_AS(argsort_host(gpu, nullptr, 3, idx.data(), 4, {}), doctest::Contains("keys is a null"), Error);
  CHECK_THROWS_WITH_AS(argsort_host(gpu, keys.data(), 3, nullptr, 4, {}), doctest::Contains("indices is a null"), Error);
  CHECK_THROWS_WITH_AS(argsort_host(gpu, keys.data(), 3, idx.data(), 4, {.value_bytes = 4}),
                       doctest::Contains("value_bytes must be 0"), Error);
  CHECK(idx == std::vector<uint32_t>(3, 0));  // nothing written by a refused call
  std::vector<uint64_t> idx64(2);
  CHECK_THROWS_AS(argsort(gpu, std::span<const uint32_t>(keys), std::span(idx64)), Error);  // lengths differ
  // A bad index width is named as such, also where the indices it would measure reach into the keys.
  std::vector<uint32_t> memory = {0, 0, 0, 3, 1, 2};
  CHECK_THROWS_WITH_AS(argsort_host(gpu, memory.data() + 3, 3, memory.data(), 16, {}), doctest::Contains("index_bytes"), Error);
  // Recording path: a Status, nothing recorded.
  ArgSorter sorter(gpu, {}, 4);
  Buffer k(gpu, 64, "keys"), i(gpu, 64, "indices"), scratch(gpu, sorter.scratch_bytes(16), "scratch");
  test::AppCommands app(gpu);
  CHECK(!sorter.record(app.cmd(), {k.ref(), i.ref(), scratch.ref()}, 17).ok());       // beyond keys
  CHECK(!sorter.record(app.cmd(), {k.ref(), k.ref(), scratch.ref()}, 16).ok());       // indices overlap keys
  CHECK(!sorter.record(app.cmd(), {k.ref(), i.ref(), {scratch.vk_buffer(), 0, 8}}, 16).ok());  // scratch too small
  CHECK(sorter.record(app.cmd(), {k.ref(), i.ref(), scratch.ref()}, 0).ok());
  // More keys than a sort takes: refused as such (the layout's arithmetic wrapped, and the Status named
  // the keys range or the 32-bit indices instead).
  for (const uint64_t n : {max_sort_keys + 1, uint64_t(1) << 32, ~uint64_t(0)}) {
    CAPTURE(n);
    const Status s = sorter.record(app.cmd(), {k.ref(), i.ref(), scratch.ref()}, n);
    CHECK(s.code == Status::Code::invalid_argument);
    CHECK_MESSAGE(s.message.find("more than 2^31 - 1 keys") != std::string::npos, s.message);
  }
  app.submit_and_wait();
}

