// SPDX-License-Identifier: MIT
// vksort-mpi — the distributed sort from the command line, run under mpirun:
//   mpirun -np 4 vksort-mpi sort in.bin out.bin --type u64     one file sorted by all ranks (MPI-IO)
//   mpirun -np 4 vksort-mpi bench --n 4M [--weak]              strong or weak scaling, time split
// A tool of its own rather than `vksort sort --mpi`, so that the vksort CLI (and its package) never
// links MPI. Every failure is one line "vksort-mpi: ..." on every rank and the same exit code on all:
// 2 bad command line or input (nothing written), 1 failure while running.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <vksort/mpi.hpp>
#include <vksort/vksort.hpp>

#include "cli_checks.hpp"
#include "npy_path.hpp"
#include "counts.hpp"
#include "distributions.hpp"
#include "host_keys.hpp"
#include "io/atomic_file.hpp"
#include "mpi_file.hpp"
#include "reference_sort.hpp"
#include "steps.hpp"

namespace vksort::mpi_cli {

struct Common {
  std::string type = "u32";
  bool descending = false;
  std::string algorithm = "auto";
  std::string device;
  bool keep_counts = false;
};

struct SortArgs {
  std::string input, output;
  bool verbose = false;
};

struct BenchArgs {
  std::string n = "1M";
  bool weak = false;
  int repeat = 5;
  std::string distribution = "uniform";
  uint64_t seed = 1;
  std::string json;
};

namespace {

namespace fs = std::filesystem;

Key key_of_option(const std::string& type) {
  const auto key = parse_key(type);
  if (!key) throw Failure(exit_usage, "--type " + in_quotes(type) + " is not one of u32 i32 f32 u64 i64 f64");
  return *key;
}

mpi::Options options_of(const Common& c) {
  mpi::Options o;
  o.order = c.descending ? Order::descending : Order::ascending;
  const std::string algo = c.algorithm == "auto" ? "automatic" : c.algorithm;
  const auto a = parse_algorithm(algo);
  if (!a) throw Failure(exit_usage, "--algo " + in_quotes(c.algorithm) + " is not one of auto brick radix sample");
  o.algorithm = *a;
  o.keep_counts = c.keep_counts;
  return o;
}

// A selector (--device, else VKSORT_DEVICE) that names no device is a bad command line, exit 2 as
// `vksort sort --device` gives; a device that exists but fails to open stays a runtime failure (1).
void check_selector(const DeviceOptions& options) {
  const char* env = std::getenv("VKSORT_DEVICE");
  if (options.select.empty() && !(env && *env)) return;  // none given: the library picks the best
  try {
    choose_device(options);  // Device's own rule and message, from a temporary instance
  } catch (const Error& e) {
    if (e.code() == Status::Code::invalid_argument) throw Failure(exit_usage, e.what());
    throw;
  }
}

Device open_device(MPI_Comm comm, const Common& c) {
  DeviceOptions base;
  base.select = c.device;
  std::optional<Device> device;
  // device_options starts with its one collective (the node-local rank), before anything that can
  // throw (listing the devices), so every rank reaches it and the step's agreement alike.
  step(comm, [&] {
    const DeviceOptions options = mpi::device_options(comm, base);
    check_selector(options);
    device.emplace(options);
  });
  return *device;
}

// Sorts raw key bytes as K on all ranks; returns this rank's part of the result as bytes.
template <class K>
std::vector<std::byte> sort_bytes(MPI_Comm comm, Device& device, const std::vector<std::byte>& bytes,
                                  const mpi::Options& o, mpi::Stats* stats) {
  // The copies in and out are agreed steps: a rank short of memory for one threw alone, and the others
  // waited forever in the sort's (or check_sorted's) collectives.
  std::vector<K> keys;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  step(comm, [&] {
    test_fault_nomem(rank);
    keys.resize(bytes.size() / sizeof(K));
    if (!keys.empty()) std::memcpy(keys.data(), bytes.data(), bytes.size());
  });
  mpi::Result<K> r;
  try {
    r = mpi::sort<K>(comm, device, std::span<const K>(keys), o);
  } catch (const Error& e) {
    // Agreed by the library: every rank throws the same.
    throw Failure(exit_runtime, e.what());
  }
  *stats = r.stats;
  std::vector<std::byte> out;
  step(comm, [&] {
    out.resize(r.keys.size() * sizeof(K));
    if (!out.empty()) std::memcpy(out.data(), r.keys.data(), out.size());
  });
  return out;
}

std::vector<std::byte> sort_any(MPI_Comm comm, Device& device, Key key, const std::vector<std::byte>& bytes,
                                const mpi::Options& o, mpi::Stats* stats) {
  return workloads::with_key_type(key, [&](auto t) { return sort_bytes<decltype(t)>(comm, device, bytes, o, stats); });
}

// A wrong result must never reach the user's file: every part sorted, and every part's first key not
// before the last key of the nearest non-empty part before it.
void check_sorted(MPI_Comm comm, Key key, Order order, std::span<const std::byte> mine) {
  const uint32_t kb = key_bytes(key);
  const uint64_t n = mine.size() / kb;
  uint64_t ends[3] = {n, n ? workloads::encode_key(key, order, mine.data()) : 0,
                      n ? workloads::encode_key(key, order, mine.data() + (n - 1) * kb) : 0};
  int p = 1, rank = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  std::vector<uint64_t> all(3 * size_t(p));
  MPI_Allgather(ends, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm);
  step(comm, [&] {
    bool ok = workloads::is_sorted_encoded(key, order, mine);
    for (int r = rank - 1; ok && n && r >= 0; --r)
      if (all[3 * size_t(r)]) {
        ok = all[3 * size_t(r) + 2] <= ends[1];
        break;
      }
    if (!ok) throw Failure(exit_runtime, "the result is not sorted (output left untouched); please report this");
  });
}

// Each phase's time on the slowest rank: local sort, sampling, exchange, merge, rebalance, total.
// Collective: every rank calls it, whatever its own options.
std::array<double, 6> slowest(MPI_Comm comm, const mpi::Stats& st) {
  std::array<double, 6> t{st.local_sort_ms, st.sampling_ms, st.exchange_ms, st.merge_ms, st.rebalance_ms, st.total_ms};
  MPI_Allreduce(MPI_IN_PLACE, t.data(), int(t.size()), MPI_DOUBLE, MPI_MAX, comm);
  return t;
}

// True on every rank when any rank was given -v (collective). -v may differ between the ranks of an
// MPMD launch, and only rank 0 prints: so rank 0 reports when any rank asked.
bool any_rank(MPI_Comm comm, bool mine) {
  int any = mine ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_LOR, comm);
  return any != 0;
}

// What every rank must agree on in both commands, as parsed (so "--type u32" and no --type agree).
std::vector<Setting> common_settings(Key key, const mpi::Options& o) {
  return {{"--type", std::string(to_string(key))},
          {"the order", std::string(to_string(o.order))},
          {"--algo", std::string(to_string(o.algorithm))},
          {"--keep-counts", o.keep_counts ? "on" : "off"}};
}

// --json is appended to only at the end of the run: a path that cannot take it is refused before.
void check_appendable(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (fs::is_directory(path, ec)) throw Failure(exit_usage, "--json " + in_quotes(path) + " is a folder, not a file");
    if (::access(path.c_str(), W_OK) != 0)
      throw Failure(exit_usage, "--json " + in_quotes(path) + " is not writable: " + std::strerror(errno));
    return;
  }
  try {
    io::check_destination(path, "--json");  // the folder exists and is writable, the name not empty
  } catch (const io::FileError& e) {
    throw Failure(exit_usage, e.what());
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int run_sort(MPI_Comm comm, const Common& c, const SortArgs& a) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  Key key = Key::u32;
  mpi::Options o;
  step(comm, [&] {
    key = key_of_option(c.type);
    o = options_of(c);
    // Raw files only: a .npy file's header was sorted in among its keys (exit 0).
    if (vksort::cli::is_npy_path(a.input) || vksort::cli::is_npy_path(a.output))
      throw Failure(exit_usage, "vksort-mpi reads and writes raw files (MPI-IO, each rank its slice), not .npy: give "
                                "--type and raw files");
  });
  std::vector<Setting> same = {{"the input", a.input}, {"the output", a.output}};
  for (Setting& s : common_settings(key, o)) same.push_back(std::move(s));
  require_same(comm, same);
  check_destination(comm, a.output);
  uint64_t total = 0;
  const std::vector<std::byte> slice = read_slice(comm, a.input, key_bytes(key), &total);
  Device device = open_device(comm, c);
  mpi::Stats st;
  const std::vector<std::byte> sorted = sort_any(comm, device, key, slice, o, &st);
  check_sorted(comm, key, o.order, sorted);
  write_atomic(comm, a.output, sorted);
  // Both collectives run on every rank: a rank that skipped them (no -v here, -v on another rank) left
  // the others waiting in them forever.
  const bool verbose = any_rank(comm, a.verbose);
  const auto times = slowest(comm, st);
  if (verbose && rank == 0)
    std::printf("sorted %llu %s keys on %d ranks (%s): local sort %.2f ms, sampling %.2f ms, exchange %.2f ms, "
                "merge %.2f ms, rebalance %.2f ms, total %.2f ms (slowest rank each); largest share %llu keys "
                "(bound %llu)\n",
                (unsigned long long)total, std::string(to_string(key)).c_str(), p, device.info().name.c_str(),
                times[0], times[1], times[2], times[3], times[4], times[5], (unsigned long long)st.max_received,
                (unsigned long long)st.received_bound);
  return exit_ok;
}

int run_bench(MPI_Comm comm, const Common& c, const BenchArgs& b) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  Key key = Key::u32;
  mpi::Options o;
  uint64_t n = 0;
  workloads::DistributionSpec spec;
  step(comm, [&] {
    key = key_of_option(c.type);
    o = options_of(c);
    const auto parsed = cli::parse_count(b.n);
    if (!parsed) throw Failure(exit_usage, "--n " + in_quotes(b.n) + " is not a key count");
    n = *parsed;
    const auto d = workloads::parse_distribution(b.distribution);
    if (!d) throw Failure(exit_usage, "--dist " + in_quotes(b.distribution) + " is not a distribution");
    spec = *d;
    if (b.repeat < 1) throw Failure(exit_usage, "--repeat must be at least 1");
    // Each rank sorts its keys with vksort, whose indices are 32-bit (as `vksort bench --n` says).
    constexpr uint64_t max_per_rank = (uint64_t(1) << 31) - 1;
    const uint64_t per_rank = b.weak ? n : n / uint64_t(p) + (n % uint64_t(p) != 0);
    if (per_rank > max_per_rank)
      throw Failure(exit_usage, "--n " + b.n + " = " + std::to_string(n) + " keys" +
                                    (b.weak ? " on every rank" : ", " + std::to_string(per_rank) + " on a rank of " +
                                                                     std::to_string(p)) +
                                    ": vksort sorts at most 2^31 - 1 on one rank");
    if (rank == 0 && !b.json.empty()) check_appendable(b.json);
  });
  std::vector<Setting> same = {{"--n", std::to_string(n)},
                               {"--weak", b.weak ? "on" : "off"},
                               {"--repeat", std::to_string(b.repeat)},
                               {"--dist", workloads::to_string(spec)},
                               {"--seed", std::to_string(b.seed)},
                               // rank 0 writes it: another rank's was ignored (MPMD command lines)
                               {"--json", b.json}};
  for (Setting& s : common_settings(key, o)) same.push_back(std::move(s));
  require_same(comm, same);
  // Strong scaling: n keys in all, split evenly; weak: n keys on every rank.
  const uint64_t total = b.weak ? n * uint64_t(p) : n;
  const uint64_t mine = b.weak ? n : total / uint64_t(p) + (uint64_t(rank) < total % uint64_t(p) ? 1 : 0);
  check_host_memory(comm, mine * key_bytes(key), "--n " + b.n + (b.weak ? " on every rank" : ""));
  std::vector<std::byte> keys;
  step(comm, [&] { keys = workloads::generate_keys(key, spec, mine, b.seed * 1000003 + uint64_t(rank)); });
  Device device = open_device(comm, c);

