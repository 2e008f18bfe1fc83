#include "sort/any_sort.hpp"

#include "vksort/error.hpp"

namespace vksort::algo {

Algorithm resolve_algorithm(const SortOptions& o) {
  // Brick sort is the only algorithm in this build; automatic picks it until the others land.
  if (o.algorithm == Algorithm::automatic) return Algorithm::brick;
  if (o.algorithm != Algorithm::brick)
    throw Error(std::string(to_string(o.algorithm)) + " sort is not available in this version of vksort (available: brick)");
  return o.algorithm;
}

AnySort make_sort(gpu::Context& ctx, const SortOptions& options, Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::brick: return AnySort(std::in_place_type<BrickSort>, ctx, options);
    default: throw Error("internal: no implementation for " + std::string(to_string(algorithm)));
  }
}

}  // namespace vksort::algo
