// SPDX-License-Identifier: MIT
// `vksort sort --mpi IN OUT`: the distributed sort under mpirun, spelt like the single-process sort.
// The work is vksort-mpi's (apps/vksort-mpi): this process checks the request, then replaces itself by
// vksort-mpi with the same arguments. The vksort CLI therefore never links MPI (it runs where no MPI
// is installed), and each rank of `mpirun -np 4 vksort sort --mpi ...` becomes a vksort-mpi rank: exec
// keeps the process, so the launcher's environment reaches MPI_Init unchanged.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"
#include "npy_file.hpp"

namespace vksort::cli {

namespace fs = std::filesystem;

namespace {

// The options of `vksort sort` that the distributed sort has no equivalent for: refused by name, so
// nobody believes an option took effect that did not.
void refuse_unsupported(const SortCommand& c) {
  auto refuse = [](const std::string& option) {
    throw UsageError(option + " is not available with --mpi (the distributed sort takes --type, --descending, "
                              "--algo, --device, --keep-counts and -v)");
  };
  if (!c.values_in.empty() || !c.values_out.empty() || c.value_bytes != -1) refuse("--values");
  if (c.check) refuse("--check");
  if (c.begin_bit != 0 || c.end_bit != 0) refuse("--begin-bit/--end-bit");
  if (c.variant != "blocks") refuse("--variant");
  if (!c.memory.empty()) refuse("--memory");
  if (!c.tmp_dir.empty()) refuse("--tmp-dir");
  if (!c.device_memory.empty()) refuse("--device-memory");
  const TuningOptions none;
  const TuningOptions& t = c.tuning;
  if (t.workgroup_size != none.workgroup_size || t.items_per_thread != none.items_per_thread ||
      t.samples != none.samples || t.radix_bits != none.radix_bits || t.radix_ranking != none.radix_ranking ||
      t.radix_scan != none.radix_scan || t.lookback_window != none.lookback_window || t.radix_staging != none.radix_staging)
    refuse("tuning (--workgroup-size, --items-per-thread, --samples, --radix-*, --lookback-window)");
  if (is_npy_path(c.input) || is_npy_path(c.output))
    throw UsageError("--mpi reads and writes raw files (MPI-IO, each rank its slice), not .npy: give --type and "
                     "raw files");
}

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// vksort-mpi beside this executable (an install's bin/), in the build tree's sibling folder
// (apps/vksort-mpi/), else on PATH.
std::string find_vksort_mpi() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate : {self.parent_path() / "vksort-mpi",
                                      self.parent_path().parent_path() / "vksort-mpi" / "vksort-mpi"})
      if (is_executable(candidate)) return candidate.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::string list = path;
    for (size_t start = 0; start <= list.size();) {
      const size_t end = std::min(list.find(':', start), list.size());
      const fs::path candidate = fs::path(list.substr(start, end - start).empty() ? "." : list.substr(start, end - start)) /
                                 "vksort-mpi";
      if (is_executable(candidate)) return candidate.string();
      start = end + 1;
    }
  }
  throw UsageError("--mpi needs vksort-mpi (the distributed sort, built when CMake finds MPI: VKSORT_MPI) beside "
                   "this vksort or on PATH, and there is none");
}

}  // namespace

void run_sort_mpi(const GlobalOptions& global, const SortCommand& c) {
  refuse_unsupported(c);
  const std::string tool = find_vksort_mpi();
  std::vector<std::string> args = {tool, "sort"};
  if (!c.type.empty()) args.insert(args.end(), {"--type", c.type});
  if (c.descending) args.push_back("--descending");
  args.insert(args.end(), {"--algo", c.algorithm});
  if (!global.device.empty()) args.insert(args.end(), {"--device", global.device});
  if (c.keep_counts) args.push_back("--keep-counts");
  if (c.verbose) args.push_back("--verbose");
  // The file names last, after "--": a name starting with '-' is then no option to vksort-mpi either.
  args.insert(args.end(), {"--", c.input, c.output});
  // vksort-mpi has no --validation flag; the environment variable is what every vksort Device reads.
  if (global.validation && ::setenv("VKSORT_VALIDATION", "1", 1) != 0)
    throw RuntimeFailure(std::string("--validation: cannot set VKSORT_VALIDATION: ") + std::strerror(errno));

  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(tool.c_str(), argv.data());
  throw RuntimeFailure("--mpi: cannot run " + in_quotes(tool) + ": " + std::strerror(errno));
}

}  // namespace vksort::cli