  // One warm-up, then `repeat` timed runs; each phase's time is the slowest rank's, then the median.
  std::vector<double> phase[6];
  uint64_t largest = 0, bound = 0;
  for (int run = 0; run <= b.repeat; ++run) {
    mpi::Stats st;
    MPI_Barrier(comm);
    const std::vector<std::byte> sorted = sort_any(comm, device, key, keys, o, &st);
    if (run == 0) {
      check_sorted(comm, key, o.order, sorted);
      continue;
    }
    const auto times = slowest(comm, st);
    for (size_t i = 0; i < times.size(); ++i) phase[i].push_back(times[i]);
    largest = st.max_received, bound = st.received_bound;
  }
  // Rank 0 reports; a failure to append is agreed, so that every rank exits alike.
  step(comm, [&] {
    if (rank != 0) return;
    char line[1024];
    std::snprintf(line, sizeof line,
                  "{\"ranks\": %d, \"scaling\": \"%s\", \"key\": \"%s\", \"dist\": \"%s\", \"n_total\": %llu, "
                  "\"device\": \"%s\", \"repeat\": %d, \"local_sort_ms\": %.3f, \"sampling_ms\": %.3f, "
                  "\"exchange_ms\": %.3f, \"merge_ms\": %.3f, \"rebalance_ms\": %.3f, \"total_ms\": %.3f, "
                  "\"largest_share\": %.4f, \"largest_keys\": %llu, \"bound_keys\": %llu, \"mkeys_per_s\": %.3f}",
                  p, b.weak ? "weak" : "strong", std::string(to_string(key)).c_str(),
                  workloads::to_string(spec).c_str(), (unsigned long long)total, device.info().name.c_str(), b.repeat,
                  median(phase[0]), median(phase[1]), median(phase[2]), median(phase[3]), median(phase[4]),
                  median(phase[5]), total ? double(largest) / double(total) : 0.0, (unsigned long long)largest,
                  (unsigned long long)bound, double(total) / median(phase[5]) / 1e3);
    std::printf("%s\n", line);
    if (!b.json.empty()) {
      FILE* f = std::fopen(b.json.c_str(), "a");
      const bool written = f && std::fprintf(f, "%s\n", line) >= 0;
      if ((f && std::fclose(f) != 0) || !written)
        throw Failure(exit_runtime, "--json: cannot append to " + in_quotes(b.json));
    }
  });
  return exit_ok;
}

