// SPDX-License-Identifier: MIT
#include "npy_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "cli_error.hpp"
#include "raw_file.hpp"

namespace vksort::cli {

namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr size_t magic_size = 6;

// One named problem of one file: every refusal reads "<role> '<file>': <why>".
[[noreturn]] void refuse(const std::string& role, const std::filesystem::path& path, const std::string& why) {
  throw UsageError(role + " " + in_quotes(path.string()) + ": " + why);
}

// The value of `key` in the header's Python dict literal, as written (a quoted string with its quotes,
// a tuple, a list, or a bare word such as False). Empty if absent or if the dict cannot be read. Only
// the dict's own keys count: a structured dtype's field may be named "shape" or "descr" too. Quoted
// strings may hold the other quote and backslash escapes (Python's repr of a name with both quotes).
std::string dict_value(const std::string& header, const std::string& key) {
  size_t at = 0;
  const auto skip_space = [&] {
    while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at]))) ++at;
  };
  // Past the quoted string starting at `at` (false if it does not end).
  const auto skip_string = [&] {
    const char quote = header[at++];
    for (; at < header.size() && header[at] != quote; ++at)
      if (header[at] == '\\') ++at;
    if (at >= header.size()) return false;
    ++at;
    return true;
  };
  skip_space();
  if (at >= header.size() || header[at++] != '{') return {};
  // The whole dict is read: a key given twice makes it unreadable too (Python keeps the last, and this
  // took the first: "'descr': '<u4', 'descr': '<i4'" sorted as u32 what NumPy reads as i32).
  std::optional<std::string> found;
  for (;;) {
    skip_space();
    if (at >= header.size()) return {};
    if (header[at] == '}') return found.value_or(std::string());
    if (header[at] != '\'' && header[at] != '"') return {};
    const size_t key_at = at;
    if (!skip_string()) return {};
    const std::string name = header.substr(key_at + 1, at - key_at - 2);
    skip_space();
    if (at >= header.size() || header[at++] != ':') return {};
    skip_space();
    // The value: up to the ',' or '}' that ends it at this level.
    const size_t value_at = at;
    int depth = 0;
    while (at < header.size()) {
      const char ch = header[at];
      if (ch == '\'' || ch == '"') {
        if (!skip_string()) return {};
        continue;
      }
      if (ch == '(' || ch == '[' || ch == '{') {
        ++depth;
      } else if (ch == ')' || ch == ']' || ch == '}') {
        if (depth == 0) break;  // the dict's own '}'
        --depth;
      } else if (ch == ',' && depth == 0) {
        break;
      }
      ++at;
    }
    if (at >= header.size()) return {};
    size_t value_end = at;
    while (value_end > value_at && std::isspace(static_cast<unsigned char>(header[value_end - 1]))) --value_end;
    if (name == key) {
      if (found) return {};
      found = header.substr(value_at, value_end - value_at);
    }
    if (header[at] == ',') ++at;
  }
}

std::optional<Key> key_of_descr(const std::string& d) {
  // '<' little-endian; '=' native, which is little-endian on every machine vksort runs on (x86, ARM).
  if (d.size() != 3 || (d[0] != '<' && d[0] != '=')) return std::nullopt;
  const std::string t = d.substr(1);
  if (t == "u4") return Key::u32;
  if (t == "i4") return Key::i32;
  if (t == "f4") return Key::f32;
  if (t == "u8") return Key::u64;
  if (t == "i8") return Key::i64;
  if (t == "f8") return Key::f64;
  return std::nullopt;
}

}  // namespace

std::string npy_descr(Key key) {
  // "<" + kind letter + bytes: u32 -> "<u4", f64 -> "<f8" (built by appending: GCC 12 raises a false
  // -Wrestrict on the + chain).
  std::string d = "<";
  d += to_string(key).front();
  d += std::to_string(key_bytes(key));
  return d;
}

namespace {

// The bytes of one record of a structured dtype, from the field list NumPy writes as descr (the
// Python literal of dtype.descr): [(name, type[, shape]), ...], a name possibly a (title, name) pair,
// a type a type string ("<u4", "|S4", "<U3", "|V4" for padding, "<M8[s]") or a nested field list, a
// shape a tuple of counts. The record size is the sum (numpy spells padding as fields named ''), and it
// is what the data must hold: dividing the data by the shape would take trailing bytes for records.
// std::nullopt for text it cannot read, and for object fields (pickled, not raw records).
class FieldListSize {
 public:
  explicit FieldListSize(const std::string& text) : s_(text) {}
  std::optional<uint64_t> bytes() {
    const std::optional<uint64_t> b = list();
    skip_space();
    return b && at_ == s_.size() ? b : std::nullopt;
  }

