// SPDX-License-Identifier: MIT
// Sets (or unsets) an environment variable for a scope, restoring what it was on leaving: tests of the
// runtime's environment knobs leave the process as they found it, also when a check throws.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace vksort::test {

class ScopedEnv {
 public:
  // Sets `name` to `value`; std::nullopt unsets it.
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

  // Changes the value within the scope (the old one is still restored on leaving).
  void set(const std::optional<std::string>& value) const {
    if (value) setenv(name_, value->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace vksort::test
