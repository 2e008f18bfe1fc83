// SPDX-License-Identifier: MIT
// commands.hpp — the subcommands' options (filled in by main.cpp's command line) and their entry
// points. Each returns the exit code or throws (cli_error.hpp); main turns throws into one line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <vksort/device.hpp>
#include <vksort/types.hpp>

#include "open_device.hpp"

namespace vksort::io {
class AtomicFile;
}

namespace vksort::cli {

// Knobs that are normally chosen per device (SortOptions::tuning); 0 = let vksort choose.
struct TuningOptions {
  uint32_t workgroup_size = 0;
  uint32_t items_per_thread = 0;
  uint32_t samples = 0;  // sample sort's s
  uint32_t radix_bits = 0;  // radix sort's digit width
  std::string radix_ranking = "auto";  // radix sort's block ranking: auto, splits, columns, ballot, match
  std::string radix_scan = "auto";     // radix sort's path: auto, single-pass, reduce-then-scan
  std::string radix_staging = "auto";  // single pass, ballot and match: auto, direct, late, early
  uint32_t lookback_window = 0;        // single pass: predecessor tiles per look-back round
};

struct SortCommand {
  std::string algorithm = "auto";
  std::string type;  // empty: not given (u32 for raw files; a .npy file's dtype says)
  bool descending = false;
  std::string variant = "blocks";
  std::string values_in;
  std::string values_out;
  int64_t value_bytes = -1;  // bytes per value record; -1: not given (4 with --values)
  std::string input;
  std::string output;
  bool check = false;
  bool verbose = false;
  uint32_t begin_bit = 0;  // radix sort's bit range of the encoded key; end_bit 0: the key's width
  uint32_t end_bit = 0;
  TuningOptions tuning;
  std::string memory;         // --memory: host budget as a count ("512M"); "" = half of MemAvailable
  std::string tmp_dir;        // --tmp-dir: where an out-of-core sort keeps its runs; "" = OUTPUT's folder
  std::string device_memory;  // --device-memory: pretend the device holds only this much ("" = as it is)
  bool mpi = false;           // --mpi: one file sorted by every rank of an mpirun (runs vksort-mpi)
  bool keep_counts = false;   // --keep-counts: with --mpi, each rank ends with as many keys as it read
};

struct BenchCommand {
  // Lists: the benchmark runs every combination.
  std::vector<std::string> algorithms{"auto"};
  std::vector<std::string> types{"u32"};
  std::vector<std::string> variants{"blocks"};
  std::vector<std::string> sizes{"65536", "262144"};
  std::vector<std::string> distributions{"uniform", "nearly_sorted"};
  bool descending = false;
  bool values = false;
  int64_t value_bytes = -1;  // bytes per value record; -1: not given (4 with --values); given: implies --values
  int64_t repeat = 5;
  int64_t warmup = 1;     // untimed runs before the timed ones, at least
  int64_t warmup_ms = 0;  // ... and at least this much wall time of them
  bool resident = false;  // --resident: inputs restored and results kept on the GPU between runs
  bool no_cpu = false;  // skip the CPU baselines
  bool phase_clocks = false;  // --phase-clocks: DeviceOptions::phase_clocks (single-pass radix phase shares)
  uint64_t seed = 1;
  std::string json;    // also write the results as JSON here, when given
  std::string format;  // stdout's form: table (default), csv or json; with `out`, the file's form
  std::string out;     // write csv or json here (the table still goes to stdout)
  std::string command_line;  // as typed, recorded in the JSON
  std::string suite;   // run a named suite ("paper") instead of the lists above
  std::string max_n;   // a suite's largest size ("" = chosen for the device)
  TuningOptions tuning;
};

// The bucket-list experiments (Rozen et al., Tables 1-3).
struct BucketBenchCommand {
  std::vector<std::string> sizes{"64k", "256k", "1M"};
  std::vector<std::string> per_bucket{"1", "2", "4", "8", "16"};  // Table 1's average elements per bucket
  std::vector<std::string> moved{"0", "2", "10", "25", "50", "100"};  // Table 2's percentages
  std::vector<std::string> parts{"auto"};  // partial update settings of Table 1's builds
  std::vector<std::string> tables{"1", "2", "3"};
  double grid_per_bucket = 4;  // Tables 2 and 3: n / this many buckets (the paper: 2^20 in 64^3)
  double rebuild_above = -1;   // resorts: BucketOptions::rebuild_above (< 0: the library's default)
  bool chained = false;        // Table 2: time a resort of a resort instead of one right after a build
  int64_t repeat = 3;
  uint64_t seed = 1;
  std::string json, format, command_line;
  bool quiet = false;    // print nothing (a suite whose stdout is csv or json)
};

// The per-frame depth sort of a Gaussian-splat renderer (apps/splat_frames): a GPU cull, then
// Sorter::record_indirect, in the CLI's own Vulkan device lent to vksort.
struct SplatBenchCommand {
  std::vector<std::string> sizes{"1M"};  // splats in the scene
  uint32_t width = 1920, height = 1080;  // the camera's pixels
  int64_t frames = 5;                    // timed frames, after one warm-up frame
  std::string json, format, command_line;
};

// Measuring the crossovers of Algorithm::automatic for this device.
struct TuneCommand {
  std::string max_n;  // largest size ("" = 2^20 on CPU devices, else 2^24)
  int64_t repeat = 3;
  uint64_t seed = 1;
  std::string out;    // save here instead of the user's cache
  bool dry_run = false;
};

// format: "text" (for people) or "json" (one object on stdout, for scripts; nothing is printed when
// the device cannot be opened, so stdout is valid JSON or empty).
int run_info(const GlobalOptions& global, const std::string& format);
int run_sort(const GlobalOptions& global, const SortCommand& command);
// What `vksort sort`'s files hold besides raw data: .npy headers, read before either path runs.
struct SortFiles {
  uint64_t keys_at = 0, values_at = 0;  // where the inputs' data start (past a .npy header)
  std::string values_descr = "<u4";     // the dtype a .npy values output gets
  bool values_descr_utf8 = false;       // its text is UTF-8 (from a format 3.0 file), not latin-1
  // Bytes of an input that is a pipe, read into memory (within the host budget; pipe_input.hpp).
  std::optional<uint64_t> keys_in_memory, values_in_memory;
};
// --memory in bytes, else the default host budget (half of MemAvailable).
uint64_t host_budget(const SortCommand& command);
// Where a pipe input larger than the host budget is spooled: --tmp-dir, else where the out-of-core
// sort keeps its run data (the output's folder; the temporary folder for an output that is a stream).
std::filesystem::path spool_folder(const SortCommand& command);
// The device `vksort sort` runs on (--device-memory pretends it holds that much), with --tmp-dir and the
// sort's options checked there (a combination the library refuses is a usage error, exit 2; `what` opens
// its message): what a pipe input needs settled before it is read.
vksort::Device open_sort_device(const GlobalOptions& global, const SortCommand& command, const vksort::SortOptions& options,
                                const std::string& what);
// Whether `vksort sort` goes out of core: true when the inputs' data (regular files, or pipes read into
// memory: SortFiles) exceed --memory or what the device holds at once; `device`, opened here unless the
// caller did (open_sort_device), is then, and may otherwise be, the opened device.
bool sort_out_of_core(const GlobalOptions& global, const SortCommand& command, const vksort::SortOptions& options,
                      const SortFiles& files, std::optional<vksort::Device>& device);
// `vksort sort --mpi`: checks that the options are ones the distributed sort has, then replaces this
// process by vksort-mpi (beside this executable or on PATH) with the same request. Returns only by throwing.
[[noreturn]] void run_sort_mpi(const GlobalOptions& global, const SortCommand& command);
int run_sort_external(const SortCommand& command, const vksort::SortOptions& options, const SortFiles& files,
                      vksort::Device& device);
int run_bench(const GlobalOptions& global, const BenchCommand& command);
int run_bench_buckets(const GlobalOptions& global, const BucketBenchCommand& command);
// Throws the UsageError run_bench_buckets would throw for `command` before opening a device.
void check_bench_buckets(const BucketBenchCommand& command);
int run_bench_splat(const GlobalOptions& global, const SplatBenchCommand& command);
int run_tune(const GlobalOptions& global, const TuneCommand& command);
// The same on an open device; `json_file`, where given, is the --json output already created (a caller
// that checks its outputs before any work), else command.json is created here.
int run_bench_buckets_on(vksort::Device& device, const BucketBenchCommand& command, vksort::io::AtomicFile* json_file = nullptr);

}  // namespace vksort::cli
