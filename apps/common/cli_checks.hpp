// SPDX-License-Identifier: MIT
// cli_checks.hpp — CLI11 validators shared by the command-line apps (vksort, particles), for what
// CLI11's own checks get wrong for a user: it reads "-1" into an unsigned option as 2^64 - 1, lets NaN
// through its ranges, and its PositiveNumber / NonNegativeNumber messages print DBL_MAX in full.
// Each message names the value and what is wanted; CLI11 prefixes the option's name.
// Also the checks of empty values CLI11 cannot do as a validator: `--name=` and `--name ""`, and comma
// lists that refuse an empty item (add_list_option).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

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

// Integer options are decimal. CLI11 2.1 converts them with strtoull(text, 0), so "010" was 8 and
// "0x10" 16, silently, and "0x0" passed the checks that refuse 0 (they read the text). Leading zeros
// are dropped ("010" is 10, as written); hexadecimal, octal and binary prefixes, exponents and
// anything else not digits are refused. A transform, so it runs before the option's checks, which then
// see the plain decimal text. decimal_integer_options() gives it to the options CLI11 still knows as
// integers (type name UINT or INT); an integer option whose ->type_name() is set where it is added
// (vksort's "--repeat R") has lost that name and takes ->transform(decimal_integer) there.
inline const CLI::Validator decimal_integer(
    [](std::string& v) {
      if (v.empty()) return std::string();  // the empty-value checks name it (empty_value_given)
      const size_t digits = v.starts_with('-') || v.starts_with('+') ? 1 : 0;
      if (v.size() == digits || v.find_first_not_of("0123456789", digits) != std::string::npos)
        return v + " is not a decimal integer";
      const size_t first = v.find_first_not_of('0', digits);
      const std::string magnitude = first == std::string::npos ? std::string("0") : v.substr(first);
      // No option takes more than 64 bits; CLI11 read 2^64 and up into an unsigned option as 2^64 - 1.
      const std::string most = "18446744073709551615";
      if (magnitude.size() > most.size() || (magnitude.size() == most.size() && magnitude > most))
        return v + " is out of range";
      v = v.substr(0, digits) + magnitude;
      return std::string();
    },
    "", "decimal");

// Makes every integer option of `app` and of its subcommands decimal (decimal_integer). Call once all
// options are added, before parsing.
inline void decimal_integer_options(CLI::App& app) {
  // Options with a transform of their own already read their text (counts such as "1M").
  auto transforms = [](CLI::Option* o) {
    for (int i = 0;; ++i) {
      try {
        if (o->get_validator(i)->get_modifying()) return true;
      } catch (const CLI::OptionNotFound&) {
        return false;
      }
    }
  };
  for (CLI::Option* o : app.get_options()) {
    const std::string type = o->get_type_name();
    if ((type.starts_with("UINT") || type.starts_with("INT")) && !transforms(o)) o->transform(decimal_integer);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) decimal_integer_options(*sub);
}

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

// Comma-separated lists ("--n 1000,2000", or the items as arguments of their own, "--n 1000 2000"), split
// here rather than by CLI11's ->delimiter(','), which drops an empty item ("--n 1000,,2000" ran two
// sizes, particles' "--box 6,,6,6" the box 6,6,6) where every other bad value is refused. Use
// add_list_option() for every list option of the apps, never ->delimiter(',').
inline const CLI::Validator whole_items(
    [](std::string& v) {
      if (v.empty() || v.front() == ',' || v.back() == ',' || v.find(",,") != std::string::npos)
        return "'" + v + "' has an empty item";
      return std::string();
    },
    "", "no empty items");

// The items of the arguments a list option took, each split at its commas.
inline std::vector<std::string> list_items(const std::vector<std::string>& tokens) {
  std::vector<std::string> items;
  for (const std::string& token : tokens)
    for (size_t at = 0; at <= token.size();) {
      const size_t end = std::min(token.find(',', at), token.size());
      items.push_back(token.substr(at, end - at));
      at = end + 1;
    }
  return items;
}

// A list option (see whole_items) filling `target` with its items, as T (a number or a string), of all
// the times it is given. `item_check`, a check of one value (finite_positive, ...), is applied to each
// item; CLI11 names the option in its message.
template <class T>
CLI::Option* add_list_option(CLI::App& app, const std::string& name, std::vector<T>& target, const std::string& help,
                             const CLI::Validator& item_check = CLI::Validator()) {
  const CLI::Validator items(
      [item_check](std::string& v) {
        for (std::string item : list_items({v}))
          if (std::string why = item_check(item); !why.empty()) return why;
        return std::string();
      },
      "", "items");
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&target, name](const std::vector<std::string>& tokens) {
            target.clear();
            for (const std::string& item : list_items(tokens)) {
              T value{};
              if (!CLI::detail::lexical_cast(item, value)) throw CLI::ConversionError(name, {item});
              target.push_back(std::move(value));
            }
          },
          help)
      ->check(whole_items)
      ->check(items)
      ->take_all();
}

// An option written `--name=` with nothing after the '=': CLI11 takes the next argument as its value
// (`--type= -o out` said "unknown key type '-o'", `--scenario= --steps 1` "--steps not in {...}"), and
// no option of ours means anything by an empty value. Returns the message for the first such argument
// before a "--", or an empty string; the caller refuses the command line with it (exit 2) before parsing.
inline std::string empty_value_option(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.starts_with("--") && arg.size() > 3 && arg.find('=') == arg.size() - 1)
      return std::string(arg) + ": the option " + std::string(arg.substr(0, arg.size() - 1)) + " has an empty value";
  }
  return {};
}

// After CLI11's parse: an option given an empty value (`--gsd ""`, a script's unset variable), in `app`
// or the subcommand it ran. For an option without a check of its own that value named nothing: no file
// was written, the default device ran, and the command succeeded. Returns the message for the first,
// or an empty string; positional arguments keep their own checks (an empty file name says which).
inline std::string empty_value_given(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() == 0 || opt->get_type_size_min() == 0 || opt->get_positional()) continue;  // flags: no value
    for (const std::string& value : opt->results())
      if (value.empty()) return "the option " + opt->get_name() + " has an empty value";
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (std::string why = empty_value_given(*sub); !why.empty()) return why;
  return {};
}

}  // namespace vksort::cli_checks
