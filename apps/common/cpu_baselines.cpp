// SPDX-License-Identifier: MIT
// cpu_baselines.cpp — comparison sorts and a multithreaded LSD radix sort on encoded keys.
// Keys are encoded into an aligned array first (caller bytes may be unaligned) and decoded on the way
// back: two linear passes that the GPU sorts also pay, folded into their first and last pass.
#include "cpu_baselines.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "host_keys.hpp"

#ifdef VKSORT_HAVE_TBB
#include <tbb/parallel_sort.h>
#endif

namespace vksort::workloads {
namespace {

size_t checked_count(Key key, std::span<const std::byte> keys, std::span<const uint32_t> values) {
  const size_t kb = key_bytes(key);
  if (keys.size() % kb != 0) throw std::invalid_argument("CPU sort: key bytes are not a whole number of keys");
  const size_t n = keys.size() / kb;
  if (!values.empty() && values.size() != n)
    throw std::invalid_argument("CPU sort: values must be empty or one per key");
  return n;
}

template <class U>
U load_encoded(const KeyCodec<U>& codec, const std::byte* raw, size_t i) {
  U bits;
  std::memcpy(&bits, raw + i * sizeof(U), sizeof(U));
  return codec.encode(bits);
}

template <class U>
void store_decoded(const KeyCodec<U>& codec, std::byte* raw, size_t i, U encoded) {
  const U bits = codec.decode(encoded);
  std::memcpy(raw + i * sizeof(U), &bits, sizeof(U));
}

enum class Comparison { sort, stable, tbb_parallel };

template <class U, Comparison How>
void comparison_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values) {
  const size_t n = keys.size() / sizeof(U);
  const auto codec = KeyCodec<U>::make(key, order);
  auto run = [](auto first, auto last, auto less) {
    if constexpr (How == Comparison::stable)
      std::stable_sort(first, last, less);
    else if constexpr (How == Comparison::sort)
      std::sort(first, last, less);
#ifdef VKSORT_HAVE_TBB
    else
      tbb::parallel_sort(first, last, less);
#endif
  };
  if (values.empty()) {
    std::vector<U> enc(n);
    for (size_t i = 0; i < n; ++i) enc[i] = load_encoded(codec, keys.data(), i);
    run(enc.begin(), enc.end(), std::less<U>{});
    for (size_t i = 0; i < n; ++i) store_decoded(codec, keys.data(), i, enc[i]);
    return;
  }
  // Sorting (key, value) records, not an index permutation, keeps the baseline cache friendly.
  struct Record {
    U key;
    uint32_t value;
  };
  std::vector<Record> recs(n);
  for (size_t i = 0; i < n; ++i) recs[i] = {load_encoded(codec, keys.data(), i), values[i]};
  run(recs.begin(), recs.end(), [](const Record& a, const Record& b) { return a.key < b.key; });
  for (size_t i = 0; i < n; ++i) {
    store_decoded(codec, keys.data(), i, recs[i].key);
    values[i] = recs[i].value;
  }
}

// Below this many keys, starting threads costs more than it saves.
constexpr size_t kParallelMin = size_t(1) << 17;

template <class U>
void radix_sort(Key key, Order order, std::span<std::byte> raw, std::span<uint32_t> values, size_t threads) {
  const size_t n = raw.size() / sizeof(U);
  if (n == 0) return;
  const auto codec = KeyCodec<U>::make(key, order);
  const bool with_values = !values.empty();
  if (threads == 0) threads = n >= kParallelMin ? std::max(1u, std::thread::hardware_concurrency()) : 1;
  size_t T = std::min(threads, n);

  std::vector<U> a(n), b(n);
  std::vector<uint32_t> va(with_values ? n : 0), vb(with_values ? n : 0);
  // One digit histogram per thread, each on its own cache lines so counting does not false-share.
  struct alignas(64) Counts {
    std::array<size_t, 256> c;
  };
  std::vector<Counts> counts(T);

  // Thread t owns keys [lo, hi) of the source array in every pass. Scattering the slices in thread
  // order, each in index order, is what keeps the sort stable.
  auto body = [&](size_t t, auto&& sync) {
    const size_t lo = n * t / T, hi = n * (t + 1) / T;
    for (size_t i = lo; i < hi; ++i) {
      a[i] = load_encoded(codec, raw.data(), i);
      if (with_values) va[i] = values[i];
    }
    U* src = a.data();
    U* dst = b.data();
    uint32_t* vsrc = va.data();
    uint32_t* vdst = vb.data();
    for (int shift = 0; shift < static_cast<int>(sizeof(U) * 8); shift += 8) {
      auto& mine = counts[t].c;
      mine.fill(0);
      for (size_t i = lo; i < hi; ++i) ++mine[(src[i] >> shift) & 0xFF];
      sync();  // every slice counted

      // Every thread reads all counts, so all reach the same skip decision without more syncing.
      // offset[d] = keys with a smaller digit + keys with digit d in earlier slices.
      std::array<size_t, 256> offset;
      size_t before = 0;
      bool constant = false;
      for (size_t d = 0; d < 256; ++d) {
        size_t total = 0, earlier = 0;
        for (size_t u = 0; u < T; ++u) {
          total += counts[u].c[d];
          if (u < t) earlier += counts[u].c[d];
        }
        offset[d] = before + earlier;
        before += total;
        constant = constant || total == n;
      }
      if (!constant) {
        for (size_t i = lo; i < hi; ++i) {
          const size_t pos = offset[(src[i] >> shift) & 0xFF]++;
          dst[pos] = src[i];
          if (with_values) vdst[pos] = vsrc[i];
        }
      }
      sync();  // dst complete, and every thread has read the counts before any recounts them
      if (!constant) {
        std::swap(src, dst);
        std::swap(vsrc, vdst);
      }
    }
    for (size_t i = lo; i < hi; ++i) {
      store_decoded(codec, raw.data(), i, src[i]);
      if (with_values) values[i] = vsrc[i];
    }
  };

  if (T > 1) {
    std::barrier<> barrier(static_cast<std::ptrdiff_t>(T));
    auto sync = [&] { barrier.arrive_and_wait(); };
    // Workers wait at a gate until all exist: if one cannot be started, the others leave without
    // touching the barrier and the sort runs on this thread alone.
    std::atomic<int> gate{0};  // 0: wait, 1: go, 2: give up
    bool started = true;
    {
      std::vector<std::jthread> pool;
      try {
        for (size_t t = 1; t < T; ++t)
          pool.emplace_back([&, t] {
            gate.wait(0);
            if (gate.load() == 1) body(t, sync);
          });
      } catch (const std::system_error&) {
        started = false;
      }
      gate.store(started ? 1 : 2);
      gate.notify_all();
      if (started) body(0, sync);
    }  // joins
    if (started) return;
    T = 1;
  }
  body(0, [] {});
}

}  // namespace

