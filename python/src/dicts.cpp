// SPDX-License-Identifier: MIT
#include "dicts.hpp"

#include <string>

namespace py = pybind11;

namespace vksort::python {

namespace {
// PCI vendor ids of the GPU makers Vulkan drivers report (Mesa's CPU driver uses Khronos' id 0x10005).
std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x1002: return "AMD";
    case 0x10DE: return "NVIDIA";
    case 0x8086: return "Intel";
    case 0x106B: return "Apple";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x1010: return "Imagination";
    case 0x10005: return "Mesa";
    default: return "unknown";
  }
}

std::string api_version(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}
}  // namespace

py::dict device_dict(const DeviceInfo& info) {
  py::dict features;
  features["subgroup_arithmetic"] = info.subgroup_arithmetic;
  features["subgroup_ballot"] = info.subgroup_ballot;
  features["subgroup_shuffle"] = info.subgroup_shuffle;
  features["subgroup_partitioned"] = info.subgroup_partitioned;
  features["full_subgroups"] = info.full_subgroups;
  features["timestamps"] = info.timestamps;
  py::dict limits;
  limits["max_shared_memory"] = info.max_shared_memory;
  limits["max_workgroup_invocations"] = info.max_workgroup_invocations;
  limits["max_workgroup_count"] =
      py::make_tuple(info.max_workgroup_count[0], info.max_workgroup_count[1], info.max_workgroup_count[2]);
  limits["max_storage_buffer_range"] = info.max_storage_buffer_range;
  limits["max_allocation_size"] = info.max_allocation_size;
  limits["device_local_bytes"] = info.device_local_bytes;
  limits["max_push_constants"] = info.max_push_constants;
  limits["timestamp_period_ns"] = info.timestamp_period_ns;
  py::dict d;
  d["name"] = info.name;
  d["vendor"] = vendor_name(info.vendor_id);
  d["vendor_id"] = info.vendor_id;
  d["device_id"] = info.device_id;
  d["type"] = info.type;
  d["driver"] = info.driver_name;
  d["driver_info"] = info.driver_info;
  d["api_version"] = api_version(info.api_version);
  d["subgroup_size"] = info.subgroup_size;
  d["features"] = features;
  d["limits"] = limits;
  return d;
}

py::dict stats_dict(const SortStats& stats) {
  py::dict phases, facts;
  for (const auto& [name, ms] : stats.phases_ms) phases[py::str(name)] = ms;
  for (const auto& [name, value] : stats.facts) facts[py::str(name)] = value;
  py::dict d;
  d["gpu_ms"] = stats.timed() ? py::object(py::float_(stats.gpu_ms)) : py::object(py::none());
  d["phases"] = phases;
  d["facts"] = facts;
  return d;
}

}  // namespace vksort::python
