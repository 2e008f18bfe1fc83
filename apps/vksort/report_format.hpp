// SPDX-License-Identifier: MIT
// report_format.hpp — how numbers, devices and CSV fields are written in the benchmarks' reports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <vksort/device.hpp>

namespace vksort::cli {

// Milliseconds with three significant digits or more: "0.512", "12.34", "8431".
std::string format_ms(double ms);
// Millions of items per second, three significant digits.
std::string format_rate(double mitems);
// "2.50x", "0.0024x": two significant digits below 1, so a slow GPU still shows by how much.
std::string format_ratio(double r);

// What a bench subcommand prints on stdout (--format): a table for people ("" or "table"), csv or json;
// anything else is a UsageError listing the three.
enum class StdoutFormat { table, csv, json };
StdoutFormat parse_stdout_format(const std::string& text);

// Everything about a device that results from different machines are compared by.
nlohmann::ordered_json device_json(const DeviceInfo& d);

// A CSV field, quoted when it holds a separator, quote or line break (RFC 4180); a line of them.
std::string csv_field(const std::string& text);
std::string csv_line(const std::vector<std::string>& fields);
// A number with six significant digits, or "" for a missing one.
std::string csv_number(std::optional<double> v);
// "std::stable_sort" -> "std_stable_sort": column names a spreadsheet or pandas can address.
std::string identifier(const std::string& name);

}  // namespace vksort::cli
