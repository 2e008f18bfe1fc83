// SPDX-License-Identifier: MIT
// vksort::AutoProfile: the choice of Algorithm::automatic, its file format and where it is cached.
#include "vksort/auto_profile.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vksort/error.hpp"
#include "io/atomic_file.hpp"

namespace vksort {

namespace {

constexpr const char* kinds[2][2] = {{"32 keys", "32 values"}, {"64 keys", "64 values"}};

std::string hex_uuid(const DeviceInfo& d) {
  std::string s;
  char buf[3];
  for (uint8_t b : d.uuid) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Algorithm AutoProfile::choose(Key key, bool values, uint64_t n, uint32_t brick_tile) const {
  const AutoCrossovers& c = of(key, values);
  const uint64_t brick_up_to = c.brick_up_to == AutoCrossovers::one_tile ? brick_tile : c.brick_up_to;
  // brick_up_to 0 is "never" (a Sorter then builds no brick sort), also for n = 0: "0 <= 0" chose
  // brick sort, and every sort or scratch_bytes of no keys threw "automatic chose brick sort without
  // constructing it" on a device `vksort tune` found brick sort never fastest on.
  if (brick_up_to != 0 && n <= brick_up_to) return Algorithm::brick;
  if (c.sample_from && n >= c.sample_from) return Algorithm::sample;
  return Algorithm::radix;
}

std::string AutoProfile::to_text(const DeviceInfo& d) const {
  std::ostringstream out;
  out << "# How vksort's Algorithm::automatic chooses on \"" << d.name << "\" (" << d.driver_info
      << "), written by `vksort tune`.\n"
      << "# Per kind of sort: brick sort up to brick_up_to keys, sample sort from sample_from keys (0: never),\n"
      << "# radix sort between, with digits of radix_bits where given and the single pass's tiles of\n"
      << "# single_pass_shape (workgroup x keys per invocation) where given. Delete this file to go back to\n"
      << "# the built-in defaults.\n"
      << "vksort-auto-profile 1\n";
  for (int wide = 0; wide < 2; ++wide)
    for (int values = 0; values < 2; ++values) {
      const AutoCrossovers& c = crossovers[wide][values];
      out << kinds[wide][values] << " brick_up_to ";
      if (c.brick_up_to == AutoCrossovers::one_tile) out << "one_tile";
      else out << c.brick_up_to;
      out << " sample_from " << c.sample_from;
      if (c.radix_bits) out << " radix_bits " << c.radix_bits;
      if (c.single_pass_workgroup) out << " single_pass_shape " << c.single_pass_workgroup << "x" << c.single_pass_items;
      out << "\n";
    }
  return out.str();
}

void AutoProfile::check() const {
  for (int wide = 0; wide < 2; ++wide)
    for (int values = 0; values < 2; ++values) {
      const AutoCrossovers& c = crossovers[wide][values];
      const std::string where = "auto profile, '" + std::string(kinds[wide][values]) + "': ";
      if (c.radix_bits != 0 && c.radix_bits != 2 && c.radix_bits != 4 && c.radix_bits != 8)
        throw Error(where + "radix_bits is " + std::to_string(c.radix_bits) + "; it must be 2, 4 or 8 (0: the built-in choice)");
      const bool none = c.single_pass_workgroup == 0 && c.single_pass_items == 0;
      const bool whole = c.single_pass_workgroup >= 1 && c.single_pass_workgroup <= 65536 && c.single_pass_items >= 1 &&
                         c.single_pass_items <= 65536;
      if (!none && !whole)
        throw Error(where + "single_pass_shape is " + std::to_string(c.single_pass_workgroup) + "x" +
                    std::to_string(c.single_pass_items) + "; each part must be 1 to 65536 (0x0: the built-in choice)");
    }
}

AutoProfile AutoProfile::parse(std::string_view text, const std::string& source) {
  AutoProfile p;
  p.source = source;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  bool header = false;
  bool seen[2][2] = {};
  auto fail = [&](const std::string& why) {
    throw Error(source + ", line " + std::to_string(line_no) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++line_no;
    // Blank lines and comments, also indented (an indented '#' or a line of spaces failed the file).
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream words(line);
    if (!header) {
      // Exactly "vksort-auto-profile 1": "1.5", "1x" and "1 junk" were read as version 1.
      std::string magic, version, rest;
      if (!(words >> magic >> version) || magic != "vksort-auto-profile") fail("not a vksort auto profile");
      if (version != "1") fail("profile version " + version + " is not supported (this vksort reads 1)");
      if (words >> rest) fail("unexpected '" + rest + "' after the version");
      header = true;
      continue;
    }
    std::string bits, what, brick_word, brick_value, sample_word, sample_value;
    if (!(words >> bits >> what >> brick_word >> brick_value >> sample_word >> sample_value) ||
        (bits != "32" && bits != "64") || (what != "keys" && what != "values") || brick_word != "brick_up_to" ||
        sample_word != "sample_from")
      fail("expected '<32|64> <keys|values> brick_up_to <N|one_tile> sample_from <N> [radix_bits <2|4|8>] "
           "[single_pass_shape <W>x<I>]', got '" + line + "'");
    // Whole numbers only: a minus sign read into uint64_t wraps ("-1" was 2^64 - 1).
    auto count = [&](const std::string& word, const char* setting) {
      char* end = nullptr;
      errno = 0;
      const uint64_t v = std::strtoull(word.c_str(), &end, 10);
      if (word.empty() || *end || !std::isdigit(static_cast<unsigned char>(word[0])))
        fail(std::string(setting) + " '" + word + "' is not a count");
      if (errno == ERANGE) fail(std::string(setting) + " '" + word + "' is more than 2^64 - 1");
      return v;
    };
    AutoCrossovers c;
    c.sample_from = count(sample_value, "sample_from");
    // Then optional settings, each a name and a value, each at most once.
    std::string name, last = "sample_from";
    while (words >> name) {
      std::string value;
      if (name == "radix_bits" && !c.radix_bits) {
        if (!(words >> value) || (value != "2" && value != "4" && value != "8")) fail("radix_bits must be 2, 4 or 8");
        c.radix_bits = uint32_t(std::stoul(value));
      } else if (name == "single_pass_shape" && !c.single_pass_workgroup) {
        // <W>x<I>: whole numbers from 1 to 65536 each.
        auto number = [&](const std::string& t) -> uint32_t {
          if (t.empty() || t.size() > 5 || t.find_first_not_of("0123456789") != std::string::npos) return 0;
          const unsigned long v = std::stoul(t);
          return v >= 1 && v <= 65536 ? uint32_t(v) : 0;
        };
        const size_t x = (words >> value) ? value.find('x') : std::string::npos;
        if (x != std::string::npos) {
          c.single_pass_workgroup = number(value.substr(0, x));
          c.single_pass_items = number(value.substr(x + 1));
        }
        if (!c.single_pass_workgroup || !c.single_pass_items)
          fail("single_pass_shape must be <workgroup>x<keys per invocation>, each 1 to 65536, e.g. 384x16");
      } else {
        fail("unexpected '" + name + "' after the " + last + " value");
      }
      last = name;
    }
    c.brick_up_to = brick_value == "one_tile" ? AutoCrossovers::one_tile : count(brick_value, "brick_up_to");
    const int wide = bits == "64", values = what == "values";
    if (seen[wide][values]) fail("'" + bits + " " + what + "' is given twice");
    seen[wide][values] = true;
    p.crossovers[wide][values] = c;
  }
  if (!header) throw Error(source + ": empty, not a vksort auto profile");
  for (int wide = 0; wide < 2; ++wide)
    for (int values = 0; values < 2; ++values)
      if (!seen[wide][values]) throw Error(source + ": no line for '" + kinds[wide][values] + "'");
  return p;
}

std::string auto_profile_path(const DeviceInfo& d) {
  std::string dir = env("VKSORT_CACHE_DIR");
  if (dir.empty() && !env("XDG_CACHE_HOME").empty()) dir = env("XDG_CACHE_HOME") + "/vksort";
  if (dir.empty() && !env("HOME").empty()) dir = env("HOME") + "/.cache/vksort";
  if (dir.empty()) return "";
  return dir + "/auto-profile-" + hex_uuid(d) + "-driver" + std::to_string(d.driver_version) + ".txt";
}

void save_auto_profile(const AutoProfile& profile, const DeviceInfo& device, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw Error("saving the auto profile: no path (set VKSORT_CACHE_DIR or HOME)");
  // What no profile file can hold is refused here: saved, it failed to parse at the next load and the
  // defaults were used without a word (radix_bits 3), or was left out of the text (a 0x16 shape).
  profile.check();
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw Error("saving the auto profile: cannot create " + target.parent_path().string() + ": " + ec.message());
  // Atomically: a reader (another process choosing an algorithm) sees the old profile or the new one.
  try {
    io::write_file(target, "auto profile", profile.to_text(device));
  } catch (const io::FileError& e) {
    // A path that cannot be a file is the caller's; a write that failed (a full disk) is not.
    throw Error(e.kind() == io::FileError::Kind::io ? Status::Code::io_error : Status::Code::invalid_argument,
                std::string("saving the auto profile: ") + e.what());
  }
}

AutoProfile load_auto_profile(const DeviceInfo& device) {
  const std::string path = auto_profile_path(device);
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in) return {};  // never tuned: the defaults
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return AutoProfile::parse(text.str(), path);
  } catch (const Error& e) {
    AutoProfile defaults;
    defaults.source = std::string("built-in defaults (ignored ") + e.what() + ")";
    return defaults;
  }
}

}  // namespace vksort
