// SPDX-License-Identifier: MIT
// cpu_baselines.hpp — the CPU sorts a GPU sort is benchmarked against, with the reference's semantics:
// raw little-endian keys of any vksort::Key sorted in place by their encoded key (host_keys.hpp), and
// `values` (empty, or one uint32_t per key) carried along. Each throws std::invalid_argument, as
// reference_sort does, if the sizes do not fit together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <vksort/types.hpp>

namespace vksort::workloads {

// std::sort on the encoded keys. Not stable: keys come out identical to reference_sort, but the values
// of equal keys may come out in any order (still each with its own key).
void std_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values);

// std::stable_sort on the encoded keys: identical to reference_sort, keys and values.
void std_stable_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values);

// Least-significant-digit radix sort, 8-bit digits on the encoded key, skipping passes whose digit is
// the same in every key. Stable: identical to reference_sort. Histogram and scatter run on `threads`
// threads, each owning a contiguous slice (0: hardware_concurrency() when n is large, else one).
void lsd_radix_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values,
                    size_t threads = 0);

#ifdef VKSORT_HAVE_TBB
// oneTBB's tbb::parallel_sort on the encoded keys, on all of TBB's worker threads: the fast parallel
// CPU sort of a well-kept package. Not stable, like std_sort. Only where oneTBB was found at build time.
void tbb_parallel_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values);
#endif
// Whether this build has tbb_parallel_sort (found by find_package(TBB); optional).
bool have_tbb();

// The baselines by name, for a benchmark that runs all of them ("std::sort", "std::stable_sort",
// "lsd_radix", and "tbb::parallel_sort" where oneTBB was found); `stable` says whether values must
// match the reference too.
struct CpuBaseline {
  std::string_view name;
  bool stable;
  void (*sort)(Key, Order, std::span<std::byte>, std::span<uint32_t>);
};
std::span<const CpuBaseline> cpu_baselines();

}  // namespace vksort::workloads
