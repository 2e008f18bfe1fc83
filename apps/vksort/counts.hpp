// SPDX-License-Identifier: MIT
// counts.hpp — key counts as people type them: 1000, 64k, 1M, 2^20, 2^20+1, 1e6.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vksort::cli {

// Accepted forms (no spaces):
//   digits            1000
//   digits + suffix   64k = 64 * 2^10, 1M = 2^20, 2G = 2^31 (k/K, m/M, g/G: binary, as memory sizes are)
//   2^e, 2^e+c, 2^e-c the awkward sizes around powers of two that break sorts
//   digits e digits   1e6 = 1000000 (decimal)
// nullopt for anything else, a negative result, or a value above 2^63.
std::optional<uint64_t> parse_count(std::string_view text);

// The forms above, for help and error messages.
inline constexpr const char* count_examples = "1000, 64k, 1M, 2^20, 2^20+1, 1e6";

}  // namespace vksort::cli
