// SPDX-License-Identifier: MIT
#include "report_format.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "cli_error.hpp"

namespace vksort::cli {

// Three significant digits or more: enough to compare, few enough to read.
std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 10 ? "%.3f" : ms < 100 ? "%.2f" : ms < 1000 ? "%.1f" : "%.0f", ms);
  return buf;
}

// Millions of keys per second, three significant digits (a CPU driver sorts well below one).
std::string format_rate(double mkeys) {
  char buf[32];
  if (mkeys >= 100) std::snprintf(buf, sizeof buf, "%.0f", mkeys);
  else if (mkeys >= 1 || mkeys <= 0) std::snprintf(buf, sizeof buf, "%.*f", mkeys >= 10 ? 1 : 2, mkeys);
  else std::snprintf(buf, sizeof buf, "%.*f", std::min(8, 2 - int(std::floor(std::log10(mkeys)))), mkeys);
  return buf;
}

// Two significant digits below 1 ("0.0024x"), so a slow GPU still shows by how much.
std::string format_ratio(double r) {
  char buf[32];
  if (r >= 10) std::snprintf(buf, sizeof buf, "%.1fx", r);
  else if (r >= 1 || r <= 0) std::snprintf(buf, sizeof buf, "%.2fx", r);
  else std::snprintf(buf, sizeof buf, "%.*fx", std::min(8, 1 - int(std::floor(std::log10(r)))), r);
  return buf;
}

StdoutFormat parse_stdout_format(const std::string& text) {
  if (text.empty() || text == "table") return StdoutFormat::table;
  if (text == "csv") return StdoutFormat::csv;
  if (text == "json") return StdoutFormat::json;
  throw UsageError("--format: unknown format '" + text + "' (known: table, csv, json)");
}

nlohmann::ordered_json device_json(const DeviceInfo& d) {
  char uuid[2 * VK_UUID_SIZE + 1] = {};
  for (uint32_t i = 0; i < VK_UUID_SIZE; ++i) std::snprintf(uuid + 2 * i, 3, "%02x", d.uuid[i]);
  auto version = [](uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
  };
  return {{"name", d.name},
          {"type", d.type},
          {"vendor_id", d.vendor_id},
          {"device_id", d.device_id},
          {"uuid", uuid},
          {"api_version", version(d.api_version)},
          {"driver_name", d.driver_name},
          {"driver_info", d.driver_info},
          {"driver_version", d.driver_version},
          {"subgroup_size", d.subgroup_size},
          {"subgroup_arithmetic", d.subgroup_arithmetic},
          {"max_shared_memory", d.max_shared_memory},
          {"max_workgroup_invocations", d.max_workgroup_invocations},
          {"max_workgroup_count", {d.max_workgroup_count[0], d.max_workgroup_count[1], d.max_workgroup_count[2]}},
          {"max_storage_buffer_range", d.max_storage_buffer_range},
          {"max_allocation_size", d.max_allocation_size},
          {"device_local_bytes", d.device_local_bytes},
          {"timestamps", d.timestamps},
          {"timestamp_period_ns", d.timestamp_period_ns}};
}

// A CSV field: quoted when it holds a separator, quote or line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted(1, '"');
  for (char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string text;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) text.push_back(',');
    text.append(csv_field(fields[i]));
  }
  text.push_back('\n');
  return text;
}

std::string csv_number(std::optional<double> v) {
  if (!v) return "";
  // The JSON's value, not a rounding of it: "%.6g" wrote 349320.5625 as 349321 and 1234567 as
  // 1.23457e+06. Whole numbers below 2^53 as integers, others the shortest text that reads back as the
  // same double (std::to_chars), as the JSON writer does.
  if (std::isfinite(*v) && *v == std::floor(*v) && std::fabs(*v) < 9007199254740992.0)
    return std::to_string(static_cast<long long>(*v));
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, *v).ptr;
  return std::string(buf, end);
}

// "std::stable_sort" -> "std_stable_sort": column names a spreadsheet or pandas can address.
std::string identifier(const std::string& name) {
  std::string id;
  for (char c : name) {
    const bool word = std::isalnum(static_cast<unsigned char>(c));
    if (word) id += c;
    else if (!id.empty() && id.back() != '_') id += '_';
  }
  return id;
}

}  // namespace vksort::cli
