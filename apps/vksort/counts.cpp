// SPDX-License-Identifier: MIT
#include "counts.hpp"

#include <charconv>

namespace vksort::cli {

namespace {
constexpr uint64_t limit = uint64_t(1) << 63;

// Reads a decimal number at the front of `s` and removes it; nullopt if there is none or it overflows.
std::optional<uint64_t> take_number(std::string_view& s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(size_t(end - s.data()));
  return v;
}

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > limit / a) return std::nullopt;
  return a * b;
}
}  // namespace

std::optional<uint64_t> parse_count(std::string_view text) {
  std::string_view s = text;
  if (s.starts_with("2^")) {
    s.remove_prefix(2);
    const auto e = take_number(s);
    if (!e || *e > 63) return std::nullopt;
    uint64_t v = uint64_t(1) << *e;
    if (s.empty()) return v;
    const char sign = s.front();
    if (sign != '+' && sign != '-') return std::nullopt;
    s.remove_prefix(1);
    const auto c = take_number(s);
    if (!c || !s.empty()) return std::nullopt;
    if (sign == '-') return *c > v ? std::nullopt : std::optional<uint64_t>(v - *c);
    if (*c > limit - v) return std::nullopt;
    return v + *c;
  }
  const auto base = take_number(s);
  if (!base || *base > limit) return std::nullopt;
  if (s.empty()) return base;
  if (s.size() == 1) {
    switch (s.front()) {
      case 'k': case 'K': return checked_mul(*base, uint64_t(1) << 10);
      case 'm': case 'M': return checked_mul(*base, uint64_t(1) << 20);
      case 'g': case 'G': return checked_mul(*base, uint64_t(1) << 30);
      default: return std::nullopt;
    }
  }
  if (s.front() == 'e' || s.front() == 'E') {
    s.remove_prefix(1);
    const auto e = take_number(s);
    if (!e || !s.empty() || *e > 19) return std::nullopt;
    std::optional<uint64_t> v = base;
    for (uint64_t i = 0; i < *e && v; ++i) v = checked_mul(*v, 10);
    return v;
  }
  return std::nullopt;
}

}  // namespace vksort::cli
