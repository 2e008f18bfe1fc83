// SPDX-License-Identifier: MIT
// The runtime's one way to reach Vulkan: volk's declarations under private names.
//
// volk_private_names.h (generated from volk.h at configure time) renames every global volk defines
// (vkCmdDispatch -> vksort_vkCmdDispatch, volkInitialize -> vksort_volkInitialize, ...), so the copy of
// volk compiled into this library can never clash with, or overwrite, an application's own volk.
// Device-level calls go through a VolkDeviceTable per device (Context::vk), never through globals.
#pragma once

#include "volk_private_names.h"
#include <volk.h>

#include <string>

namespace vksort::gpu {

// Throws vksort::Error("<what>: <VkResult name>") unless result is VK_SUCCESS.
void check(VkResult result, const std::string& what);

}  // namespace vksort::gpu
