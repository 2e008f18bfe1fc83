// SPDX-License-Identifier: MIT
// The library's reports as Python dicts: a device's description and limits, and a sort's SortStats.
#pragma once

#include <pybind11/pybind11.h>

#include "vksort/device.hpp"
#include "vksort/types.hpp"

namespace vksort::python {

// name, vendor (a name where the PCI id is known), vendor_id, device_id, type, driver, api_version,
// subgroup_size, features {...}, limits {...}.
pybind11::dict device_dict(const DeviceInfo& info);
// gpu_ms (None when the queue has no timestamps), phases {name: ms} in recording order, facts {name: value}.
pybind11::dict stats_dict(const SortStats& stats);

}  // namespace vksort::python
