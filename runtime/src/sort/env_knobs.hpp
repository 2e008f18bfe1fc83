// SPDX-License-Identifier: MIT
// The environment variables the sorts read: experiment switches and diagnostics for GPU runs and tests
// (VKSORT_HISTOGRAM_REPLICAS, VKSORT_RADIX_PLAIN_SCANS, ...; each is documented
// where it is read). All are strict: a value a knob does not take throws an Error naming the variable,
// its value and what it takes, so a typo in a benchmark's environment is never silently the default.
// Unset and "" mean the same: the default.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace vksort::algo {

// An on/off switch: "1" on; "0", "" or unset off.
bool env_switch(const char* name);

// A count in [least, most] (decimal digits only); nullopt where unset or "". `what` says what it takes,
// e.g. "a count of invocations, 1 to 128".
std::optional<uint32_t> env_count(const char* name, uint32_t least, uint32_t most, const char* what);

// One of `choices`, written in decimal; 0 where unset or "".
uint32_t env_choice(const char* name, std::initializer_list<uint32_t> choices);

// A comma-separated list of words, each one of `allowed` (repeats allowed); empty where unset or "".
std::vector<std::string> env_list(const char* name, std::initializer_list<const char*> allowed);

}  // namespace vksort::algo
