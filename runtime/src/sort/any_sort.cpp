// SPDX-License-Identifier: MIT
#include "sort/any_sort.hpp"

#include "vksort/error.hpp"

namespace vksort::algo {

Algorithm resolve_algorithm(const SortOptions& o) {
  // Radix sort is the general-purpose default; brick sort stays selectable for nearly sorted data.
  const Algorithm a = o.algorithm == Algorithm::automatic ? Algorithm::radix : o.algorithm;
  if (a != Algorithm::radix && a != Algorithm::brick && a != Algorithm::sample)
    throw Error(std::string(to_string(a)) + " sort is not available in this version of vksort (available: radix, brick, sample)");
  if (a != Algorithm::radix && (o.begin_bit != 0 || o.end_bit != 0))
    throw Error("SortOptions::begin_bit / end_bit select key bits for radix sort only; " + std::string(to_string(a)) +
                " sort orders by the whole key");
  return a;
}

AnySort make_sort(gpu::Context& ctx, const SortOptions& options, Algorithm algorithm, TileShape single_pass_shape) {
  switch (algorithm) {
    case Algorithm::brick: return AnySort(std::in_place_type<BrickSort>, ctx, options);
    case Algorithm::radix: return AnySort(std::in_place_type<RadixSort>, ctx, options, single_pass_shape);
    case Algorithm::sample: return AnySort(std::in_place_type<SampleSort>, ctx, options);
    default: throw Error("internal: no implementation for " + std::string(to_string(algorithm)));
  }
}

}  // namespace vksort::algo
