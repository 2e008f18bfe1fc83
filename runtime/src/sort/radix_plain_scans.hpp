// SPDX-License-Identifier: MIT
// Which of reduce-then-scan's kernels are built with the shared-memory workgroup scan although the
// device has subgroup arithmetic: the count and scatter of the four-way splits, and the spine.
//
// A driver workaround. On NVIDIA (an H100 and an H200, sessions 19-33) reduce-then-scan sorted 64-bit
// keys with 32-bit values wrongly with those kernels' subgroup variants (test_radix: 41-75 of 100
// positions wrong at 128 x 8 blocks, a key lost and a zero key in its place). An H200 bisected it in
// session 33 (bench/results/nvidia-h200_2026-11-29-session33): with the scatter alone built without
// subgroups the whole u64 matrix passed; with the count alone, or the spine alone, it failed as with
// none. Why the scatter's subgroup variant goes wrong there is not known (docs/algorithms.md). So NVIDIA
// devices build the scatter without subgroups for 64-bit keys: a slower scan in one kernel on a path
// GPUs take only when asked or beyond the single pass's 2^30 - 1 keys, instead of wrong results there.
// 32-bit keys (which passed everywhere) keep the subgroup scans, and the count and spine keep theirs.
//
// The diagnostic VKSORT_RADIX_PLAIN_SCANS overrides the rule for GPU runs: a comma-separated list of
// `count`, `spine`, `scatter` builds exactly those without subgroups (any device, any key), and `none`
// builds none so (so a run can show whether a driver still needs the workaround).
#pragma once

#include "vksort/device_types.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

struct PlainScans {
  bool count = false, spine = false, scatter = false;
  bool workaround = false;  // chosen by the NVIDIA rule above, not by VKSORT_RADIX_PLAIN_SCANS
};

// PCI vendor id of NVIDIA (VkPhysicalDeviceProperties::vendorID).
constexpr uint32_t vendor_nvidia = 0x10DE;

// For sorting `key` on `device`. Throws vksort::Error for a VKSORT_RADIX_PLAIN_SCANS it does not take.
PlainScans radix_plain_scans(const DeviceInfo& device, Key key);

}  // namespace vksort::algo
