// SPDX-License-Identifier: MIT
// reference_sort.cpp — deliberately the plainest correct sort: the standard library's sort on (encoded
// key, original index), which is a total order, so its result is the stable sort's. Large inputs are
// sorted in chunks on the machine's cores and merged pairwise (std::merge), so checking a GPU sort of
// 2^28 keys takes seconds on a many-core host rather than most of a minute.
#include "reference_sort.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "host_keys.hpp"

namespace vksort::workloads {
namespace {

// Sorts `items` by `before` (a strict total order): chunks on up to hardware_concurrency threads (a
// power of two of them), then rounds of pairwise merges, each round's merges in parallel too.
template <class T, class Less>
void sort_in_parallel(std::vector<T>& items, Less before) {
  const size_t n = items.size();
  size_t chunks = 1;
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  while (chunks * 2 <= cores && n / (chunks * 2) >= (size_t(1) << 18)) chunks *= 2;
  if (chunks == 1) {
    std::sort(items.begin(), items.end(), before);
    return;
  }
  auto bound = [&](size_t c) { return c * n / chunks; };  // chunk c is [bound(c), bound(c + 1))
  auto in_parallel = [](size_t tasks, auto task) {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < tasks; ++i) threads.emplace_back(task, i);
    for (std::thread& t : threads) t.join();
  };
  in_parallel(chunks, [&](size_t c) { std::sort(items.begin() + bound(c), items.begin() + bound(c + 1), before); });
  std::vector<T> merged(n);
  for (size_t width = 1; width < chunks; width *= 2) {
    // Runs of `width` chunks are sorted; merge neighbours into runs of 2 * width, from items into merged.
    in_parallel(chunks / (2 * width), [&](size_t m) {
      const size_t lo = bound(2 * m * width), mid = bound((2 * m + 1) * width), hi = bound((2 * m + 2) * width);
      std::merge(items.begin() + lo, items.begin() + mid, items.begin() + mid, items.begin() + hi,
                 merged.begin() + lo, before);
    });
    items.swap(merged);
  }
}

template <class U>
void reference_sort_typed(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values, uint32_t begin_bit,
                          uint32_t end_bit) {
  const size_t n = keys.size() / sizeof(U);
  const auto codec = KeyCodec<U>::make(key, order);
  // The index rides along so that values follow their keys; size_t because n may pass 2^32.
  struct Item {
    U key;
    size_t index;
  };
  std::vector<Item> items(n);
  for (size_t i = 0; i < n; ++i) {
    U bits;
    std::memcpy(&bits, keys.data() + i * sizeof(U), sizeof(U));
    items[i] = {codec.encode(bits), i};
  }
  // Equal ordered bits keep their input order: the index breaks the tie, so no two items compare equal.
  const auto before = [&](const Item& a, const Item& b) {
    const U x = bit_field(a.key, begin_bit, end_bit), y = bit_field(b.key, begin_bit, end_bit);
    return x < y || (x == y && a.index < b.index);
  };
  sort_in_parallel(items, before);

  for (size_t i = 0; i < n; ++i) {
    const U bits = codec.decode(items[i].key);
    std::memcpy(keys.data() + i * sizeof(U), &bits, sizeof(U));
  }
  if (!values.empty()) {
    const std::vector<uint32_t> original(values.begin(), values.end());
    for (size_t i = 0; i < n; ++i) values[i] = original[items[i].index];
  }
}

template <class U>
bool is_sorted_typed(Key key, Order order, std::span<const std::byte> keys, uint32_t begin_bit, uint32_t end_bit) {
  const size_t n = keys.size() / sizeof(U);
  const auto codec = KeyCodec<U>::make(key, order);
  U previous = 0;
  for (size_t i = 0; i < n; ++i) {
    U bits;
    std::memcpy(&bits, keys.data() + i * sizeof(U), sizeof(U));
    const U e = bit_field(codec.encode(bits), begin_bit, end_bit);
    if (i > 0 && e < previous) return false;
    previous = e;
  }
  return true;
}

}  // namespace

