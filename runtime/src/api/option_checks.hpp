// SPDX-License-Identifier: MIT
// Range checks of the public enums in options structs. Every entry point checks its options once, so
// no later code (tables indexed by an enum, switches with a default) sees a value outside its enum;
// the Tuning enums, which SortOptions and BucketOptions share, are checked by one function for both.
#pragma once

#include <cstdint>
#include <string>

#include "vksort/error.hpp"
#include "vksort/types.hpp"

namespace vksort::api {

// Throws "OWNER::OPTION is V, not a valid vksort::TYPE" unless value <= last (enums start at 0).
template <class E>
void check_enum(const char* owner, const char* option, E value, E last, const char* type) {
  if (uint32_t(value) > uint32_t(last))
    throw Error(std::string(owner) + "::" + option + " is " + std::to_string(uint32_t(value)) + ", not a valid vksort::" + type);
}

// OWNER::tuning's enums.
inline void check_tuning(const char* owner, const Tuning& t) {
  check_enum(owner, "tuning.radix_ranking", t.radix_ranking, RadixRanking::match, "RadixRanking");
  check_enum(owner, "tuning.radix_scan", t.radix_scan, RadixScan::reduce_then_scan, "RadixScan");
  check_enum(owner, "tuning.radix_staging", t.radix_staging, RadixStaging::early, "RadixStaging");
}

}  // namespace vksort::api
