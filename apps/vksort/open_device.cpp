// SPDX-License-Identifier: MIT
#include "open_device.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "cli_error.hpp"

namespace vksort::cli {

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string device_names(const std::vector<DeviceListing>& devices) {
  std::string names;
  for (const auto& d : devices) names += (names.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.info.name;
  return names.empty() ? "none" : names;
}

}  // namespace

// Checked here before the library applies the same rule, so that a typo is reported as a usage error
// with the list of devices.
const DeviceListing* find_device(const std::string& select, const std::vector<DeviceListing>& devices) {
  uint32_t index = 0;
  const auto [end, ec] = std::from_chars(select.data(), select.data() + select.size(), index);
  if (ec == std::errc() && end == select.data() + select.size()) {
    for (const auto& d : devices)
      if (d.index == index) return &d;
    return nullptr;
  }
  for (const auto& d : devices)
    if (lower(d.info.name).find(lower(select)) != std::string::npos) return &d;
  return nullptr;
}

Selector effective_selector(const GlobalOptions& options) {
  if (!options.device.empty()) return {options.device, "--device"};
  if (const char* env = std::getenv("VKSORT_DEVICE"); env && *env) return {env, "VKSORT_DEVICE"};
  return {};
}

vksort::Device open_device(const GlobalOptions& options) {
  if (options.validation && !validation_layer_available())
    throw UsageError("--validation: VK_LAYER_KHRONOS_validation is not installed "
                     "(Debian/Ubuntu package: vulkan-validationlayers)");
  const Selector sel = effective_selector(options);
  if (!sel.text.empty()) {
    const std::vector<DeviceListing> devices = list_devices();
    const DeviceListing* d = find_device(sel.text, devices);
    if (!d)
      throw UsageError(sel.source + " \"" + sel.text + "\" matches no Vulkan device (devices: " + device_names(devices) + ")");
    if (!d->usable)
      throw UsageError(sel.source + " \"" + sel.text + "\" selects device " + std::to_string(d->index) + " (" +
                       d->info.name + "), which vksort cannot use: " + d->unusable_why);
  }
  DeviceOptions o;
  o.select = options.device;  // empty: the library reads VKSORT_DEVICE itself
  o.validation = options.validation ? 1 : -1;
  o.pretend.device_memory = options.pretend_device_memory;
  o.phase_clocks = options.phase_clocks;
  // VKSORT_PRETEND_GPU=1: a CPU driver poses as a GPU (DeviceOptions::pretend.gpu), taking the shapes
  // and paths vksort takes on GPUs: how the CLI's tests reach them on lavapipe.
  if (const char* v = std::getenv("VKSORT_PRETEND_GPU"); v && std::string_view(v) == "1") o.pretend.gpu = true;
  return vksort::Device(o);
}

std::string describe_device(const vksort::DeviceInfo& info) {
  return "\"" + info.name + "\" (" + info.type + (info.driver_info.empty() ? "" : ", " + info.driver_info) + ")";
}

}  // namespace vksort::cli
