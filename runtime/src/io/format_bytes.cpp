// SPDX-License-Identifier: MIT
#include "io/format_bytes.hpp"

#include <cstdio>
#include <iterator>

namespace vksort::io {

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes) / 1024;
  size_t unit = 0;
  // 1023.95 and above would print as "1024.0": the next unit reads better ("1 MiB").
  while (v >= 1023.95 && unit + 1 < std::size(units)) v /= 1024, ++unit;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string text = buf;
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text + " " + units[unit];
}

}  // namespace vksort::io
