// SPDX-License-Identifier: MIT
// Choosing a physical device and checking it can run vksort: pure functions of the facts read from
// the device, so they are testable without one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vksort/device_types.hpp"

namespace vksort::gpu {

// What vksort requires of a device, as read from it.
struct DeviceFacts {
  std::string name;
  uint32_t api_version = 0;
  bool buffer_device_address = false;
  bool has_compute_queue = false;
  bool subgroup_properties = false;  // VkPhysicalDeviceSubgroupProperties could be queried
  uint32_t max_push_constants = 0;
};

// Empty if the device is usable, else one line naming the missing feature and the device.
std::string missing_requirement(const DeviceFacts& facts);

// Rank of a device type for automatic choice: discrete > integrated > virtual > cpu > other.
int device_type_rank(const std::string& type);

// Index of the device `select` names among `names` (an index or a case-insensitive name substring),
// or of the best usable device by type when `select` is empty. Throws vksort::Error naming the
// selection and the available devices when nothing matches or the match is unusable.
uint32_t choose_device(const std::string& select, const std::vector<DeviceListing>& devices);

}  // namespace vksort::gpu