void std_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values) {
  checked_count(key, keys, values);
  if (key_bytes(key) == 4)
    comparison_sort<uint32_t, Comparison::sort>(key, order, keys, values);
  else
    comparison_sort<uint64_t, Comparison::sort>(key, order, keys, values);
}

void std_stable_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values) {
  checked_count(key, keys, values);
  if (key_bytes(key) == 4)
    comparison_sort<uint32_t, Comparison::stable>(key, order, keys, values);
  else
    comparison_sort<uint64_t, Comparison::stable>(key, order, keys, values);
}

void lsd_radix_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values, size_t threads) {
  checked_count(key, keys, values);
  if (key_bytes(key) == 4)
    radix_sort<uint32_t>(key, order, keys, values, threads);
  else
    radix_sort<uint64_t>(key, order, keys, values, threads);
}

#ifdef VKSORT_HAVE_TBB
void tbb_parallel_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values) {
  checked_count(key, keys, values);
  if (key_bytes(key) == 4)
    comparison_sort<uint32_t, Comparison::tbb_parallel>(key, order, keys, values);
  else
    comparison_sort<uint64_t, Comparison::tbb_parallel>(key, order, keys, values);
}
#endif

bool have_tbb() {
#ifdef VKSORT_HAVE_TBB
  return true;
#else
  return false;
#endif
}

std::span<const CpuBaseline> cpu_baselines() {
  static constexpr CpuBaseline kAll[] = {
      {"std::sort", false, &std_sort},
      {"std::stable_sort", true, &std_stable_sort},
      {"lsd_radix", true, [](Key k, Order o, std::span<std::byte> keys, std::span<uint32_t> values) {
         lsd_radix_sort(k, o, keys, values);
       }},
#ifdef VKSORT_HAVE_TBB
      {"tbb::parallel_sort", false, &tbb_parallel_sort},
#endif
  };
  return kAll;
}

}  // namespace vksort::workloads
