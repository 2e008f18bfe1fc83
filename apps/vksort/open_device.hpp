// SPDX-License-Identifier: MIT
// open_device.hpp — the options every subcommand shares, and opening the device they choose.
#pragma once

#include <string>
#include <vector>

#include <vksort/device.hpp>

namespace vksort::cli {

struct GlobalOptions {
  std::string device;       // --device: index or name substring; "" = VKSORT_DEVICE, else the best
  bool validation = false;  // --validation: force the Khronos layer on (else VKSORT_VALIDATION decides)
  uint64_t pretend_device_memory = 0;  // sort --device-memory: DeviceOptions::pretend.device_memory
  bool phase_clocks = false;           // bench --phase-clocks: DeviceOptions::phase_clocks
};

// The selector in effect and where it came from ("--device", "VKSORT_DEVICE"), or "" when none is.
struct Selector {
  std::string text;
  std::string source;
};
Selector effective_selector(const GlobalOptions& options);

// The device Device would open for this selector ("": VKSORT_DEVICE unset, the best usable one), by the
// library's rule (vksort::choose_device: an index, else a case-insensitive part of the name). A selector
// that matches nothing or names an unusable device is a UsageError saying where it came from ("--device:
// no Vulkan device matches ..."); other failures stay vksort::Error.
DeviceListing chosen_device(const Selector& sel);

// Opens the chosen device. A selector that matches no device, or one vksort cannot use, and
// --validation without the layer installed are UsageErrors; other failures stay vksort::Error.
vksort::Device open_device(const GlobalOptions& options);

// '"llvmpipe (LLVM 15.0.6, 256 bits)" (cpu, Mesa 22.3.6 (LLVM 15.0.6))': how reports name a device.
std::string describe_device(const vksort::DeviceInfo& info);

}  // namespace vksort::cli
