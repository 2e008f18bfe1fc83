// SPDX-License-Identifier: MIT
// bench_report.hpp — what `vksort bench` measured, and how it is shown: a table for people, JSON for
// the files in bench/results/ and for scripts, CSV for spreadsheets.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <vksort/device.hpp>
#include <vksort/types.hpp>

namespace vksort::cli {

// Samples by name, in the order the names first appeared.
using NamedSamples = std::vector<std::pair<std::string, std::vector<double>>>;

// One (configuration, distribution, n) case: every timed run's numbers, summarised only when shown.
struct CaseResult {
  std::string experiment;    // the suite's experiment it belongs to ("" outside suites)
  std::string algorithm;     // as resolved, with the variant: "brick/blocks"
  vksort::Key key = vksort::Key::u32;
  vksort::Order order = vksort::Order::ascending;
  bool values = false;
  uint32_t value_bytes = 0;  // bytes of each key's value: 0 without values, 4, or a record's size
  std::string distribution;  // "nearly_sorted:1"
  uint64_t n = 0;
  std::vector<double> gpu_ms;  // one per timed run; empty when the queue has no timestamps
  NamedSamples phases_ms;      // per phase, one per timed run
  NamedSamples facts;          // per fact, one per timed run
  NamedSamples cpu_ms;         // per CPU baseline ("std::sort", ...), one per timed run
  // The roofline: median GPU ms of a plain copy of the bytes this case sorts (n keys and values),
  // measured in the same run; < 0 when untimed. copy_ms / GPU ms is the fraction of the device's copy
  // bandwidth the sort reaches, counting the least any sort must move (read and write every item once).
  double copy_ms = -1.0;
  int64_t warmup_runs = 0;  // warm-up sorts run before the timed ones (at least --warmup, and --warmup-ms of them)
  uint64_t bytes() const { return n * (key_bytes(key) + uint64_t(value_bytes)); }
};

// What the whole run had in common, for the header and the JSON.
struct BenchSetup {
  std::string device;        // describe_device()
  vksort::DeviceInfo device_info;
  bool validation = false;
  int64_t repeat = 0;
  int64_t warmup = 1;
  int64_t warmup_ms = 0;
  bool resident = false;  // inputs restored and results kept by GPU copies (bench --resident)
  uint64_t seed = 0;
  unsigned radix_threads = 1;
  std::string git_commit;   // of the vksort build ("unknown" outside a git checkout)
  std::string command_line; // as the user typed it, to repeat the run
  std::string suite;        // "paper", or "" for a plain run
};

// The key type with what travels with it: "u32", "u32+values" (32-bit values), "u32+64B" (records).
std::string type_label(const CaseResult& r);

void print_bench_header(std::ostream& out, const BenchSetup& setup);
void print_bench_table(std::ostream& out, std::span<const CaseResult> results);
std::string bench_json(const BenchSetup& setup, std::span<const CaseResult> results);
// One header line, then one line per case; fields with commas or quotes are quoted (RFC 4180).
std::string bench_csv(const BenchSetup& setup, std::span<const CaseResult> results);

}  // namespace vksort::cli
