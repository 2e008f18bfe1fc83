// SPDX-License-Identifier: MIT
#include "gpu/device_select.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "vksort/error.hpp"

namespace vksort::gpu {

std::string missing_requirement(const DeviceFacts& f) {
  const std::string on = " (device \"" + f.name + "\")";
  if (f.api_version < VK_API_VERSION_1_2)
    return "Vulkan 1.2 is required but the device offers " + std::to_string(VK_API_VERSION_MAJOR(f.api_version)) +
           "." + std::to_string(VK_API_VERSION_MINOR(f.api_version)) + on;
  if (!f.buffer_device_address) return "the bufferDeviceAddress feature is required but missing" + on;
  if (!f.has_compute_queue) return "a queue family with compute support is required but missing" + on;
  if (!f.subgroup_properties) return "VkPhysicalDeviceSubgroupProperties is required but missing" + on;
  if (f.max_push_constants < 128)
    return "128 bytes of push constants are required but the device offers " + std::to_string(f.max_push_constants) + on;
  return {};
}

int device_type_rank(const std::string& type) {
  if (type == "discrete") return 4;
  if (type == "integrated") return 3;
  if (type == "virtual") return 2;
  if (type == "cpu") return 1;
  return 0;
}

static std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

static std::string list_names(const std::vector<DeviceListing>& devices) {
  std::string names;
  for (const auto& d : devices) names += (names.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.info.name;
  return names.empty() ? "none" : names;
}

uint32_t choose_device(const std::string& select, const std::vector<DeviceListing>& devices) {
  if (devices.empty()) throw Error(Status::Code::unsupported, "no Vulkan device found (is a Vulkan driver such as mesa-vulkan-drivers installed?)");
  if (select.empty()) {
    int best = -1;
    for (const auto& d : devices)
      if (d.usable && (best < 0 || device_type_rank(d.info.type) > device_type_rank(devices[best].info.type)))
        best = int(&d - devices.data());
    if (best < 0) throw Error(Status::Code::unsupported, "no usable Vulkan device: " + devices.front().unusable_why);
    return uint32_t(best);
  }
  int match = -1;
  uint32_t index = 0;
  auto [end, ec] = std::from_chars(select.data(), select.data() + select.size(), index);
  const bool digits = ec == std::errc() && end == select.data() + select.size();
  if (digits) {
    // An index only, never a part of a name: "1" on a one-device machine took "llvmpipe (LLVM 15.0.6)".
    if (index < devices.size()) match = int(index);
  } else {
    for (const auto& d : devices)
      if (lower(d.info.name).find(lower(select)) != std::string::npos) {
        match = int(&d - devices.data());
        break;
      }
  }
  if (match < 0)
    throw Error("no Vulkan device matches \"" + select + "\" (" +
                (digits ? "digits select a device by its index, from 0; a part of a name needs more than digits, e.g. \"rtx 4090\"; " : "") +
                "devices: " + list_names(devices) + ")");
  if (!devices[match].usable) throw Error(Status::Code::unsupported, devices[match].unusable_why);
  return uint32_t(match);
}

}  // namespace vksort::gpu
