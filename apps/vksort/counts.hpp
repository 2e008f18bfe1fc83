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

// A byte count for messages, in the largest binary unit it reaches, to one decimal without a trailing
// ".0": "1 byte", "1000 bytes", "64 KiB", "1.5 MiB" (never "0 MiB" for a small budget).
std::string format_bytes(uint64_t bytes);

// The forms above, for help and error messages.
inline constexpr const char* count_examples = "1000, 64k, 1M, 2^20, 2^20+1, 1e6";

}  // namespace vksort::cli
