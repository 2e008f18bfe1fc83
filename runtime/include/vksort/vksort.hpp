// SPDX-License-Identifier: MIT
// vksort/vksort.hpp — everything a user of vksort needs.
//
//   vksort::Device gpu;                                      // best device, or VKSORT_DEVICE
//   std::vector<float> keys = ...;
//   vksort::sort(gpu, std::span(keys), {.key = vksort::Key::f32, .algorithm = vksort::Algorithm::brick});
#pragma once

#include "vksort/argsort.hpp"
#include "vksort/auto_profile.hpp"
#include "vksort/bandwidth.hpp"
#include "vksort/bucket_lists.hpp"
#include "vksort/buffer.hpp"
#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/segmented.hpp"
#include "vksort/sorter.hpp"
#include "vksort/types.hpp"

namespace vksort {
// The library's version, "MAJOR.MINOR.PATCH": that of the libvksort linked (with a shared library,
// possibly newer than the headers a program was compiled with). A static string.
VKSORT_API const char* version() noexcept;
}  // namespace vksort
