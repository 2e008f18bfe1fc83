// SPDX-License-Identifier: MIT
#include "option_values.hpp"

#include <bit>
#include <string>

#include "cli_error.hpp"
#include "counts.hpp"

namespace vksort::cli {

vksort::Key parse_key_option(std::string_view text) {
  if (auto k = vksort::parse_key(text)) return *k;
  throw UsageError("--type: unknown key type '" + std::string(text) + "' (known: u32, i32, f32, u64, i64, f64)");
}

vksort::Algorithm parse_algorithm_option(std::string_view text) {
  if (auto a = vksort::parse_algorithm(text)) return *a;
  if (text == "buckets")
    throw UsageError("--algo buckets: bucket lists are not a key sort; their benchmark is 'vksort bench-buckets'");
  throw UsageError("--algo: unknown algorithm '" + std::string(text) + "' (known: auto, brick, radix, sample)");
}

vksort::BrickVariant parse_variant_option(std::string_view text) {
  if (text == "blocks") return vksort::BrickVariant::blocks;
  if (text == "pairs") return vksort::BrickVariant::pairs;
  throw UsageError("--variant: unknown brick sort variant '" + std::string(text) + "' (known: blocks, pairs)");
}

std::string_view to_string(vksort::BrickVariant variant) {
  return variant == vksort::BrickVariant::pairs ? "pairs" : "blocks";
}

std::string algorithm_label(vksort::Algorithm resolved, vksort::BrickVariant variant) {
  std::string label(vksort::to_string(resolved));
  if (resolved == vksort::Algorithm::brick) {
    label += '/';
    label += to_string(variant);
  }
  return label;
}

uint32_t value_bytes_option(int64_t given) {
  constexpr int64_t most = 256;  // SortOptions::value_bytes' bound (vksort/types.hpp)
  if (given == -1) return 4;
  if (given < 4 || given > most || given % 4)
    throw UsageError("--value-bytes: " + std::to_string(given) + " is not a multiple of 4 from 4 to " +
                     std::to_string(most) + " (the bytes of one value record)");
  return uint32_t(given);
}

vksort::Tuning to_tuning(const TuningOptions& options) {
  auto check = [](uint32_t v, const char* name) {
    if (v != 0 && !std::has_single_bit(v))
      throw UsageError(std::string(name) + ": " + std::to_string(v) + " is not a power of two");
    return v;
  };
  // The shape's own bounds are the library's: the single pass's ballot and match rankings take any
  // workgroup size and keys per invocation, the other kernels powers of two (each refuses, saying why).
  vksort::Tuning tuning{options.workgroup_size, options.items_per_thread};
  tuning.samples = check(options.samples, "--samples");
  if (options.radix_bits != 0 && options.radix_bits != 2 && options.radix_bits != 4 && options.radix_bits != 8)
    throw UsageError("--radix-bits: " + std::to_string(options.radix_bits) + ": radix sort's digits are 2, 4 or 8 bits wide");
  tuning.radix_bits = options.radix_bits;
  const auto ranking = vksort::parse_radix_ranking(options.radix_ranking);
  if (!ranking)
    throw UsageError("--radix-ranking: unknown ranking '" + options.radix_ranking + "' (known: auto, splits, columns, ballot, match)");
  tuning.radix_ranking = *ranking;
  const auto scan = vksort::parse_radix_scan(options.radix_scan);
  if (!scan)
    throw UsageError("--radix-scan: unknown path '" + options.radix_scan + "' (known: auto, single-pass, reduce-then-scan)");
  tuning.radix_scan = *scan;
  const auto staging = vksort::parse_radix_staging(options.radix_staging);
  if (!staging)
    throw UsageError("--radix-staging: unknown staging '" + options.radix_staging + "' (known: auto, direct, late, early)");
  tuning.radix_staging = *staging;
  if (options.lookback_window > 32)
    throw UsageError("--lookback-window: " + std::to_string(options.lookback_window) + " is not 1 to 32 (predecessor tiles per round)");
  tuning.lookback_window = options.lookback_window;
  return tuning;
}

std::vector<Size> parse_sizes(const std::vector<std::string>& texts, const std::string& items, const std::string& option) {
  // Indices are 32-bit in the shaders (sorter.cpp and bucket lists refuse more).
  constexpr uint64_t max_count = (uint64_t(1) << 31) - 1;
  std::vector<Size> sizes;
  for (const auto& t : texts) {
    const auto n = parse_count(t);
    if (!n) throw UsageError(option + ": '" + t + "' is not a count of " + items + " (examples: " + count_examples + ")");
    if (*n == 0) throw UsageError(option + ": " + t + " " + items + ": a benchmark needs at least 1");
    if (*n > max_count)
      throw UsageError(option + ": " + t + " = " + std::to_string(*n) + " " + items + ": vksort handles at most 2^31 - 1 at once");
    sizes.push_back({t, *n});
  }
  if (sizes.empty()) throw UsageError(option + ": no sizes given");
  return sizes;
}

}  // namespace vksort::cli
