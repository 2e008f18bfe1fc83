// SPDX-License-Identifier: MIT
#include "sort/env_knobs.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "vksort/error.hpp"

namespace vksort::algo {

namespace {

// The variable's value; "" where unset.
std::string value_of(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

[[noreturn]] void refuse(const char* name, const std::string& value, const std::string& takes) {
  throw Error(std::string(name) + " is \"" + value + "\"; it takes " + takes);
}

// "a, b and c" (`last` "and") or "a, b or c".
template <class Items>
std::string spoken_list(const Items& items, const char* last) {
  std::string s;
  size_t i = 0;
  for (const auto& item : items) {
    if (i > 0) s += i + 1 == items.size() ? std::string(" ") + last + " " : ", ";
    std::ostringstream word;
    word << item;
    s += word.str();
    ++i;
  }
  return s;
}

}  // namespace

bool env_switch(const char* name) {
  const std::string v = value_of(name);
  if (v.empty() || v == "0") return false;
  if (v == "1") return true;
  refuse(name, v, "0 or 1");
}

std::optional<uint32_t> env_count(const char* name, uint32_t least, uint32_t most, const char* what) {
  const std::string v = value_of(name);
  if (v.empty()) return std::nullopt;
  const bool digits = v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
  const uint32_t n = digits ? uint32_t(std::stoul(v)) : 0;
  if (!digits || n < least || n > most) refuse(name, v, what);
  return n;
}

uint32_t env_choice(const char* name, std::initializer_list<uint32_t> choices) {
  const std::string v = value_of(name);
  if (v.empty()) return 0;
  for (uint32_t c : choices)
    if (v == std::to_string(c)) return c;
  refuse(name, v, spoken_list(choices, "or"));
}

std::vector<std::string> env_list(const char* name, std::initializer_list<const char*> allowed) {
  const std::string v = value_of(name);
  std::vector<std::string> items;
  if (v.empty()) return items;
  std::stringstream list(v);
  for (std::string item; std::getline(list, item, ',');) {
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return item == a; }))
      refuse(name, v, "a comma-separated list of " + spoken_list(allowed, "and"));
    items.push_back(item);
  }
  return items;
}

}  // namespace vksort::algo
