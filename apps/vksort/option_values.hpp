// SPDX-License-Identifier: MIT
// option_values.hpp — turning the words of a command line into vksort's types, with usage errors that
// list what would have been accepted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <vksort/types.hpp>

#include "commands.hpp"

namespace vksort::cli {

vksort::Key parse_key_option(std::string_view text);              // --type
vksort::Algorithm parse_algorithm_option(std::string_view text);  // --algo
vksort::BrickVariant parse_variant_option(std::string_view text); // --variant
std::string_view to_string(vksort::BrickVariant variant);
// How reports name what ran: the resolved algorithm, with the variant for brick sort ("brick/blocks").
std::string algorithm_label(vksort::Algorithm resolved, vksort::BrickVariant variant);

// A count from --n as typed (for messages) and its value.
struct Size {
  std::string text;
  uint64_t n;
};
// The --n list: every entry a count (counts.hpp) of at least 1 and below 2^31 (vksort's indices are
// 32-bit); `items` names what is counted in messages ("keys", "elements"), `option` the option.
std::vector<Size> parse_sizes(const std::vector<std::string>& texts, const std::string& items,
                              const std::string& option = "--n");

// --value-bytes as given (-1: not given, then 4): a multiple of 4 from 4 to 256, else a UsageError.
uint32_t value_bytes_option(int64_t given);

// The tuning knobs as a vksort::Tuning; throws UsageError where a knob is bad input whatever the kernel
// (samples not a power of two, unknown names): the shape's bounds are the library's to check.
vksort::Tuning to_tuning(const TuningOptions& options);

}  // namespace vksort::cli
