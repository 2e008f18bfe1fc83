// SPDX-License-Identifier: MIT
// vksort — the command-line tool: wires the subcommands to their options and turns every failure into
// one line on stderr and an exit code (cli_error.hpp: 2 = fix your input, 1 = it failed at run time).
#include <algorithm>
#include <cctype>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <vksort/vksort.hpp>

#include "io/atomic_file.hpp"
#include "cli_checks.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "counts.hpp"
#include "distributions.hpp"

namespace {

using namespace vksort::cli;
namespace io = vksort::io;

using vksort::cli_checks::add_list_option;  // comma lists that refuse an empty item
using vksort::cli_checks::decimal_integer;
using vksort::cli_checks::not_negative;

// For the tuning overrides, whose 0 inside Tuning means "the device's default": on the command line a 0
// is a mistake (e.g. a script's empty variable), not a request, so it is refused rather than ignored.
const CLI::Validator override_size(
    [](std::string& v) {
      if (v.empty()) return std::string("an empty value is no size: leave the option out for the device's default");
      if (v.starts_with('-')) return v + " is negative";
      if (!v.empty() && v.find_first_not_of('0') == std::string::npos)
        return v + " is no size: leave the option out for the device's default";
      return std::string();
    },
    "", "a size");

// Options every subcommand takes. They are added to each subcommand (so that `vksort sort --device 1`
// works and `vksort sort --help` shows them) and to the top level (`vksort --device 1 sort`).
void add_global_options(CLI::App& app, GlobalOptions& g) {
  app.add_option("--device", g.device,
                 "Device: index (see 'vksort info') or case-insensitive name substring. "
                 "Default: $VKSORT_DEVICE, else the best usable device")
      ->type_name("SEL")
      ->group("Global options");
  app.add_flag("--validation", g.validation,
               "Enable VK_LAYER_KHRONOS_validation; any message it reports fails the command "
               "(default: on if $VKSORT_VALIDATION=1)")
      ->group("Global options");
}

void add_tuning_options(CLI::App& app, TuningOptions& t) {
  app.add_option("--workgroup-size", t.workgroup_size, "Override the workgroup size (a power of two, or for the single-pass radix sort's ballot and match rankings any multiple of the subgroup size, or one subgroup or less; default: per device)")
      ->type_name("N")->transform(decimal_integer)
      ->check(override_size)
      ->group("Tuning");
  app.add_option("--items-per-thread", t.items_per_thread, "Override the keys per invocation in a tile (a power of two, or any number for the single-pass radix sort's ballot and match rankings)")
      ->type_name("N")->transform(decimal_integer)
      ->check(override_size)
      ->group("Tuning");
  app.add_option("--radix-bits", t.radix_bits, "Radix sort: digit width of a pass, 2, 4 or 8 (default: per device)")
      ->type_name("B")->transform(decimal_integer)
      ->check(override_size)
      ->group("Tuning");
  app.add_option("--radix-ranking", t.radix_ranking,
                 "Radix sort: how blocks rank keys, splits (four-way, wide workgroups; reduce-then-scan), columns "
                 "(per-invocation counters, small workgroups), ballot (subgroup multisplit; single pass) or match "
                 "(ballot's multisplit by subgroup partitions, VK_NV_shader_subgroup_partitioned; single pass) "
                 "(default: auto, by the block's shape)")
      ->type_name("R")
      ->group("Tuning");
  app.add_option("--radix-scan", t.radix_scan,
                 "Radix sort: single-pass (Onesweep with Decoupled Fallback: one dispatch per digit) or "
                 "reduce-then-scan (count, scan, scatter per digit) (default: auto, per device)")
      ->type_name("S")
      ->group("Tuning");
  app.add_option("--radix-staging", t.radix_staging,
                 "Single-pass radix sort, ballot and match rankings: how a tile's keys reach the output, direct, late "
                 "(through the tile in shared memory after the look-back) or early (each key staged when ranked, "
                 "in shared memory of its own) (default: auto, early where it fits)")
      ->type_name("S")
      ->group("Tuning");
  app.add_option("--lookback-window", t.lookback_window,
                 "Single-pass radix sort: predecessor tiles each look-back round reads per digit after the first, "
                 "1 to 32 (default: per device)")
      ->type_name("W")->transform(decimal_integer)
      ->check(override_size)
      ->group("Tuning");
  app.add_option("--samples", t.samples, "Sample sort: samples per sublist, s (power of two up to the tile; default: per device)")
      ->type_name("S")->transform(decimal_integer)
      ->check(override_size)
      ->group("Tuning");
}

// CLI11 messages are sentences without the program name; keep the one-line "vksort: " form.
std::string one_line(std::string text) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

int fail(int code, const std::string& message) {
  std::cerr << "vksort: " << one_line(message) << '\n';
  return code;
}

// The word where a command was expected, when it is none of them: CLI11 reported "vksort sortt a.bin
// o.bin" as "The following arguments were not expected: o.bin a.bin sortt" (the words backwards, and no
// word that a command was wanted). Empty when an unknown option comes first (CLI11 names that itself).
std::string unknown_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--device") {
      ++i;  // its value
      continue;
    }
    if (arg.starts_with("--device=") || arg == "--validation") continue;
    if (arg.starts_with('-')) return {};
    return std::string(arg);
  }
  return {};
}

