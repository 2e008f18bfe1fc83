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

// The bytes a value or record may take (SortOptions::value_bytes, and the value_bytes of the host entry
// points, which they check even when there are no values to move): 0 (keys only), 4 (one 32-bit value)
// or a multiple of 4 up to 256 (records; algo::RecordGather::max_record_bytes).
inline constexpr uint32_t max_value_bytes = 256;
inline void check_value_bytes(const std::string& what, uint32_t value_bytes) {
  if (value_bytes % 4 || value_bytes > max_value_bytes)
    throw Error(what + " must be 0 (keys only), 4 (one 32-bit value) or a multiple of 4 up to " +
                std::to_string(max_value_bytes) + " (records); got " + std::to_string(value_bytes));
}

// OWNER::tuning's enums, and the look-back window (for any algorithm: radix sort may take the single
// pass by n; a window out of range was otherwise ignored until then).
inline void check_tuning(const char* owner, const Tuning& t) {
  if (t.lookback_window > Tuning::max_lookback_window)
    throw Error(std::string(owner) + "::tuning: look-back window " + std::to_string(t.lookback_window) + " must be 1 to " +
                std::to_string(Tuning::max_lookback_window) + " predecessor tiles (0: per device)");
  check_enum(owner, "tuning.radix_ranking", t.radix_ranking, RadixRanking::match, "RadixRanking");
  check_enum(owner, "tuning.radix_scan", t.radix_scan, RadixScan::reduce_then_scan, "RadixScan");
  check_enum(owner, "tuning.radix_staging", t.radix_staging, RadixStaging::early, "RadixStaging");
}

}  // namespace vksort::api
