// SPDX-License-Identifier: MIT
// What an algorithm is handed to record one sort: resolved device addresses and the scratch buffer.
#pragma once

#include <cstdint>

#include "gpu/vulkan.hpp"

namespace vksort::algo {

struct SortTarget {
  VkDeviceAddress keys = 0;
  VkDeviceAddress values = 0;   // 0 when the sort carries no values
  VkBuffer scratch = VK_NULL_HANDLE;
  VkDeviceSize scratch_offset = 0;
  VkDeviceAddress scratch_address = 0;  // address of scratch at scratch_offset
  uint32_t n = 0;                // keys, or with `count` the most keys (buffers are sized for n)
  VkDeviceAddress count = 0;     // a uint32_t the GPU reads when the sort runs: sort min(*count, n) keys
  // The buffers behind `keys` and `values` (address = buffer's address + offset), where the caller
  // knows them: kernels that bind storage buffers (Kernel's buffer_bindings) need them, and take the
  // address path where either is missing.
  VkBuffer keys_buffer = VK_NULL_HANDLE;
  VkDeviceSize keys_offset = 0;
  VkBuffer values_buffer = VK_NULL_HANDLE;
  VkDeviceSize values_offset = 0;
};

}  // namespace vksort::algo
