// commands.hpp — the subcommands' options (filled in by main.cpp's command line) and their entry
// points. Each returns the exit code or throws (cli_error.hpp); main turns throws into one line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "open_device.hpp"

namespace vksort::cli {

// Knobs that are normally chosen per device (SortOptions::tuning); 0 = let vksort choose.
struct TuningOptions {
  uint32_t workgroup_size = 0;
  uint32_t items_per_thread = 0;
  uint32_t samples = 0;  // sample sort's s
};

struct SortCommand {
  std::string algorithm = "auto";
  std::string type = "u32";
  bool descending = false;
  std::string variant = "blocks";
  std::string values_in;
  std::string values_out;
  std::string input;
  std::string output;
  bool check = false;
  bool verbose = false;
  TuningOptions tuning;
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
  int64_t repeat = 5;
  uint64_t seed = 1;
  std::string json;  // also write the results here, when given
  TuningOptions tuning;
};

int run_info(const GlobalOptions& global);
int run_sort(const GlobalOptions& global, const SortCommand& command);
int run_bench(const GlobalOptions& global, const BenchCommand& command);

}  // namespace vksort::cli