// One write(2) per line: the ranks share the terminal, and pieces of their lines must not interleave.
void say_error(const std::string& message) {
  const std::string line = "vksort-mpi: " + message + "\n";
  [[maybe_unused]] const ssize_t written = ::write(2, line.data(), line.size());
}

}  // namespace vksort::mpi_cli

int main(int argc, char** argv) {
  using namespace vksort::mpi_cli;
  MPI_Init(&argc, &argv);
  int code = exit_ok;
  {
    CLI::App app{"vksort-mpi: the distributed vksort sort, under mpirun", "vksort-mpi"};
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    // At most one here; none is reported after parsing, so that an unknown option is named as such
    // instead of hidden behind CLI11's "a subcommand is required" (as vksort's).
    app.require_subcommand(0, 1);
    app.footer("Exit status (the same on every rank): 0 success, 2 bad command line or input (nothing was written), "
               "1 failure while running.\n");
    Common common;
    auto add_common = [&](CLI::App& sub) {
      sub.add_option("--type", common.type, "Key type: u32 i32 f32 u64 i64 f64 (default: u32)")->type_name("TYPE");
      sub.add_flag("--descending", common.descending, "Sort largest first");
      sub.add_option("--algo", common.algorithm, "Local sort: auto, brick, radix or sample (default: auto)")
          ->type_name("ALGO");
      sub.add_option("--device", common.device,
                     "Device: index or name substring (default: $VKSORT_DEVICE, else one per rank on a node by its "
                     "node-local rank)")
          ->type_name("SEL");
      sub.add_flag("--keep-counts", common.keep_counts, "Rebalance so each rank ends with as many keys as it read");
    };
    SortArgs sort;
    CLI::App* sort_cmd = app.add_subcommand("sort", "Sort one raw file of keys with all ranks (MPI-IO), atomically");
    sort_cmd->add_option("INPUT", sort.input, "Keys: raw little-endian binary")->required();
    sort_cmd->add_option("OUTPUT", sort.output, "Sorted keys (replaced only once every rank succeeded)")->required();
    sort_cmd->add_flag("-v,--verbose", sort.verbose, "Print the time split (slowest rank) and the largest share");
    add_common(*sort_cmd);
    BenchArgs bench;
    CLI::App* bench_cmd = app.add_subcommand("bench", "Time the distributed sort: one JSON line with the time split");
    bench_cmd->add_option("--n", bench.n, "Keys in all (strong scaling) or per rank (--weak); k, M, G allowed (default: 1M)")
        ->type_name("N");
    bench_cmd->add_flag("--weak", bench.weak, "Weak scaling: --n keys on every rank");
    bench_cmd->add_option("--repeat", bench.repeat, "Timed runs after one warm-up (default: 5)")->type_name("R")->transform(vksort::cli_checks::decimal_integer);
    bench_cmd->add_option("--dist", bench.distribution, "Input distribution (default: uniform)")->type_name("D");
    bench_cmd->add_option("--seed", bench.seed, "Seed of the keys (default: 1)")
        ->type_name("S")
        ->transform(vksort::cli_checks::decimal_integer)
        ->check(vksort::cli_checks::not_negative);
    bench_cmd->add_option("--json", bench.json, "Also append the JSON line to this file")->type_name("FILE");
    add_common(*bench_cmd);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // mpirun may give each rank its own command line (`-np 1 A : -np 1 B`), so a rank's parse error
    // or request for help is kept, then agreed on by all before any other collective.
    std::string parse_error = vksort::cli_checks::empty_value_option(argc, argv), help;
    if (!parse_error.empty()) {
      parse_error += " (see 'vksort-mpi --help')";
    } else {
      vksort::cli_checks::decimal_integer_options(app);
      try {
        app.parse(argc, argv);
      } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) {
          std::ostringstream out;
          app.exit(e, out, out);
          help = out.str();
        } else {
          parse_error = e.what();
          std::replace(parse_error.begin(), parse_error.end(), '\n', ' ');
          parse_error += " (see 'vksort-mpi --help')";
        }
      }
      if (parse_error.empty() && help.empty()) {
        parse_error = vksort::cli_checks::empty_value_given(app);
        if (parse_error.empty() && app.get_subcommands().empty()) parse_error = "no command given: use sort or bench";
        if (!parse_error.empty()) parse_error += " (see 'vksort-mpi --help')";
      }
    }
    try {
      agree(MPI_COMM_WORLD, parse_error, exit_usage);
      const bool sorting = help.empty() && *sort_cmd;
      require_same(MPI_COMM_WORLD, {{"the command", !help.empty() ? "--help" : sorting ? "sort" : "bench"}});
      if (!help.empty()) {
        if (rank == 0) std::fputs(help.c_str(), stdout);
      } else {
        code = sorting ? run_sort(MPI_COMM_WORLD, common, sort) : run_bench(MPI_COMM_WORLD, common, bench);
      }
    } catch (const Failure& e) {
      say_error(e.what());
      code = e.code;
    } catch (const std::exception& e) {
      // Not agreed with the other ranks (a bug if it happens): still one line and a failing exit.
      say_error(e.what());
      code = exit_runtime;
    }
    // What rank 0 prints (the -v lines, bench's table) is output too: a write that failed (a full disk,
    // `> /dev/full`) must not end in success. (Under mpirun the launcher holds the ranks' stdout.)
    if ((std::fflush(stdout) != 0 || std::ferror(stdout)) && code == exit_ok) {
      say_error("writing standard output failed");
      code = exit_runtime;
    }
  }
  MPI_Finalize();
  return code;
}