 private:
  void skip_space() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
    return false;
  }
  bool peek(char c) {
    skip_space();
    return at_ < s_.size() && s_[at_] == c;
  }
  std::optional<std::string> string() {
    skip_space();
    if (at_ >= s_.size() || (s_[at_] != '\'' && s_[at_] != '"')) return std::nullopt;
    const char quote = s_[at_++];
    std::string out;
    for (; at_ < s_.size() && s_[at_] != quote; ++at_) {
      if (s_[at_] == '\\' && at_ + 1 < s_.size()) ++at_;
      out += s_[at_];
    }
    if (at_ >= s_.size()) return std::nullopt;
    ++at_;
    return out;
  }
  std::optional<uint64_t> count() {
    skip_space();
    uint64_t v = 0;
    const size_t from = at_;
    while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_])) && at_ - from < 12) v = v * 10 + uint64_t(s_[at_++] - '0');
    return at_ > from ? std::optional<uint64_t>(v) : std::nullopt;
  }
  // "<u4" -> 4, "<U3" -> 12 (UCS-4), "<M8[s]" -> 8; nullopt for objects and what is not a type string.
  static std::optional<uint64_t> type_bytes(const std::string& t) {
    size_t i = !t.empty() && (t[0] == '<' || t[0] == '>' || t[0] == '|' || t[0] == '=') ? 1 : 0;
    if (i >= t.size() || std::string("biufcSaUVMm").find(t[i]) == std::string::npos) return std::nullopt;
    const char kind = t[i++];
    uint64_t n = 0;
    const size_t digits = i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && i - digits < 12) n = n * 10 + uint64_t(t[i++] - '0');
    if (i == digits || (i < t.size() && !((kind == 'M' || kind == 'm') && t[i] == '[' && t.back() == ']'))) return std::nullopt;
    return kind == 'U' ? 4 * n : n;
  }
  std::optional<uint64_t> field() {
    if (!take('(')) return std::nullopt;
    if (take('(')) {  // (title, name)
      if (!string() || !take(',') || !string() || !take(')')) return std::nullopt;
    } else if (!string()) {
      return std::nullopt;
    }
    if (!take(',')) return std::nullopt;
    std::optional<uint64_t> size;
    if (peek('[')) {
      size = list();
    } else if (const std::optional<std::string> t = string()) {
      size = type_bytes(*t);
    }
    if (!size) return std::nullopt;
    if (take(',') && take('(')) {  // a subarray's shape
      while (!take(')')) {
        const std::optional<uint64_t> c = count();
        if (!c || (!take(',') && !peek(')'))) return std::nullopt;
        size = *size * *c;
        if (*size > (uint64_t(1) << 40)) return std::nullopt;
      }
      take(',');
    }
    return take(')') ? size : std::nullopt;
  }
  std::optional<uint64_t> list() {
    if (!take('[')) return std::nullopt;
    uint64_t sum = 0;
    while (!take(']')) {
      const std::optional<uint64_t> f = field();
      if (!f || (!take(',') && !peek(']'))) return std::nullopt;
      sum += *f;
      if (sum > (uint64_t(1) << 40)) return std::nullopt;
    }
    return sum;
  }

  const std::string& s_;
  size_t at_ = 0;
};

