// SPDX-License-Identifier: MIT
// vksort sort, out of core: inputs larger than the device or the host budget (--memory) are sorted by
// vksort::external (GPU-sorted runs in unnamed temporary files, then a streaming merge). The library
// makes the outputs appear whole or not at all and leaves no temporary file behind, even on SIGINT or
// SIGKILL where the filesystem has O_TMPFILE (its files have no name until all are complete), so this
// file only decides and reports.
#include <sys/stat.h>

#include <cstdio>
#include <iostream>

#include <vksort/external.hpp>
#include <vksort/vksort.hpp>

#include "cli_error.hpp"
#include "cmd_sort.hpp"
#include "io/atomic_file.hpp"
#include "io/format_bytes.hpp"
#include "counts.hpp"
#include "npy_file.hpp"
#include "progress.hpp"

namespace vksort::cli {

namespace {

// --memory and --device-memory: a count as counts.hpp reads it (4G, 512M, 1e9), at least 1.
uint64_t bytes_option(const std::string& option, const std::string& text) {
  const auto v = parse_count(text);
  if (!v || *v == 0)
    throw UsageError(option + " " + in_quotes(text) + " is not a number of bytes (e.g. 4G, 512M, 1e9)");
  return *v;
}

// The size of a regular file, or nullopt (a pipe, a missing file: the in-memory path reports those).
std::optional<uint64_t> regular_file_size(const std::string& path) {
  struct stat st {};
  if (path.empty() || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return uint64_t(st.st_size);
}

// --tmp-dir, checked whichever path the sort takes and before a pipe is spooled there, so that a typo
// never waits for the first large input and reads the same everywhere.
void check_tmp_dir(const SortCommand& c) {
  std::error_code ec;
  if (!c.tmp_dir.empty() && !std::filesystem::is_directory(c.tmp_dir, ec))
    throw UsageError("--tmp-dir " + in_quotes(c.tmp_dir) + " is not a folder");
}

// The device, pretending to hold --device-memory where given; --tmp-dir checked first.
Device open_device_as_told(const GlobalOptions& global, const SortCommand& c) {
  GlobalOptions g = global;
  if (!c.device_memory.empty()) g.pretend_device_memory = bytes_option("--device-memory", c.device_memory);
  check_tmp_dir(c);
  return open_device(g);
}

}  // namespace

uint64_t host_budget(const SortCommand& c) {
  return c.memory.empty() ? external::default_memory_bytes() : bytes_option("--memory", c.memory);
}

std::filesystem::path spool_folder(const SortCommand& c) {
  check_tmp_dir(c);
  if (!c.tmp_dir.empty()) return c.tmp_dir;
  // The disk the user chose for the output: the folder of the file its links lead to, where the output's
  // own temporary goes (/dev/stdout redirected to a file is that file; /dev itself takes no files from
  // users and is memory for root). An output that is a stream has no such disk: the temporary folder.
  struct stat st {};
  const bool stream = stat(c.output.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
  if (!stream) {
    const std::filesystem::path out = io::link_target(c.output);
    return out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  }
  std::error_code ec;
  const std::filesystem::path tmp = io::temp_folder(ec);
  if (ec) throw UsageError("no folder for a pipe's data beyond --memory ($TMPDIR: " + ec.message() + "): give --tmp-dir");
  return tmp;
}

Device open_sort_device(const GlobalOptions& global, const SortCommand& c, const SortOptions& options, const std::string& what) {
  Device device = open_device_as_told(global, c);
  refusals_are_usage_errors(what, [&] { return Sorter(device, options); });
  return device;
}

bool sort_out_of_core(const GlobalOptions& global, const SortCommand& c, const SortOptions& options,
                      const SortFiles& files, std::optional<Device>& device) {
  const uint64_t memory = host_budget(c);
  if (!device) device.emplace(open_device_as_told(global, c));

  // Bytes of data, past any .npy header (read_npy_header checked that the file holds it).
  auto data_bytes = [](const std::string& path, uint64_t at) -> std::optional<uint64_t> {
    const auto size = regular_file_size(path);
    if (!size || *size < at) return std::nullopt;
    return *size - at;
  };
  const auto keys = files.keys_in_memory ? files.keys_in_memory : data_bytes(c.input, files.keys_at);
  const auto values = c.values_in.empty()      ? std::optional<uint64_t>(0)
                      : files.values_in_memory ? files.values_in_memory
                                               : data_bytes(c.values_in, files.values_at);
  if (!keys || !values) return false;  // a missing input: the in-memory path reports it
  const uint32_t kb = key_bytes(options.key);
  const uint64_t n = *keys / kb;
  // What the in-memory path holds: the whole input on the host (twice with --check) and, on the device,
  // keys, values and scratch in allocations within maxMemoryAllocationSize.
  const uint64_t host = *keys + *values;
  // The options are checked first, whichever path the size picks: a combination the library refuses
  // is a usage error (exit 2) in memory and out of core alike.
  const std::string what = "sorting " + std::to_string(n) + " " + std::string(to_string(options.key)) + " keys";
  const Sorter sorter = refusals_are_usage_errors(what, [&] { return Sorter(*device, options); });
  if (host > memory) return true;
  const DeviceInfo& info = device->info();
  const uint64_t scratch = sorter.scratch_bytes(n);
  const uint64_t max_alloc = info.max_allocation_size ? info.max_allocation_size : UINT64_MAX;
  const uint64_t device_bytes = info.device_local_bytes ? info.device_local_bytes / 10 * 9 : UINT64_MAX;
  return host + scratch > device_bytes || *keys > max_alloc || *values > max_alloc || scratch > max_alloc ||
         n >= (uint64_t(1) << 31);
}

int run_sort_external(const SortCommand& c, const SortOptions& options, const SortFiles& files, Device& device) {
  std::ostream& verbose = verbose_stream(c);  // before the outputs replace what stdout names
  external::ExternalOptions o;
  // .npy inputs are read past their headers, and .npy outputs (by name) begin with one for the n keys
  // (if the data are no whole number of keys, the library refuses the input before writing anything).
  o.input_data_at = files.keys_at;
  o.values_input_data_at = files.values_at;
  const auto size = regular_file_size(c.input);
  const uint64_t n = size && *size >= files.keys_at ? (*size - files.keys_at) / key_bytes(options.key) : 0;
  if (is_npy_path(c.output)) o.output_header = npy_header(npy_descr(options.key), n);
  if (!c.values_out.empty() && is_npy_path(c.values_out))
    o.values_output_header = npy_header(files.values_descr, n, files.values_descr_utf8);
  // No reference sort fits in memory here: the library checks the output's order and that it holds
  // the input's records (ExternalOptions::check) before the output replaces anything.
  o.check = c.check;
  o.input = c.input;
  o.output = c.output;
  o.values_input = c.values_in;
  o.values_output = c.values_out;
  o.sort = options;
  o.memory_bytes = c.memory.empty() ? 0 : bytes_option("--memory", c.memory);
  o.temp_dir = spool_folder(c);  // the run data go where a pipe's spool file went (the library's default
                                 // took /dev for /dev/stdout redirected to a file)
  // Two phases of about the same work: the runs, then the merge.
  Progress progress(1.0);
  o.progress = [&](const external::ExternalProgress& p) {
    if (p.total == 0) return;
    const double share = double(p.done) / double(p.total) / 2;
    const bool runs = p.phase == "runs";
    progress.done_so_far(runs ? share : 0.5 + share, runs ? p.run : p.runs + 1,
                         runs ? "sorting run " + std::to_string(p.run) + " of " + std::to_string(p.runs)
                              : "merging " + std::to_string(p.runs) + " runs");
  };
  external::ExternalStats s;
  try {
    s = external::sort_file(device, o);
  } catch (const external::InputError& e) {
    throw UsageError(e.what());
  }
  progress.clear();
  if (c.verbose) {
    const double gb = double(s.bytes) / 1e9;
    char line[512];
    std::snprintf(line, sizeof line,
                  "sorted %llu %s keys out of core in %llu runs of up to %llu keys (%llu merge pass%s) on %s: %s in %.3f s "
                  "(%.3f GB/s); read %.3f s (overlapped), upload %.3f s, sort %.3f s, download %.3f s, write %.3f s, "
                  "merge %.3f s",
                  (unsigned long long)s.n, std::string(to_string(options.key)).c_str(), (unsigned long long)s.runs,
                  (unsigned long long)s.run_keys, (unsigned long long)s.merge_passes, s.merge_passes == 1 ? "" : "es",
                  device.info().name.c_str(), io::format_bytes(s.bytes).c_str(), s.total_s, s.total_s > 0 ? gb / s.total_s : 0.0,
                  s.read_s, s.upload_s, s.sort_s, s.download_s, s.write_s, s.merge_s);
    verbose << line << '\n';
  }
  return exit_ok;
}

}  // namespace vksort::cli
