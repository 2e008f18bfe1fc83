// SPDX-License-Identifier: MIT
// A program that uses vksort the way a third party does: only <vksort/vksort.hpp>, found through the
// installed CMake package, pkg-config, or add_subdirectory. It sorts key/value pairs on the default
// device (validation on where installed), compares them with std::stable_sort, and checks that a
// vksort::Error thrown inside the library is caught here as one. Exit 0 only if all of that holds.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include <vksort/vksort.hpp>

int main() {
  std::printf("vksort %s\n", vksort::version());
  try {
    vksort::DeviceOptions options;
    options.validation = vksort::validation_layer_available() ? 1 : 0;
    vksort::Device gpu(options);
    std::printf("device: %s\n", gpu.info().name.c_str());

    const uint32_t n = 100'003;
    std::mt19937 random(9);
    std::vector<uint32_t> keys(n), ids(n);
    for (uint32_t& k : keys) k = random() % 5000;  // many equal keys: stability matters
    std::iota(ids.begin(), ids.end(), 0u);
    std::vector<uint32_t> order(ids);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });

    vksort::sort(gpu, std::span(keys), std::span(ids), {.key = vksort::Key::u32});
    for (uint32_t i = 0; i < n; ++i) {
      if (ids[i] != order[i] || (i > 0 && keys[i - 1] > keys[i])) {
        std::fprintf(stderr, "consumer: wrong result at %u\n", i);
        return 1;
      }
    }

    bool caught = false;
    try {
      std::vector<uint64_t> wide(4);
      vksort::sort(gpu, std::span(wide), {.key = vksort::Key::u32});  // size mismatch: must throw
    } catch (const vksort::Error&) {
      caught = true;
    }
    if (!caught) {
      std::fprintf(stderr, "consumer: a vksort::Error was not caught as one\n");
      return 1;
    }
  } catch (const vksort::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  std::printf("OK: sorted and checked\n");
  return 0;
}