// `arg` as a POSIX shell word: as it is where it holds only characters no shell treats specially, else
// in single quotes (a quote inside as '\'').
std::string shell_quoted(std::string_view arg) {
  const auto plain = [](unsigned char c) { return std::isalnum(c) || std::string_view("_@%+=:,./-").find(char(c)) != std::string_view::npos; };
  if (!arg.empty() && std::all_of(arg.begin(), arg.end(), plain)) return std::string(arg);
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string distribution_list() {
  std::string s;
  for (auto name : vksort::workloads::distribution_names()) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  io::install_cleanup_on_signals();

  CLI::App app{"vksort: sort binary files of keys on any Vulkan GPU, and benchmark the sorts", "vksort"};
  // A repeated option takes its last value, so scripts can append overrides; lists (take_all) append.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", std::string("vksort ") + vksort::version(), "Print the version and exit");
  // At most one here; "none" is reported after parsing, so that an unknown option is named as such
  // instead of hidden behind CLI11's "a subcommand is required".
  app.require_subcommand(0, 1);
  app.footer("Exit status: 0 success, 2 bad command line or input (nothing was written), 1 failure while running.\n");
  GlobalOptions global;
  add_global_options(app, global);

  CLI::App* info = app.add_subcommand("info", "List the Vulkan devices and the chosen device's limits");
  add_global_options(*info, global);
  std::string info_format = "text";
  info->add_option("--format", info_format, "text or json (one object: devices, the chosen one's limits, auto's choices)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FMT");

  SortCommand sort;
  CLI::App* sort_cmd = app.add_subcommand("sort", "Sort a file of keys (and values) into new files: raw binary or NumPy .npy");
  sort_cmd->add_option("INPUT", sort.input,
                       "Keys: raw little-endian binary, one key after another, or a 1-D .npy array (dtype u4 i4 f4 u8 i8 f8)")
      ->required();
  sort_cmd->add_option("OUTPUT", sort.output,
                       "Sorted keys (may be INPUT; replaced only once the sort succeeded); a name ending .npy is "
                       "written as .npy")->required();
  sort_cmd->add_option("--algo", sort.algorithm,
                       "Algorithm: auto, brick, radix or sample (default: auto, the best this build has for the device)")
      ->type_name("ALGO");
  sort_cmd->add_option("--type", sort.type,
                       "Key type of a raw INPUT: u32 i32 f32 u64 i64 f64 (default: u32; a .npy file's dtype says)")
      ->type_name("TYPE");
  sort_cmd->add_flag("--descending", sort.descending, "Sort largest first (floats: IEEE total order reversed)");
  sort_cmd->add_option("--variant", sort.variant, "Brick sort variant: blocks or pairs (default: blocks; other algorithms ignore it)")->type_name("V");
  sort_cmd->add_option("--values", sort.values_in,
                       "Values to carry with the keys: 32 bits each, one per key (raw), or a 1-D .npy array whose "
                       "dtype gives their size")
      ->type_name("IN");
  sort_cmd->add_option("--values-out", sort.values_out, "Where the values go, in the keys' sorted order")
      ->type_name("OUT");
  sort_cmd->add_option("--value-bytes", sort.value_bytes,
                       "Bytes of one value in --values: 4 (default) or a record of a multiple of 4 up to 256 bytes, "
                       "moved whole with its key")
      ->type_name("N")->transform(decimal_integer)
      ->check(not_negative);
  sort_cmd->add_option("--begin-bit", sort.begin_bit,
                       "Radix sort only: order by bits [BEGIN, END) of the encoded key (default 0); keys equal "
                       "in them keep their input order")
      ->type_name("BEGIN")->transform(decimal_integer);
  sort_cmd->add_option("--end-bit", sort.end_bit, "Radix sort only: end of the bit range (default 0: the key's width)")
      ->type_name("END")->transform(decimal_integer);
  sort_cmd->add_flag("--check", sort.check, "Also compare the result with a CPU reference sort before writing (out of core: check its order and that it "
                    "holds the input's keys and values, by hashes)");
  sort_cmd->add_flag("-v,--verbose", sort.verbose, "Print the GPU time, phases and algorithm facts");
  sort_cmd->add_option("--memory", sort.memory,
                       "Host memory the sort may use, e.g. 4G (default: half of MemAvailable); a larger input is "
                       "sorted out of core: GPU-sorted runs in temporary files, then merged")
      ->type_name("BYTES");
  sort_cmd->add_option("--tmp-dir", sort.tmp_dir, "Folder for an out-of-core sort's temporary runs (default: OUTPUT's folder)")
      ->type_name("DIR");
  sort_cmd->add_option("--device-memory", sort.device_memory,
                       "Pretend the device holds only this many bytes (to try the out-of-core path on a large device)")
      ->type_name("BYTES");
  sort_cmd->add_flag("--mpi", sort.mpi,
                     "Sort with every rank of an mpirun, one raw file in and out (MPI-IO): "
                     "'mpirun -np 4 vksort sort --mpi IN OUT --type u64'. Runs vksort-mpi (built with VKSORT_MPI)")
      ->group("Distributed (MPI)");
  sort_cmd->add_flag("--keep-counts", sort.keep_counts,
                     "With --mpi: rebalance so that each rank ends with as many keys as it read")
      ->group("Distributed (MPI)");
  add_tuning_options(*sort_cmd, sort.tuning);
  add_global_options(*sort_cmd, global);
  sort_cmd->footer("Floats sort in IEEE total order: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN. "
                   "Every algorithm is stable: equal keys, and their values, keep their input order. "
                   "The result is always checked to be sorted before it replaces OUTPUT. Inputs larger than the "
                   "device or --memory are sorted out of core, stably too, with a progress bar on a terminal.\n");

  BenchCommand bench;
  CLI::App* bench_cmd = app.add_subcommand("bench", "Time GPU sorts against CPU baselines, checking every result");
  add_list_option(*bench_cmd, "--algo", bench.algorithms, "Algorithms, comma-separated: auto, brick, radix, sample (default: auto)")
      ->type_name("ALGO[,...]");
  add_list_option(*bench_cmd, "--type", bench.types, "Key types, comma-separated (default: u32)")
      ->type_name("TYPE[,...]");
  bench_cmd->add_flag("--descending", bench.descending, "Sort largest first");
  bench_cmd->add_flag("--values", bench.values, "Carry a 32-bit value with every key");
  bench_cmd->add_option("--value-bytes", bench.value_bytes,
                        "Carry a record of N bytes with every key instead (a multiple of 4 up to 256; implies --values)")
      ->type_name("N")->transform(decimal_integer)
      ->check(not_negative);
  add_list_option(*bench_cmd, "--variant", bench.variants, "Brick sort variants, comma-separated: blocks, pairs (default: blocks)")
      ->type_name("V[,...]");
  add_list_option(*bench_cmd, "--n", bench.sizes, std::string("Key counts, comma-separated, e.g. ") + count_examples +
                                                      " (k, M, G are powers of 1024; default: 65536,262144)")
      ->type_name("N[,...]");
  add_list_option(*bench_cmd, "--dist", bench.distributions,
                        "Input distributions, comma-separated, optionally name:param (default: uniform,nearly_sorted)")
      ->type_name("D[,...]");
  bench_cmd->add_option("--repeat", bench.repeat, "Timed runs per case, after the warm-ups (default: 5)")->type_name("R")->transform(decimal_integer);
  bench_cmd->add_option("--warmup", bench.warmup, "Untimed runs per case before the timed ones, each checked too (default: 1)")
      ->type_name("W")->transform(decimal_integer);
  bench_cmd->add_option("--warmup-ms", bench.warmup_ms,
                        "Warm up for at least this many milliseconds too (default: 0): a GPU raises its clocks only "
                        "after some time under load")
      ->type_name("MS")->transform(decimal_integer)
      ->check(not_negative);
  bench_cmd->add_flag("--resident", bench.resident,
                      "Keep the GPU busy between runs: the timed runs (and the warm-up's, in batches) go back to back in one "
                      "submission, each run's input restored and its result kept by GPU copies, all results checked after "
                      "the last run (a GPU left idle between runs lowers its clocks). "
                      "Needs repeat + 3 times the case's data in device memory");
  bench_cmd->add_flag("--phase-clocks", bench.phase_clocks,
                      "Diagnostic: single-pass radix passes read the shader clock per phase of each tile; the facts "
                      "(table: 'clocks') give each phase's share and the ticks per tile. Needs VK_KHR_shader_clock");
  bench_cmd->add_flag("--no-cpu", bench.no_cpu,
                      "Time no CPU baselines (results are still checked against the CPU reference): for large n on GPUs");
  bench_cmd->add_option("--seed", bench.seed, "Seed of the generated inputs (default: 1)")
      ->type_name("S")->transform(decimal_integer)
      ->check(not_negative);
  bench_cmd->add_option("--suite", bench.suite,
                        "Run a named suite instead: paper (the papers' experiments, sized for the device)")
      ->type_name("NAME");
  bench_cmd->add_option("--max-n", bench.max_n, "With --suite: the largest size (default: 2^20 on CPU devices, else 2^24)")
      ->type_name("N");
  bench_cmd->add_option("--json", bench.json, "Also write the results as JSON to this file")->type_name("FILE");
  bench_cmd->add_option("--format", bench.format,
                        "table (default), csv or json: the form of stdout, or with --out of that file")
      ->type_name("F");
  bench_cmd->add_option("--out", bench.out, "Write the results as csv or json to this file (the table stays on stdout)")
      ->type_name("FILE");
  add_tuning_options(*bench_cmd, bench.tuning);
  add_global_options(*bench_cmd, global);
  bench_cmd->footer("Distributions: " + distribution_list() +
                    ". GPU times come from GPU timestamps (n/a where the device has none).\n");

  BucketBenchCommand buckets;
  CLI::App* buckets_cmd = app.add_subcommand(
      "bench-buckets", "Time bucket-list builds and resorts (Rozen et al., Tables 1-3), checking every run's lists");
  add_list_option(*buckets_cmd, "--n", buckets.sizes, "Element counts, comma-separated (default: 64k,256k,1M)")
      ->type_name("N[,...]");
  add_list_option(*buckets_cmd, "--per-bucket", buckets.per_bucket,
                          "Table 1: average elements per bucket, comma-separated (default: 1,2,4,8,16)")
      ->type_name("K[,...]");
  add_list_option(*buckets_cmd, "--moved", buckets.moved, "Table 2: percent of elements moved before a resort (default: 0,2,10,25,50,100)")
      ->type_name("P[,...]");
  add_list_option(*buckets_cmd, "--parts", buckets.parts,
                  "Table 1: partial update, comma-separated: auto or a number of parts (1 = off; default: auto)")
      ->type_name("P[,...]");
  add_list_option(*buckets_cmd, "--tables", buckets.tables, "Which tables, comma-separated (default: 1,2,3)")
      ->type_name("T[,...]");
  buckets_cmd->add_option("--grid-per-bucket", buckets.grid_per_bucket,
                          "Tables 2 and 3: average elements per bucket (default: 4, as 2^20 particles in 64^3 cells)")
      ->type_name("K")
      ->check(vksort::cli_checks::finite_non_negative);
  buckets_cmd->add_option("--rebuild-above", buckets.rebuild_above,
                          "Tables 2 and 3: resorts build instead above this share of moved elements (1: never; "
                          "default: the library's)")
      ->type_name("F")->check(vksort::cli_checks::finite_within(0.0, 1e9));
  buckets_cmd->add_flag("--chained", buckets.chained,
                        "Table 2: time resorts of a resort (a simulation's steps) instead of resorts right after a build");
  buckets_cmd->add_option("--repeat", buckets.repeat, "Timed runs per case, after one warm-up (default: 3)")->type_name("R")->transform(decimal_integer);
  buckets_cmd->add_option("--seed", buckets.seed, "Seed of the bucket ids (default: 1)")->type_name("S")->transform(decimal_integer)->check(not_negative);
  buckets_cmd->add_option("--format", buckets.format, "stdout's form: table (default), csv or json")->type_name("F");
  buckets_cmd->add_option("--json", buckets.json, "Also write the results as JSON to this file")->type_name("FILE");
  add_global_options(*buckets_cmd, global);

  SplatBenchCommand splat;
  CLI::App* splat_cmd = app.add_subcommand(
      "bench-splat", "Time a Gaussian-splat renderer's per-frame depth sort: GPU cull, then a sort of a GPU-side count");
  add_list_option(*splat_cmd, "--n", splat.sizes, "Splats in the scene, comma-separated, e.g. 1M,6M (default: 1M)")
      ->type_name("N[,...]");
  splat_cmd->add_option("--frames", splat.frames, "Timed frames per size, after one warm-up frame (default: 5)")
      ->type_name("F")->transform(decimal_integer);
  splat_cmd->add_option("--width", splat.width, "Camera width in pixels (default: 1920)")->type_name("W")->transform(decimal_integer)->check(not_negative);
  splat_cmd->add_option("--height", splat.height, "Camera height in pixels (default: 1080)")->type_name("H")->transform(decimal_integer)->check(not_negative);
  splat_cmd->add_option("--format", splat.format, "stdout's form: table (default), csv or json")->type_name("F");
  splat_cmd->add_option("--json", splat.json, "Also write the results as JSON to this file")->type_name("FILE");
  add_global_options(*splat_cmd, global);
  splat_cmd->footer("Every frame, the warm-up's too, is checked against std::stable_sort of the pairs the cull wrote; "
                    "a wrong frame fails the run (exit 1). The camera turns between frames.\n");

  TuneCommand tune;
  CLI::App* tune_cmd = app.add_subcommand(
      "tune", "Measure where brick, radix and sample sort overtake each other here, radix sort's digit width and (GPUs) "
              "the single pass's tile shape, and save them for --algo auto and radix sorts that leave them to the device");
  tune_cmd->add_option("--max-n", tune.max_n, "Largest size measured (default: 2^20 on CPU devices, else 2^24)")
      ->type_name("N");
  tune_cmd->add_option("--repeat", tune.repeat, "Timed runs per size, after one warm-up (default: 3)")->type_name("R")->transform(decimal_integer);
  tune_cmd->add_option("--seed", tune.seed, "Seed of the keys (default: 1)")->type_name("S")->transform(decimal_integer)->check(not_negative);
  tune_cmd->add_option("--out", tune.out, "Save the profile here instead of the user's cache folder")->type_name("FILE");
  tune_cmd->add_flag("--dry-run", tune.dry_run, "Measure and print, save nothing");
  add_global_options(*tune_cmd, global);

  if (const std::string empty = vksort::cli_checks::empty_value_option(argc, argv); !empty.empty())
    return fail(exit_usage, empty + " (see 'vksort --help')");
  vksort::cli_checks::decimal_integer_options(app);
  try {
    app.parse(argc, argv);
    // Quoted as a POSIX shell reads it, so the JSON's command line repeats the run (`--json "my file.json"`
    // was written unquoted).
    for (int i = 0; i < argc; ++i) bench.command_line += (i ? " " : "") + shell_quoted(argv[i]);
    buckets.command_line = bench.command_line;
    splat.command_line = bench.command_line;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version: output too, which must reach stdout (not `> /dev/full`)
      app.exit(e);
      std::cout.flush();
      return std::cout ? exit_ok : fail(exit_runtime, "writing standard output failed");
    }
    if (const std::string word = unknown_command(argc, argv);
        app.get_subcommands().empty() && dynamic_cast<const CLI::ExtrasError*>(&e) && !word.empty())
    {
      std::string commands;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        commands += (commands.empty() ? "" : ", ") + sub->get_name();
      return fail(exit_usage, "unknown command '" + word + "': the commands are " + commands + " (see 'vksort --help')");
    }
    std::string where = "vksort";
    for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    return fail(exit_usage, std::string(e.what()) + " (see '" + where + " --help')");
  }
  if (const std::string empty = vksort::cli_checks::empty_value_given(app); !empty.empty()) {
    std::string where = "vksort";
    for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    return fail(exit_usage, empty + " (see '" + where + " --help')");
  }

  if (app.get_subcommands().empty())
    return fail(exit_usage, "no command given: use info, sort, bench, bench-buckets, bench-splat or tune (see 'vksort --help')");

  const int status = [&]() -> int {
    try {
      if (*info) return run_info(global, info_format);
      if (*sort_cmd) {
        if (sort.mpi) run_sort_mpi(global, sort);
        if (sort.keep_counts) throw UsageError("--keep-counts needs --mpi (it rebalances the ranks of a distributed sort)");
        return run_sort(global, sort);
      }
      if (*buckets_cmd) return run_bench_buckets(global, buckets);
      if (*splat_cmd) return run_bench_splat(global, splat);
      if (*tune_cmd) return run_tune(global, tune);
      return run_bench(global, bench);
    } catch (const UsageError& e) {
      return fail(exit_usage, e.what());
    } catch (const RuntimeFailure& e) {
      return fail(exit_runtime, e.what());
    } catch (const io::FileError& e) {
      // An output path that cannot take a file is the command line's fault; a failed write is not.
      return fail(e.kind() == io::FileError::Kind::destination ? exit_usage : exit_runtime, e.what());
    } catch (const vksort::Error& e) {
      return fail(exit_runtime, e.what());
    } catch (const std::bad_alloc&) {
      return fail(exit_runtime, "out of host memory");
    } catch (const std::exception& e) {
      return fail(exit_runtime, e.what());
    }
  }();
  // What a command prints on stdout (tables, JSON, -v lines) is output too: a write that failed (a full
  // disk, `> /dev/full`) must not end in success.
  std::cout.flush();
  if (status == exit_ok && !std::cout) return fail(exit_runtime, "writing standard output failed");
  return status;
}
