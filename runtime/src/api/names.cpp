// SPDX-License-Identifier: MIT
// Names of the public enums, as the CLI and reports spell them, and error-result names.
#include <algorithm>

#include "gpu/vulkan.hpp"
#include "vksort/error.hpp"
#include "vksort/types.hpp"
#include "vksort/vksort.hpp"  // version(): the declaration carries VKSORT_API

namespace vksort {

namespace {
constexpr std::string_view key_names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
constexpr std::string_view algorithm_names[] = {"auto", "radix", "sample", "brick"};
constexpr std::string_view ranking_names[] = {"auto", "splits", "columns", "ballot", "match"};
constexpr std::string_view scan_names[] = {"auto", "single-pass", "reduce-then-scan"};
constexpr std::string_view staging_names[] = {"auto", "direct", "late", "early"};
constexpr std::string_view order_names[] = {"ascending", "descending"};
constexpr std::string_view code_names[] = {"ok", "invalid_argument", "unsupported", "out_of_memory", "device_lost", "vulkan_error",
                                             "io_error"};

// Total over every value of the underlying integer: an enum cast from an out-of-range number (a
// caller's bug, a fuzzer) is named "invalid" instead of indexing past the table.
template <size_t N>
std::string_view name_of(const std::string_view (&names)[N], uint32_t value) {
  return value < N ? names[value] : "invalid";
}

// The value of an enum whose value 0 is `automatic` (spelt "auto" in `names`, "automatic" too) named
// `name`, or nullopt.
template <class E, size_t N>
std::optional<E> parse_automatic_enum(const std::string_view (&names)[N], std::string_view name) {
  if (name == "automatic") return E(0);
  for (uint32_t i = 0; i < N; ++i)
    if (names[i] == name) return E(i);
  return std::nullopt;
}
}  // namespace

std::string_view to_string(Key k) { return k == Key::element ? "element" : name_of(key_names, uint32_t(k)); }
std::string_view to_string(Order o) { return name_of(order_names, uint32_t(o)); }
std::string_view to_string(Algorithm a) { return name_of(algorithm_names, uint32_t(a)); }
std::string_view to_string(Status::Code c) { return name_of(code_names, uint32_t(c)); }

std::optional<Key> parse_key(std::string_view name) {
  for (uint32_t i = 0; i < std::size(key_names); ++i)
    if (key_names[i] == name) return Key(i);
  return std::nullopt;
}

std::optional<Algorithm> parse_algorithm(std::string_view name) { return parse_automatic_enum<Algorithm>(algorithm_names, name); }

std::string_view to_string(RadixRanking r) { return name_of(ranking_names, uint32_t(r)); }

std::optional<RadixRanking> parse_radix_ranking(std::string_view name) { return parse_automatic_enum<RadixRanking>(ranking_names, name); }

std::string_view to_string(RadixScan s) { return name_of(scan_names, uint32_t(s)); }

std::optional<RadixScan> parse_radix_scan(std::string_view name) { return parse_automatic_enum<RadixScan>(scan_names, name); }

std::string_view to_string(RadixStaging s) { return name_of(staging_names, uint32_t(s)); }

std::optional<RadixStaging> parse_radix_staging(std::string_view name) { return parse_automatic_enum<RadixStaging>(staging_names, name); }

std::optional<double> SortStats::fact(std::string_view name) const {
  for (const auto& [k, v] : facts)
    if (k == name) return v;
  return std::nullopt;
}

const char* result_name(VkResult r) noexcept {
  switch (r) {
#define VKSORT_CASE(x) \
  case x: return #x;
    VKSORT_CASE(VK_SUCCESS)
    VKSORT_CASE(VK_NOT_READY)
    VKSORT_CASE(VK_TIMEOUT)
    VKSORT_CASE(VK_INCOMPLETE)
    VKSORT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    VKSORT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VKSORT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    VKSORT_CASE(VK_ERROR_DEVICE_LOST)
    VKSORT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    VKSORT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    VKSORT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    VKSORT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    VKSORT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    VKSORT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    VKSORT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VKSORT_CASE(VK_ERROR_FRAGMENTED_POOL)
    VKSORT_CASE(VK_ERROR_UNKNOWN)
    VKSORT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    VKSORT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    VKSORT_CASE(VK_ERROR_FRAGMENTATION)
    VKSORT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    VKSORT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    VKSORT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef VKSORT_CASE
    default: return "VK_ERROR_(unrecognised)";
  }
}

namespace gpu {
void check(VkResult result, const std::string& what) {
  if (result != VK_SUCCESS) throw Error(what + ": " + result_name(result), result);
}
}  // namespace gpu

const char* version() noexcept { return VKSORT_VERSION; }

}  // namespace vksort
