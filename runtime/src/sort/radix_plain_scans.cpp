// SPDX-License-Identifier: MIT
#include "sort/radix_plain_scans.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "sort/env_knobs.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

PlainScans radix_plain_scans(const DeviceInfo& device, Key key) {
  const char* name = "VKSORT_RADIX_PLAIN_SCANS";
  const std::vector<std::string> listed = env_list(name, {"count", "spine", "scatter", "none"});
  PlainScans plain;
  if (listed.empty()) {
    // The workaround (radix_plain_scans.hpp). Where the device has no subgroup arithmetic every
    // kernel is plain anyway, and nothing is worked around.
    plain.workaround = device.vendor_id == vendor_nvidia && device.subgroup_arithmetic && key_bytes(key) == 8;
    plain.scatter = plain.workaround;
    return plain;
  }
  const auto has = [&](const char* kernel) { return std::find(listed.begin(), listed.end(), kernel) != listed.end(); };
  if (has("none") && listed.size() > std::size_t(std::count(listed.begin(), listed.end(), "none")))
    throw Error(std::string(name) + " is \"" + std::getenv(name) + "\"; \"none\" stands alone (no kernel without subgroups)");
  plain.count = has("count");
  plain.spine = has("spine");
  plain.scatter = has("scatter");
  return plain;
}

}  // namespace vksort::algo
