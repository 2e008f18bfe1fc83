// SPDX-License-Identifier: MIT
// format_bytes.hpp — a byte count as people read it in a message. The one formatter for the library's
// errors ("allocating 3 GiB for keys ...") and the apps' messages and reports, so a size reads alike
// wherever it is printed. Compiled into libvksort and each app through the vksort_io object library,
// never exported: no part of the public API.
#pragma once

#include <cstdint>
#include <string>

namespace vksort::io {

// In the largest binary unit the count reaches, to one decimal without a trailing ".0": "1 byte",
// "1000 bytes", "64 KiB", "1.5 MiB", "16 EiB" (never "0 MiB" for a small count).
std::string format_bytes(uint64_t bytes);

}  // namespace vksort::io
