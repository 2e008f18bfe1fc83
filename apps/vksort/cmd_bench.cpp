// SPDX-License-Identifier: MIT
// vksort bench: GPU sort times per (configuration, distribution, n), next to CPU baselines on the same
// input. A number is only reported for a sort whose every run produced exactly the reference's bytes.
#include <algorithm>
#include <iostream>
#include <optional>
#include <thread>

#include <vksort/vksort.hpp>

#include "io/atomic_file.hpp"
#include "bench_suite.hpp"
#include "bench_report.hpp"
#include "bench_runner.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "git_commit.hpp"

namespace vksort::cli {

namespace {

// Where the results go: --format picks stdout's form (table, csv or json); --out FILE writes csv or
// json to FILE (the --format given, else the file's extension) and leaves the table on stdout.
struct OutputPlan {
  bool table_to_stdout = true;
  std::string stdout_format;  // "csv" or "json" instead of the table, or ""
  std::string file_format;    // for --out
};

OutputPlan plan_outputs(const BenchCommand& c) {
  OutputPlan plan;
  const std::string& f = c.format;
  if (!f.empty() && f != "table" && f != "csv" && f != "json")
    throw UsageError("--format: unknown format '" + f + "' (known: table, csv, json)");
  if (c.out.empty()) {
    if (f == "csv" || f == "json") {
      plan.table_to_stdout = false;
      plan.stdout_format = f;
    }
    return plan;
  }
  if (f == "csv" || f == "json") plan.file_format = f;
  else if (f == "table") throw UsageError("--out: the table goes to the terminal; use --format csv or json with --out");
  else if (c.out.ends_with(".csv")) plan.file_format = "csv";
  else if (c.out.ends_with(".json")) plan.file_format = "json";
  else throw UsageError("--out " + c.out + ": say --format csv or --format json (or name the file *.csv or *.json)");
  return plan;
}

// "r.json" -> "r-buckets.json": where a suite writes its bucket tables next to the sort results.
std::string buckets_path(const std::string& path) {
  const size_t slash = path.find_last_of('/'), dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "-buckets.json";
  return path.substr(0, dot) + "-buckets.json";
}

}  // namespace

int run_bench(const GlobalOptions& global, const BenchCommand& c) {
  if (c.repeat < 1) throw UsageError("--repeat: " + std::to_string(c.repeat) + " timed runs: at least 1 is needed");
  if (c.warmup < 0) throw UsageError("--warmup: " + std::to_string(c.warmup) + " warm-up runs: 0 or more");
  const OutputPlan plan = plan_outputs(c);
  std::optional<uint64_t> max_n;
  if (!c.max_n.empty()) {
    if (c.suite.empty()) throw UsageError("--max-n: only with --suite (it scales a suite's sizes)");
    max_n = parse_sizes({c.max_n}, "keys", "--max-n").front().n;
  }
  // Without a suite, the command line's own lists are checked before the device opens.
  std::vector<Matrix> matrices;
  if (c.suite.empty()) matrices.push_back(parse_matrix("", c));
  else if (c.suite != "paper") throw UsageError("--suite: unknown suite '" + c.suite + "' (known: paper)");
  // Checked before the sorts run: the suite's bucket tables (run last) take 32-bit seeds (cmd_bench_buckets.cpp).
  if (!c.suite.empty() && c.seed > UINT32_MAX)
    throw UsageError("--seed: " + std::to_string(c.seed) + ": the suite's bucket tables take seeds from 0 to 4294967295");
  // So are the bucket tables' sizes (no device needed where --max-n gives them): a resort in a single
  // bucket moves nothing, and the tables refuse it.
  if (!c.suite.empty() && max_n) {
    try {
      check_bench_buckets(suite_bucket_tables(DeviceInfo{}, *max_n));
    } catch (const UsageError& e) {
      throw UsageError("--max-n " + c.max_n + " is too small for the suite's bucket tables (" + e.what() + ")");
    }
  }
  if (!c.json.empty() && !c.out.empty() && io::same_destination(c.json, c.out))
    throw UsageError("--json and --out name the same file '" + c.out + "' (the second would replace the first); give each its own");
  // A suite writes its bucket tables beside the sorts' JSON, "r.json" -> "r-buckets.json": a name the
  // command line does not show, so checked here too (--out r-buckets.json was replaced by the tables).
  std::string suite_buckets_json;
  if (!c.suite.empty()) {
    const std::string& beside = !c.json.empty() ? c.json : plan.file_format == "json" ? c.out : std::string();
    if (!beside.empty()) suite_buckets_json = buckets_path(beside);
    for (const std::string* named : {&c.json, &c.out})
      if (!suite_buckets_json.empty() && !named->empty() && io::same_destination(suite_buckets_json, *named))
        throw UsageError("--suite writes its bucket tables to '" + suite_buckets_json + "', which --" +
                         (named == &c.json ? "json" : "out") + " names too; give the results another name");
  }
  // Created now so that an unwritable path fails before the run, not after it.
  std::optional<io::AtomicFile> json_out, out_file, buckets_out;
  if (!c.json.empty()) json_out.emplace(c.json, "--json");
  if (!c.out.empty()) out_file.emplace(c.out, "--out");
  if (!suite_buckets_json.empty()) buckets_out.emplace(suite_buckets_json, "the suite's bucket tables");

  GlobalOptions g = global;
  g.phase_clocks = c.phase_clocks;
  Device device = open_device(g);
  if (!c.suite.empty())
    for (Experiment& e : suite_experiments(c.suite, device.info(), max_n.value_or(0))) {
      e.run.repeat = c.repeat;
      e.run.warmup = c.warmup;
      e.run.warmup_ms = c.warmup_ms;
      e.run.resident = c.resident;
      e.run.seed = c.seed;
      matrices.push_back(parse_matrix(e.title, e.run));
    }
  for (const Matrix& m : matrices) check_fits(device.info(), m);

  BenchSetup setup;
  setup.device = describe_device(device.info());
  setup.device_info = device.info();
  setup.validation = device.validation_enabled();
  setup.repeat = c.repeat;
  setup.warmup = c.warmup;
  setup.warmup_ms = c.warmup_ms;
  setup.resident = c.resident;
  setup.seed = c.seed;
  setup.radix_threads = std::max(1u, std::thread::hardware_concurrency());
  setup.git_commit = VKSORT_GIT_COMMIT;
  setup.command_line = c.command_line;
  setup.suite = c.suite;

  std::vector<CaseResult> results;
  auto show = [&] {
    if (results.empty() || !plan.table_to_stdout) return;
    print_bench_header(std::cout, setup);
    print_bench_table(std::cout, results);
    std::cout << std::flush;
  };
  try {
    run_matrices(device, matrices, {.cpu_baselines = !c.no_cpu, .roofline = true}, results);
  } catch (...) {
    // What was measured correctly before the failure is still worth seeing.
    show();
    throw;
  }
  show();
  auto render = [&](const std::string& format) {
    return format == "csv" ? bench_csv(setup, results) : bench_json(setup, results);
  };
  if (!plan.stdout_format.empty()) std::cout << render(plan.stdout_format) << std::flush;
  if (json_out) {
    const std::string json = bench_json(setup, results);
    json_out->write(std::as_bytes(std::span(json.data(), json.size())));
    json_out->commit();
  }
  if (out_file) {
    const std::string text = render(plan.file_format);
    out_file->write(std::as_bytes(std::span(text.data(), text.size())));
    out_file->commit();
  }
  if (!c.suite.empty() && !plan.table_to_stdout && suite_buckets_json.empty()) {
    // Their results would go nowhere (CSV or JSON of the sorts on stdout, no file beside which their JSON
    // goes): they ran, quietly, and were lost. Not run, and said so.
    std::cerr << "vksort: the suite's bucket tables were not run: with --format " << plan.stdout_format
              << " on stdout they need a JSON file to go beside (--json FILE or --out FILE.json)\n";
    return exit_ok;
  }
  if (!c.suite.empty()) {
    // The suite's bucket-list tables: their own table on stdout, their own JSON beside the sorts'.
    BucketBenchCommand b = suite_bucket_tables(device.info(), max_n.value_or(0));
    b.repeat = c.repeat;
    b.seed = c.seed;
    b.command_line = c.command_line;
    b.quiet = !plan.table_to_stdout;
    b.json = suite_buckets_json;
    if (plan.table_to_stdout) std::cout << "\n";
    return run_bench_buckets_on(device, b, buckets_out ? &*buckets_out : nullptr);
  }
  return exit_ok;
}

}  // namespace vksort::cli
