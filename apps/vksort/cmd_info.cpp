// SPDX-License-Identifier: MIT
// vksort info: the devices Vulkan offers, which one vksort would use, and the limits of that one that
// decide how sorts are shaped (tile sizes, dispatch splitting, how large an input can be).
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>
#include <vksort/vksort.hpp>

#include "cli_error.hpp"
#include "commands.hpp"
#include "io/format_bytes.hpp"

namespace vksort::cli {

namespace {

std::string api_version(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string hex(uint32_t v, int digits) {
  std::ostringstream s;
  s << "0x" << std::hex << std::setw(digits) << std::setfill('0') << v;
  return s.str();
}

// The exact count after the rounded one: a limit is a number people compare against.
std::string bytes(uint64_t b) {
  return b < 1024 ? io::format_bytes(b) : io::format_bytes(b) + " (" + std::to_string(b) + " bytes)";
}

bool same_device(const DeviceInfo& a, const DeviceInfo& b) {
  return std::memcmp(a.uuid, b.uuid, VK_UUID_SIZE) == 0 && a.name == b.name && a.driver_name == b.driver_name;
}

void print_limits(std::ostream& out, const Device& device) {
  const DeviceInfo& d = device.info();
  auto row = [&](const char* name, const std::string& value) {
    out << "  " << std::left << std::setw(28) << name << value << '\n';
  };
  std::string ops;
  for (auto [on, name] : {std::pair{d.subgroup_arithmetic, "arithmetic"}, {d.subgroup_ballot, "ballot"},
                          {d.subgroup_shuffle, "shuffle"}, {d.subgroup_partitioned, "partitioned"}})
    if (on) ops += (ops.empty() ? "" : ", ") + std::string(name);
  row("subgroup size", d.subgroup_size ? std::to_string(d.subgroup_size) + " (compute ops: " +
                                             (ops.empty() ? "basic only" : ops) +
                                             (d.full_subgroups ? "; full subgroups on request" : "") + ")"
                                       : "none usable in compute");
  row("max shared memory", bytes(d.max_shared_memory));
  row("max workgroup invocations", std::to_string(d.max_workgroup_invocations));
  row("max workgroup count", std::to_string(d.max_workgroup_count[0]) + " x " + std::to_string(d.max_workgroup_count[1]) +
                                 " x " + std::to_string(d.max_workgroup_count[2]));
  row("maxStorageBufferRange", bytes(d.max_storage_buffer_range));
  row("maxMemoryAllocationSize", bytes(d.max_allocation_size));
  row("device-local memory", bytes(d.device_local_bytes) + ", largest heap");
  row("max push constants", bytes(d.max_push_constants));
  if (d.timestamps) {
    std::ostringstream t;
    t << "period " << d.timestamp_period_ns << " ns, " << d.timestamp_valid_bits << " valid bits";
    row("timestamps", t.str());
  } else {
    row("timestamps", "none (bench reports n/a for GPU times)");
  }
  row("queue family", std::to_string(d.queue_family));
  row("validation layer", device.validation_enabled() ? "on" : (validation_layer_available() ? "off (installed)" : "off (not installed)"));
}

// The brick sort tile of one kind of key ("one tile" in the auto profile means this many keys).
uint32_t brick_tile(Device& device, bool wide, bool values) {
  return Sorter(device, SortOptions{.key = wide ? Key::u64 : Key::u32, .algorithm = Algorithm::brick,
                                    .value_bytes = values ? 4u : 0u})
      .tile_size();
}

// The same facts as the text, as one JSON object; sizes in bytes, versions as "major.minor.patch".
int info_json(const GlobalOptions& global, const std::vector<DeviceListing>& devices, const Selector& sel) {
  using nlohmann::ordered_json;
  Device device = open_device(global);
  const DeviceInfo& d = device.info();
  ordered_json j;
  j["vksort"] = vksort::version();
  ordered_json list = ordered_json::array();
  std::optional<uint32_t> chosen_index;
  for (const auto& l : devices) {
    const DeviceInfo& i = l.info;
    if (same_device(i, d)) chosen_index = l.index;
    list.push_back({{"index", l.index}, {"name", i.name}, {"type", i.type}, {"vendor_id", hex(i.vendor_id, 4)},
                    {"device_id", hex(i.device_id, 4)}, {"vulkan", api_version(i.api_version)},
                    {"driver", i.driver_name}, {"driver_info", i.driver_info}, {"usable", l.usable},
                    {"unusable_why", l.usable ? "" : l.unusable_why}});
  }
  j["devices"] = list;
  ordered_json ops = ordered_json::array();
  for (auto [on, name] : {std::pair{d.subgroup_arithmetic, "arithmetic"}, {d.subgroup_ballot, "ballot"},
                          {d.subgroup_shuffle, "shuffle"}, {d.subgroup_partitioned, "partitioned"}})
    if (on) ops.push_back(name);
  j["chosen"] = {
      {"index", chosen_index ? ordered_json(*chosen_index) : ordered_json(nullptr)},
      {"name", d.name},
      {"selected_by", sel.text.empty() ? "type" : sel.source + " " + sel.text},
      {"subgroup_size", d.subgroup_size},
      {"subgroup_ops", ops},
      {"full_subgroups", d.full_subgroups},
      {"max_shared_memory", d.max_shared_memory},
      {"max_workgroup_invocations", d.max_workgroup_invocations},
      {"max_workgroup_count", {d.max_workgroup_count[0], d.max_workgroup_count[1], d.max_workgroup_count[2]}},
      {"max_storage_buffer_range", d.max_storage_buffer_range},
      {"max_memory_allocation_size", d.max_allocation_size},
      {"device_local_bytes", d.device_local_bytes},
      {"max_push_constants", d.max_push_constants},
      {"timestamps", d.timestamps},
      {"timestamp_period_ns", d.timestamp_period_ns},
      {"timestamp_valid_bits", d.timestamp_valid_bits},
      {"queue_family", d.queue_family},
      {"validation", device.validation_enabled()},
  };
  const AutoProfile& profile = device.auto_profile();
  ordered_json kinds = ordered_json::array();
  for (int wide = 0; wide < 2; ++wide)
    for (int values = 0; values < 2; ++values) {
      const AutoCrossovers& c = profile.crossovers[wide][values];
      const uint32_t brick_up_to = c.brick_up_to == AutoCrossovers::one_tile ? brick_tile(device, wide, values) : c.brick_up_to;
      kinds.push_back({{"key_bits", wide ? 64 : 32}, {"values", values != 0}, {"brick_up_to", brick_up_to},
                       {"sample_from", c.sample_from ? ordered_json(c.sample_from) : ordered_json(nullptr)},
                       {"radix_bits", c.radix_bits ? ordered_json(c.radix_bits) : ordered_json(nullptr)},
                       {"single_pass_shape", c.single_pass_workgroup ? ordered_json({c.single_pass_workgroup, c.single_pass_items})
                                                                     : ordered_json(nullptr)}});
    }
  j["auto"] = {{"profile", profile.source}, {"kinds", kinds}};
  std::cout << j.dump(2) << '\n';
  return 0;
}

}  // namespace

int run_info(const GlobalOptions& global, const std::string& format) {
  const std::vector<DeviceListing> devices = list_devices();
  const Selector sel = effective_selector(global);
  if (format == "json") return info_json(global, devices, sel);

  std::ostream& out = std::cout;
  out << "vksort " << vksort::version() << "\n\n";
  // Listed before the device is opened, so the list is there even when opening fails.
  const DeviceListing* selected = nullptr;
  std::optional<uint32_t> selected_index;
  try {
    if (!sel.text.empty()) selected_index = chosen_device(sel).index;
  } catch (const UsageError&) {
    // Nothing matches: the list stays unmarked and open_device below says why.
  }
  for (const auto& l : devices)
    if (sel.text.empty() ? l.chosen : selected_index == l.index) selected = &l;
  out << "Vulkan devices:\n";
  if (devices.empty()) out << "  none\n";
  for (const auto& l : devices) {
    const DeviceInfo& i = l.info;
    out << "  [" << l.index << "] " << i.name << (&l == selected ? "  <- chosen" : "") << '\n'
        << "      type " << i.type << ", vendor " << hex(i.vendor_id, 4) << ", device " << hex(i.device_id, 4)
        << ", Vulkan " << api_version(i.api_version) << '\n'
        << "      driver " << (i.driver_name.empty() ? "(unnamed)" : i.driver_name)
        << (i.driver_info.empty() ? "" : ": " + i.driver_info) << '\n'
        << "      usable: " << (l.usable ? "yes" : "no, " + l.unusable_why) << '\n';
  }
  out << std::flush;

  Device device = open_device(global);
  const DeviceInfo& chosen = device.info();
  std::string index = "?";
  for (const auto& l : devices)
    if (same_device(l.info, chosen)) index = std::to_string(l.index);
  out << "\nChosen device: [" << index << "] " << chosen.name << "  ("
      << (sel.text.empty() ? "the best usable device by type" : "selected by " + sel.source + " \"" + sel.text + "\"")
      << ")\n";
  print_limits(out, device);

  // What --algo auto does here, and where that comes from (vksort tune writes the profile).
  const AutoProfile& profile = device.auto_profile();
  out << "\nAlgorithm auto (profile: " << profile.source << "):\n";
  for (int wide = 0; wide < 2; ++wide)
    for (int values = 0; values < 2; ++values) {
      const AutoCrossovers& c = profile.crossovers[wide][values];
      // "One tile" is the brick sort's tile for this kind of key, which the device's limits decide.
      const std::string brick = c.brick_up_to == AutoCrossovers::one_tile ? "up to one tile (" + std::to_string(brick_tile(device, wide, values)) + " keys)"
                                : c.brick_up_to ? "up to " + std::to_string(c.brick_up_to) + " keys" : "never";
      out << "  " << (wide ? "64" : "32") << "-bit keys" << (values ? " + values" : "         ") << ": brick sort "
          << brick << ", sample sort " << (c.sample_from ? "from " + std::to_string(c.sample_from) + " keys" : "never")
          << ", radix sort otherwise"
          << (c.radix_bits ? " (" + std::to_string(c.radix_bits) + "-bit digits)" : std::string())
          << (c.single_pass_workgroup ? " (single-pass tiles " + std::to_string(c.single_pass_workgroup) + "x" +
                                            std::to_string(c.single_pass_items) + ")"
                                      : std::string())
          << "\n";
    }
  return 0;
}

}  // namespace vksort::cli
