// SPDX-License-Identifier: MIT
// .npy files as NumPy writes them, built here byte by byte (not by vksort's writer), so that tests can
// hand vksort NumPy's files and compare what vksort writes with NumPy's layout.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace vksort::test {

// A .npy file of format `major`.0 with the header dict `header_dict`, padded with spaces and a newline
// so that the data start 64-byte aligned, then `data`.
inline std::vector<std::byte> npy_file(const std::string& header_dict, std::span<const std::byte> data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = header_dict;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string file = std::string("\x93NUMPY") + char(major) + '\0';
  for (size_t i = 0; i < prefix - 8; ++i) file.push_back(char((header.size() >> (8 * i)) & 0xFF));
  file += header;
  std::vector<std::byte> out(file.size() + data.size());
  std::memcpy(out.data(), file.data(), file.size());
  if (!data.empty()) std::memcpy(out.data() + file.size(), data.data(), data.size());
  return out;
}

// The header dict NumPy writes for a 1-D C-order array of n elements of a plain dtype ("<f4", "|V8").
inline std::string npy_dict(const std::string& descr, size_t n) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
}

}  // namespace vksort::test
