// SPDX-License-Identifier: MIT
// vksort/external.hpp — sorting more keys than the GPU (or a host-memory budget) holds at once.
//
// A layer above the public API (Device, Buffer, Sorter): the input is cut into runs as large as the
// device and the budget allow; each run is uploaded, sorted on the GPU, downloaded and appended to a
// temporary file; a streaming k-way merge (loser tree, bounded buffers per run) then writes the output.
//
//   vksort::Device gpu;
//   vksort::external::ExternalOptions o;
//   o.input = "keys.bin"; o.output = "sorted.bin"; o.sort.key = vksort::Key::f32;
//   o.memory_bytes = 1ull << 30;
//   vksort::external::sort_file(gpu, o);
//
// Order: that of every vksort sort (floats in IEEE total order, descending the exact reverse), and
// stable across runs: equal keys keep their input order (runs are cut in input order and the merge
// breaks ties by run index), with their values or records.
//
// Files: temporary run data lives in files in temp_dir (keys and values apart, and a second pair when
// the merge takes several passes) that have no name from the start (O_TMPFILE, or unlinked as soon as
// they are opened), so nothing is left behind however the process ends (an exception, SIGINT, SIGKILL).
// They take as much space as the input's keys and values, twice that with more than one merge pass
// (ExternalStats::merge_passes), none for an input that fits one run. The outputs are written to
// unnamed files beside them (O_TMPFILE, or a hidden temporary where the filesystem lacks it, which a
// SIGKILL leaves behind) and, once all are complete on the disk, given hidden names and renamed into
// place, so they appear whole or not at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/types.hpp"

namespace vksort::external {

// Bad input rather than a failure to process it: a path that does not exist or cannot be created, a
// file whose size is not a whole number of keys, a values file that does not match the keys, a budget
// too small to work in. result() is VK_SUCCESS, code() invalid_argument.
class InputError : public Error {
 public:
  using Error::Error;
};

// Where a sort is, for progress bars: phase "runs" (reading, sorting, writing runs) or "merge";
// `done` and `total` count bytes of keys and values handled in this phase.
struct ExternalProgress {
  std::string phase;
  uint64_t done = 0;
  uint64_t total = 0;
  // Phase "runs": runs written so far. Phase "merge": which group of runs this merge pass is merging
  // (0, 1, ...; a pass merges as many runs at once as the budget allows, and the last pass one group).
  uint64_t run = 0;
  uint64_t runs = 0;  // the runs the input needs
};

struct ExternalOptions {
  std::filesystem::path input;   // keys: raw little-endian keys of sort.key, one after another
  std::filesystem::path output;  // sorted keys (may be the input: replaced only once complete)
  // Values: both empty (keys only) or both given; sort.value_bytes bytes per key (4, or a record of a
  // multiple of 4 up to 256; 0 is taken as 4 when values are given).
  std::filesystem::path values_input;
  std::filesystem::path values_output;
  // Files with a header before their data (e.g. NumPy .npy): the inputs' data start at these byte
  // offsets (the rest of each file is keys or values), and each output begins with its header bytes,
  // written as given. Defaults: raw files.
  uint64_t input_data_at = 0;
  uint64_t values_input_data_at = 0;
  std::vector<std::byte> output_header;
  std::vector<std::byte> values_output_header;
  SortOptions sort;  // key, order, algorithm, value_bytes, tuning as for any Sorter
  // Host memory the sort may use for its buffers, in bytes (0: half of MemAvailable). A run holds at
  // most half of it (one run is read while the one before is sorted and written); the merge splits it
  // among the runs it merges and its output (merging in several passes when there are too many runs).
  uint64_t memory_bytes = 0;
  // Device memory one run may use, keys, values and scratch together (0: 90% of the device-local heap
  // the Device reports, which DeviceOptions::pretend.device_memory lowers).
  uint64_t device_bytes = 0;
  // Upload the next run while the current one is sorted, in a second set of device buffers (which
  // makes runs smaller: two sets of keys and values share the device with one scratch). -1: on, except
  // on a CPU device (lavapipe), where "transfers" and sorts share the same cores and the smaller runs
  // only cost; 0: off; 1: on.
  int overlap = -1;
  // Folder for the temporary run data (empty: the output's folder; for an output that is no regular
  // file, a pipe or a device, the temporary folder: $TMPDIR, else /tmp).
  std::filesystem::path temp_dir;
  // Also prove the result right before it replaces the output, without holding it in memory: the
  // output's keys in order, and the same (key, value) records as the input (sums of a 64-bit hash of
  // every record). A failure throws vksort::Error and leaves the output untouched. Costs one hash per
  // record read and written, on the calling thread.
  bool check = false;
  // Called from the calling thread after every run and every merge step; may throw to cancel (the
  // exception propagates, and nothing is left behind).
  std::function<void(const ExternalProgress&)> progress;
};

// What one out-of-core sort did and where its time went (seconds of wall time on the calling thread,
// except read_s and upload_s, which are the second thread's and overlap the others).
struct ExternalStats {
  uint64_t n = 0;          // keys sorted
  uint64_t runs = 0;       // sorted runs the input was cut into (1 when it fitted at once)
  uint64_t run_keys = 0;   // keys per run (the last may hold fewer)
  uint64_t merge_passes = 0;  // 0 for one run, 1 when every run fitted one merge
  bool overlapped = false;    // uploads overlapped sorts (two sets of device buffers)
  // total_s and write_s include flushing the outputs to the disk and renaming them into place.
  double read_s = 0, upload_s = 0, sort_s = 0, download_s = 0, write_s = 0, merge_s = 0, total_s = 0;
  uint64_t bytes = 0;      // bytes of keys and values in the input
};

// The budget used when ExternalOptions::memory_bytes is 0: half of MemAvailable (1 GiB without /proc).
uint64_t default_memory_bytes();

// MemAvailable (/proc/meminfo): the host memory that can be given out without swapping, in bytes; 0
// where it is not known (no /proc).
uint64_t available_host_memory();

// Sorts options.input (and values_input) into options.output (and values_output). Throws InputError
// for bad input (see above; code invalid_argument) and vksort::Error for a failure while doing valid
// work: code io_error for a full disk, an I/O error or an input that changed while being read (naming
// the file), a device's codes for a device error; either way the outputs are untouched and no
// temporary file remains.
ExternalStats sort_file(Device& device, const ExternalOptions& options);

// The same for data in host memory larger than the device: keys_in (n keys of sort.key) and values_in
// (empty, or n * sort.value_bytes bytes) are read, the sorted result written to keys_out and
// values_out (same sizes; the two outputs must not overlap each other, InputError otherwise; either
// may be or overlap an input: every key and value is read before the first output byte is written). memory_bytes, device_bytes and progress
// as above; input/output paths, their data offsets and headers, and temp_dir are ignored. The sorted runs are kept in host memory
// allocated for the call (as large as the input, twice when the merge needs several passes) beside
// the budget, which is what makes this entry point cheap. Where an output overlaps an input (in place)
// and the input takes several runs, it is always twice: the merged result is held apart and reaches
// the outputs only once complete (and checked), so that an exception, such as the progress callback
// cancelling the merge, leaves the input as it was (other outputs may then be partly written).
ExternalStats sort_memory(Device& device, std::span<const std::byte> keys_in,
                                     std::span<const std::byte> values_in, std::span<std::byte> keys_out,
                                     std::span<std::byte> values_out, const ExternalOptions& options);

}  // namespace vksort::external
