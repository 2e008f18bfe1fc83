// SPDX-License-Identifier: MIT
// Which build of a workgroup-scanning kernel to use (shaders/common/workgroup_scan.glsl): the subgroup
// variant, suffixed "_sg", wherever the device offers subgroup arithmetic in compute; the shared-memory
// variant (Hillis and Steele) otherwise, and on devices that pretend to have no subgroups. The subgroup
// variant numbers invocations itself, so it is correct for any subgroup size and layout.
#pragma once

#include <string>

#include "vksort/device_types.hpp"

namespace vksort::algo {

inline bool subgroup_scans(const DeviceInfo& info) { return info.subgroup_arithmetic && info.subgroup_size > 0; }

inline std::string scan_variant(const DeviceInfo& info) { return subgroup_scans(info) ? "_sg" : ""; }

}  // namespace vksort::algo