void reference_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values, uint32_t begin_bit,
                    uint32_t end_bit) {
  const size_t kb = key_bytes(key);
  if (keys.size() % kb != 0)
    throw std::invalid_argument("reference_sort: key bytes are not a whole number of keys");
  const size_t n = keys.size() / kb;
  if (!values.empty() && values.size() != n)
    throw std::invalid_argument("reference_sort: values must be empty or one per key");
  if (kb == 4)
    reference_sort_typed<uint32_t>(key, order, keys, values, begin_bit, end_bit);
  else
    reference_sort_typed<uint64_t>(key, order, keys, values, begin_bit, end_bit);
}

bool is_sorted_encoded(Key key, Order order, std::span<const std::byte> keys, uint32_t begin_bit, uint32_t end_bit) {
  return key_bytes(key) == 4 ? is_sorted_typed<uint32_t>(key, order, keys, begin_bit, end_bit)
                             : is_sorted_typed<uint64_t>(key, order, keys, begin_bit, end_bit);
}

std::string format_key(Key key, const std::byte* raw) {
  char buf[64];
  const uint64_t bits = load_key_bits(key, raw);
  switch (key) {
    case Key::element:  // unset reads u32 wherever no element type says otherwise
    case Key::u32:
    case Key::u64:
      std::snprintf(buf, sizeof buf, "%" PRIu64, bits);
      break;
    case Key::i32:
      std::snprintf(buf, sizeof buf, "%" PRId32, static_cast<int32_t>(static_cast<uint32_t>(bits)));
      break;
    case Key::i64:
      std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<int64_t>(bits));
      break;
    case Key::f32: {
      // The hex bits tell apart what the decimal hides: -0.0 from 0.0, and one NaN payload from another.
      float f;
      std::memcpy(&f, raw, 4);
      std::snprintf(buf, sizeof buf, "%.9g (0x%08" PRIx64 ")", static_cast<double>(f), bits);
      break;
    }
    case Key::f64: {
      double d;
      std::memcpy(&d, raw, 8);
      std::snprintf(buf, sizeof buf, "%.17g (0x%016" PRIx64 ")", d, bits);
      break;
    }
  }
  return buf;
}

std::string first_difference(Key key, std::span<const std::byte> expected, std::span<const std::byte> got,
                             std::span<const uint32_t> expected_values, std::span<const uint32_t> got_values) {
  const size_t kb = key_bytes(key);
  const size_t ne = expected.size() / kb, ng = got.size() / kb;
  const size_t positions = std::max({ne, ng, expected_values.size(), got_values.size()});

  auto key_differs = [&](size_t i) {
    if ((i < ne) != (i < ng)) return true;
    return i < ne && std::memcmp(expected.data() + i * kb, got.data() + i * kb, kb) != 0;
  };
  auto value_differs = [&](size_t i) {
    if ((i < expected_values.size()) != (i < got_values.size())) return true;
    return i < expected_values.size() && expected_values[i] != got_values[i];
  };

  size_t differing = 0, first = positions;
  for (size_t i = 0; i < positions; ++i) {
    if (key_differs(i) || value_differs(i)) {
      if (differing++ == 0) first = i;
    }
  }
  // A trailing partial key is a size difference too, even if every whole key matches.
  const bool sizes_differ = expected.size() != got.size() || expected_values.size() != got_values.size();
  if (differing == 0 && !sizes_differ) return {};

  std::string msg;
  if (sizes_differ) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "sizes differ (expected %zu key bytes, %zu values; got %zu key bytes, %zu values); ",
                  expected.size(), expected_values.size(), got.size(), got_values.size());
    msg += buf;
  }
  if (differing == 0) return msg + "all common positions equal";

  auto side = [&](std::span<const std::byte> keys, size_t n, std::span<const uint32_t> values) {
    std::string s = first < n ? format_key(key, keys.data() + first * kb) : std::string("(none)");
    if (!expected_values.empty() || !got_values.empty())
      s += first < values.size() ? " value " + std::to_string(values[first]) : std::string(" value (none)");
    return s;
  };
  msg += std::to_string(differing) + " of " + std::to_string(positions) + " positions differ; first at index " +
         std::to_string(first) + ": expected " + side(expected, ne, expected_values) + ", got " +
         side(got, ng, got_values);
  return msg;
}

}  // namespace vksort::workloads