// The header at the start of a .npy file: `start` holds the file's first bytes (at least its header,
// else it is refused as truncated), file_size is the whole file's (none for a pipe, whose size is known
// only once read). Checks that the data after the header are exactly the shape's where the size is
// known; returns everything but the data.
NpyArray parse_npy(std::span<const std::byte> start, std::optional<uint64_t> file_size, const std::filesystem::path& path,
                   const std::string& role) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(start.data());
  if (start.size() < magic_size || std::memcmp(bytes, magic, magic_size) != 0)
    refuse(role, path, "not a NumPy .npy file (no \\x93NUMPY magic)");
  if (start.size() < 10) refuse(role, path, "truncated .npy header");
  const unsigned major = bytes[6];
  size_t header_at = 0, header_len = 0;
  if (major == 1) {
    header_at = 10;
    header_len = size_t(bytes[8]) | size_t(bytes[9]) << 8;
  } else if (major == 2 || major == 3) {
    if (start.size() < 12) refuse(role, path, "truncated .npy header");
    header_at = 12;
    header_len = size_t(bytes[8]) | size_t(bytes[9]) << 8 | size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
  } else {
    refuse(role, path, ".npy format version " + std::to_string(major) + " is not supported (1, 2 and 3 are)");
  }
  if (header_len > start.size() - header_at) refuse(role, path, "truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(bytes) + header_at, header_len);

  const std::string descr_text = dict_value(header, "descr");
  const std::string fortran = dict_value(header, "fortran_order");
  const std::string shape = dict_value(header, "shape");
  if (descr_text.size() < 2 || fortran.empty() || shape.empty())
    refuse(role, path, "bad .npy header (descr, fortran_order and shape are needed): " + header);
  if (fortran != "False") refuse(role, path, "fortran_order " + fortran + " arrays are not supported (only C order)");

  // A 1-D shape is "(n,)"; "()" is a scalar and "(a, b)" has two dimensions. Spaces may surround the
  // length but not split it: all spaces were dropped, and "(1 0,)", which NumPy refuses to read, was 10.
  const auto trim = [](std::string text) {
    const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
    text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
    text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
    return text;
  };
  std::string dims = trim(shape.substr(1, shape.size() - 2));
  if (!dims.empty() && dims.back() == ',') dims = trim(dims.substr(0, dims.size() - 1));
  if (dims.empty() || dims.find(',') != std::string::npos)
    refuse(role, path, "shape " + shape + " is not 1-D; vksort sorts one-dimensional arrays");
  if (!std::all_of(dims.begin(), dims.end(), [](unsigned char c) { return std::isdigit(c); }))
    refuse(role, path, "bad .npy header: shape " + shape + " does not give a length ('" + dims + "' is no whole number)");
  // Past 18 digits (leading zeros aside) a length may not fit 64 bits, and no file holds its data.
  const size_t significant = dims.find_first_not_of('0');
  if (significant != std::string::npos && dims.size() - significant > 18) refuse(role, path, "shape " + shape + " is too large");
  const uint64_t n = significant == std::string::npos ? 0 : std::stoull(dims.substr(significant));
  const uint64_t data_at = header_at + header_len;

  NpyArray a;
  a.n = n;
  a.data_at = data_at;
  a.utf8_header = major == 3;
  if (descr_text.front() == '[') {
    // A structured dtype (named fields): records of the size its field list says, moved whole; the
    // field list is kept as written so that a values output gets the same dtype back.
    a.descr = descr_text;
    a.structured = true;
    const std::optional<uint64_t> record = FieldListSize(descr_text).bytes();
    if (!record || *record == 0)
      refuse(role, path, "structured dtype " + descr_text + ": its record size cannot be worked out (object fields, "
                         "or a field list vksort does not read)");
    a.item_bytes = uint32_t(std::min<uint64_t>(*record, 1u << 20));
  } else {
    a.descr = descr_text.substr(1, descr_text.size() - 2);
    a.key = key_of_descr(a.descr);
    if (a.key) {
      a.item_bytes = key_bytes(*a.key);
    } else if (a.descr.size() > 2 && a.descr.starts_with("|V") &&
               std::all_of(a.descr.begin() + 2, a.descr.end(), [](unsigned char c) { return std::isdigit(c); })) {
      // Digits past 7 are no record vksort moves (stoul threw out_of_range past 2^64, and the message
      // was "stoul").
      const std::string size = a.descr.substr(2);
      const size_t first = size.find_first_not_of('0');
      if (first != std::string::npos && size.size() - first > 7)
        refuse(role, path, "dtype '" + a.descr + "': records that large are not supported (vksort moves records of 4 to 256 bytes)");
      a.item_bytes = first == std::string::npos ? 0u : uint32_t(std::stoul(size.substr(first)));
    } else if (a.descr.size() == 3 && a.descr[0] == '>') {
      refuse(role, path, "dtype '" + a.descr + "' is big-endian; vksort reads little-endian (numpy: a.astype(a.dtype.newbyteorder('<')))");
    } else {
      refuse(role, path, "dtype '" + a.descr + "' is not supported (u4 i4 f4 u8 i8 f8, little-endian; records as |V<N> or a structured dtype)");
    }
  }

  const uint64_t want = n * a.item_bytes;
  if (n != 0 && want / n != a.item_bytes) refuse(role, path, "shape " + shape + " is too large");
  if (file_size) check_npy_data(a, *file_size - data_at, path, role);
  return a;
}

}  // namespace

void check_npy_data(const NpyArray& a, uint64_t data_bytes, const std::filesystem::path& path, const std::string& role) {
  const uint64_t want = a.n * a.item_bytes;
  if (data_bytes != want)
    refuse(role, path, "holds " + std::to_string(data_bytes) + " data bytes but shape (" + std::to_string(a.n) + ",) of '" +
                           a.descr + "' needs " + std::to_string(want));
}

NpyArray read_npy(const std::filesystem::path& path, const std::string& role) {
  std::vector<std::byte> file = read_whole_file(path, role);
  NpyArray a = parse_npy(file, file.size(), path, role);
  a.data.assign(file.begin() + std::ptrdiff_t(a.data_at), file.end());
  return a;
}

