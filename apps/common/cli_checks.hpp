// SPDX-License-Identifier: MIT
// cli_checks.hpp — CLI11 validators shared by the command-line apps (vksort, particles), for what
// CLI11's own checks get wrong for a user: it reads "-1" into an unsigned option as 2^64 - 1, lets NaN
// through its ranges, and its PositiveNumber / NonNegativeNumber messages print DBL_MAX in full.
// Each message names the value and what is wanted; CLI11 prefixes the option's name.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

namespace vksort::cli_checks {

namespace detail {
// The value as a finite number, or an error message (empty when it is one).
inline std::string finite(const std::string& v, double& out) {
  char* end = nullptr;
  out = std::strtod(v.c_str(), &end);
  if (v.empty() || end == v.c_str() || *end != '\0') return v + " is not a number";
  if (!std::isfinite(out)) return v + " is not a finite number";
  return {};
}
}  // namespace detail

// Unsigned integer options: a leading '-' is refused (CLI11 would wrap it to a huge count).
inline const CLI::Validator not_negative(
    [](std::string& v) { return v.starts_with('-') ? v + " is negative" : std::string(); }, "", "not negative");

// Unsigned counts that must be at least 1 (e.g. "every k steps").
inline const CLI::Validator at_least_one(
    [](std::string& v) {
      if (v.starts_with('-')) return v + " is negative";
      if (!v.empty() && v.find_first_not_of('0') == std::string::npos) return v + " is not at least 1";
      return std::string();
    },
    "", "at least 1");

// Floating-point options that must be finite and >= 0.
inline const CLI::Validator finite_non_negative(
    [](std::string& v) {
      double x = 0;
      std::string why = detail::finite(v, x);
      if (why.empty() && x < 0) why = v + " is negative";
      return why;
    },
    "", "finite, >= 0");

// Floating-point options that must be finite and > 0.
inline const CLI::Validator finite_positive(
    [](std::string& v) {
      double x = 0;
      std::string why = detail::finite(v, x);
      if (why.empty() && !(x > 0)) why = v + " is not positive";
      return why;
    },
    "", "finite, > 0");

// Floating-point options within [lo, hi] (NaN is refused, which CLI::Range lets through).
inline CLI::Validator finite_within(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& v) {
        double x = 0;
        std::string why = detail::finite(v, x);
        if (why.empty() && (x < lo || x > hi)) {
          std::ostringstream range;
          range << lo << " to " << hi;
          why = v + " is outside " + range.str();
        }
        return why;
      },
      "", "finite, in range");
}

}  // namespace vksort::cli_checks
