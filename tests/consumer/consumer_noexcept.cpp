// SPDX-License-Identifier: MIT
// A third party built with -fno-exceptions, as many engines are: it reaches vksort only through the
// exception-free API. Device::create, Sorter::create and Buffer::create return the object or a Status;
// the sort is recorded and submitted (Sorter::sort) and checked against std::stable_sort; a bad option
// must come back as Status::Code::invalid_argument. Exit 0 only if all of that holds.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include <vksort/vksort.hpp>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "consumer_noexcept must be built with -fno-exceptions"
#endif

namespace {
int fail(const char* what, const vksort::Status& s) {
  std::fprintf(stderr, "consumer_noexcept: %s: %s (%s)\n", what, s.message.c_str(), std::string(vksort::to_string(s.code)).c_str());
  return 1;
}
}  // namespace

int main() {
  vksort::DeviceOptions options;
  options.validation = 0;
  vksort::Result<vksort::Device> gpu = vksort::Device::create(options);
  if (!gpu) return fail("Device::create", gpu.status());
  std::printf("device: %s\n", gpu.value().info().name.c_str());

  vksort::Result<vksort::Sorter> refused = vksort::Sorter::create(gpu.value(), {.value_bytes = 3});
  if (refused || refused.status().code != vksort::Status::Code::invalid_argument) {
    std::fprintf(stderr, "consumer_noexcept: value_bytes 3 was not refused as an invalid argument\n");
    return 1;
  }

  const uint32_t n = 20'011;
  vksort::Result<vksort::Sorter> sorter = vksort::Sorter::create(gpu.value(), {.key = vksort::Key::u32, .value_bytes = 4});
  if (!sorter) return fail("Sorter::create", sorter.status());
  vksort::Result<vksort::Buffer> keys = vksort::Buffer::create(gpu.value(), n * 4, "keys");
  vksort::Result<vksort::Buffer> ids = vksort::Buffer::create(gpu.value(), n * 4, "ids");
  if (!keys) return fail("Buffer::create", keys.status());
  if (!ids) return fail("Buffer::create", ids.status());

  std::mt19937 random(5);
  std::vector<uint32_t> k(n), v(n);
  for (uint32_t& x : k) x = random() % 3000;  // many equal keys: stability matters
  std::iota(v.begin(), v.end(), 0u);
  std::vector<uint32_t> order(v);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return k[a] < k[b]; });
  // The copies and the submitting sort throw on a device failure; built without exceptions, that ends
  // the program with a non-zero status, which fails this test as it should.
  keys.value().upload(std::as_bytes(std::span(k)));
  ids.value().upload(std::as_bytes(std::span(v)));
  sorter.value().sort(keys.value(), &ids.value(), n);
  ids.value().download(std::as_writable_bytes(std::span(v)));
  if (v != order) {
    std::fprintf(stderr, "consumer_noexcept: wrong order\n");
    return 1;
  }
  std::printf("OK: created without exceptions, sorted and checked\n");
  return 0;
}
