// SPDX-License-Identifier: MIT
#include "open_device.hpp"

#include <cstdlib>
#include <string_view>

#include "cli_error.hpp"

namespace vksort::cli {

// The library decides (vksort::choose_device, the rule Device itself applies), so that the CLI keeps no
// copy of it; its refusal becomes a usage error that says where the selector came from.
DeviceListing chosen_device(const Selector& sel) {
  DeviceOptions o;
  o.select = sel.text;
  try {
    return vksort::choose_device(o);
  } catch (const Error& e) {
    if (sel.text.empty()) throw;  // no selector and no usable device: not a usage error
    throw UsageError(sel.source + ": " + e.what());
  }
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
  // A selector that matches nothing, or an unusable device, is refused as a usage error first.
  if (const Selector sel = effective_selector(options); !sel.text.empty()) chosen_device(sel);
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