namespace {

// Where the header of a .npy file whose first bytes are `start` (12 at most) ends, as its preamble says;
// start.size() where the preamble is too short or of a version parse_npy refuses.
uint64_t header_end_of(std::span<const std::byte> start) {
  const auto* b = reinterpret_cast<const unsigned char*>(start.data());
  if (start.size() >= 10 && b[6] == 1) return 10 + (uint64_t(b[8]) | uint64_t(b[9]) << 8);
  if (start.size() >= 12 && (b[6] == 2 || b[6] == 3))
    return 12 + (uint64_t(b[8]) | uint64_t(b[9]) << 8 | uint64_t(b[10]) << 16 | uint64_t(b[11]) << 24);
  return start.size();
}

}  // namespace

NpyArray read_npy_header(const std::filesystem::path& path, const std::string& role) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return read_npy(path, role);  // a pipe is read once, whole
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) throw UsageError("cannot open " + role + " " + in_quotes(path.string()));
  // The preamble (12 bytes at most) says the header's length; then the header alone is read.
  std::vector<std::byte> start(size_t(std::min<uint64_t>(file_size, 12)));
  in.read(reinterpret_cast<char*>(start.data()), std::streamsize(start.size()));
  const uint64_t header_end = std::min(header_end_of(start), file_size);
  if (header_end > start.size()) {
    const size_t had = start.size();
    start.resize(size_t(header_end));
    in.read(reinterpret_cast<char*>(start.data() + had), std::streamsize(header_end - had));
  }
  if (!in) throw RuntimeFailure("reading " + role + " " + in_quotes(path.string()) + ": its header could not be read");
  return parse_npy(start, file_size, path, role);
}

namespace {
// No header NumPy writes comes near this (its reader refuses past 10000 bytes unless told otherwise);
// a corrupt length must not allocate gigabytes.
constexpr uint64_t most_header = uint64_t(1) << 26;
}  // namespace

uint64_t npy_header_bytes(std::span<const std::byte> start) {
  // The preamble first. (A 1.0 preamble is 10 bytes, so 12 take two of a header, which holds at least
  // its dict's braces.)
  if (start.size() < 12) return 12;
  const uint64_t header_end = header_end_of(start);
  return header_end > most_header ? start.size() : header_end;  // (too large: refused when parsed)
}

NpyArray read_npy_pipe_header(const std::function<size_t(std::byte*, size_t)>& read, const std::filesystem::path& path,
                              const std::string& role) {
  // The preamble, then the header alone: the data stay in the pipe. Fewer bytes where the pipe ends
  // first (parse_npy refuses a truncated header).
  std::vector<std::byte> start;
  for (uint64_t want; (want = npy_header_bytes(start)) > start.size();) {
    const size_t had = start.size();
    start.resize(size_t(want));
    const size_t r = read(start.data() + had, size_t(want) - had);
    start.resize(had + r);
    if (r == 0) break;
  }
  if (const uint64_t header_end = header_end_of(start); header_end > most_header)
    refuse(role, path, "a .npy header of " + std::to_string(header_end) + " bytes is too large (" + std::to_string(most_header) + " at most)");
  return parse_npy(start, std::nullopt, path, role);
}

std::vector<std::byte> npy_header(const std::string& descr, uint64_t n, bool utf8) {
  // A structured dtype's field list goes in as it is, a plain dtype quoted.
  const std::string quoted = descr.starts_with('[') ? descr : "'" + descr + "'";
  std::string header = "{'descr': " + quoted + ", 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  // NumPy pads the header with spaces and ends it with '\n' so that the data starts 64-byte aligned.
  // Format 1.0 holds latin-1 headers below 64 KiB (2 length bytes); a longer field list needs 2.0 (4
  // bytes, latin-1 too); a field list read from a 3.0 file is UTF-8 and goes back as 3.0.
  const bool utf8_needed = utf8 && std::any_of(header.begin(), header.end(), [](unsigned char c) { return c >= 0x80; });
  const uint8_t version = utf8_needed ? 3 : 10 + header.size() + 1 + 63 > 0xFFFF ? 2 : 1;
  const size_t preamble = version == 1 ? 10 : 12;
  const size_t unpadded = preamble + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::vector<std::byte> out(preamble + header.size());
  std::memcpy(out.data(), magic, magic_size);
  out[6] = std::byte{version};
  out[7] = std::byte{0};
  for (size_t i = 0; i < preamble - 8; ++i) out[8 + i] = std::byte((header.size() >> (8 * i)) & 0xFF);
  std::memcpy(out.data() + preamble, header.data(), header.size());
  return out;
}

}  // namespace vksort::cli
