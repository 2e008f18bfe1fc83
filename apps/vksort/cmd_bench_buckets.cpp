// SPDX-License-Identifier: MIT
// vksort bench-buckets: the bucket-list experiments of Rozen, Boryczko and Alda (seed 002) on this
// device. Table 1: builds over sizes and average elements per bucket. Table 2: resorts after moving a
// share of the elements, against a full build. Table 3: lists against sorting (bucket, index) pairs, the
// sort-then-search way. Every run's lists are checked on the CPU before its time counts.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>

#include <vksort/vksort.hpp>

#include "io/atomic_file.hpp"
#include "bench_report.hpp"
#include "bucket_workloads.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "counts.hpp"
#include "git_commit.hpp"
#include "option_values.hpp"
#include "progress.hpp"
#include "reference_sort.hpp"
#include "report_format.hpp"
#include "stats.hpp"
#include "table.hpp"

namespace vksort::cli {

namespace {

// One row of a table: an operation at one (n, M) and what every timed run measured.
struct BucketCase {
  int table = 0;
  std::string op;             // "build", "resort", "sort build", "radix pairs"
  std::string parts;          // partial update setting of builds: "1", "8", "auto"; "" elsewhere
  uint64_t n = 0;
  uint32_t buckets = 0;
  double moved_percent = -1;  // resorts: share of elements moved; < 0 elsewhere
  std::vector<double> gpu_ms;
  std::vector<double> iterations, fallback;
  NamedSamples phases_ms;     // per phase ("gather", "unlink", "iterations", ...), one per timed run
  double build_ms = -1;       // median of the scatter build at the same (n, M) in this run, for "vs build"
  bool rebuilt = false;       // resorts: built instead (BucketOptions::rebuild_above)
};

double median(const std::vector<double>& v) { return v.empty() ? -1.0 : summarize(v).median; }

// Elements' original indices, the values a sort-then-search carries with the bucket ids.
std::vector<uint32_t> iota_values(size_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

uint32_t parse_parts(const std::string& text) {
  if (text == "auto") return 0;
  const auto v = parse_count(text);
  if (!v || *v < 1 || *v > 64)
    throw UsageError("--parts: '" + text + "': give auto or a number of parts from 1 (no partial update) to 64");
  return uint32_t(*v);
}

// The buckets of n elements at `per` elements per bucket on average: at least 1, and computed in
// double, since n / per reaches 2^41 (n < 2^31, per >= 1/1024), beyond what uint32_t holds.
double buckets_for(uint64_t n, double per) { return std::max(1.0, std::floor(double(n) / per)); }
// A number as the user would type it: "4", "0.001" (format_ms pads: "4.000").
std::string plain(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
// BucketOptions::buckets' upper bound.
constexpr double max_buckets = double((1u << 31) - 2);

std::vector<double> parse_numbers(const std::vector<std::string>& texts, const char* option, double lo, double hi) {
  std::vector<double> out;
  for (const auto& t : texts) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || *end || !(v >= lo && v <= hi))
      throw UsageError(std::string(option) + ": '" + t + "' is not a number from " + format_ms(lo) + " to " +
                       format_ms(hi));
    out.push_back(v);
  }
  if (out.empty()) throw UsageError(std::string(option) + ": no values given");
  return out;
}

class BucketBench {
 public:
  BucketBench(Device& device, const BucketBenchCommand& c) : device_(device), c_(c) {}

  // A build of uniformly random ids, every run checked.
  BucketCase build(int table, uint64_t n, uint32_t m, uint32_t parts, BucketMode mode, const std::string& op) {
    BucketCase r = start(table, op, n, m);
    if (mode == BucketMode::scatter) r.parts = parts ? std::to_string(parts) : "auto";
    BucketOptions o = options(n, m);
    o.mode = mode;
    o.parts = parts;
    BucketLists lists = make_lists(o);
    const std::vector<uint32_t> ids = workloads::uniform_bucket_ids(n, m, uint32_t(c_.seed));
    for (int64_t run = 0; run <= c_.repeat; ++run) {
      const BucketStats s = lists.build(ids);
      check(lists, ids, m, r, run);
      if (run) record(r, s, mode == BucketMode::scatter);
    }
    return r;
  }

  // Builds from random ids, moves `percent` of the elements to other buckets and resorts; the time is
  // the resort's. Chained (Table 2 only): each timed resort follows a resort back to the first ids,
  // as in a simulation that resorts every step (the first resort after a build does more work).
  BucketCase resort(int table, uint64_t n, uint32_t m, double percent) {
    BucketCase r = start(table, "resort", n, m);
    r.moved_percent = percent;
    BucketOptions o = options(n, m);
    if (c_.rebuild_above >= 0) o.rebuild_above = c_.rebuild_above;
    BucketLists lists = make_lists(o);
    const std::vector<uint32_t> ids = workloads::uniform_bucket_ids(n, m, uint32_t(c_.seed));
    size_t moved = 0;
    const std::vector<uint32_t> new_ids = workloads::move_some_ids(ids, m, percent / 100.0, uint32_t(c_.seed) + 1, &moved);
    const bool chained = c_.chained && table == 2;
    if (chained) lists.build(ids);
    for (int64_t run = 0; run <= c_.repeat; ++run) {
      if (chained) lists.resort(ids);
      else lists.build(ids);
      const BucketStats s = lists.resort(new_ids);
      check(lists, new_ids, m, r, run);
      if (s.moved != moved)
        throw RuntimeFailure(describe(r) + ": the resort reports " + std::to_string(s.moved) + " moved elements, " +
                             std::to_string(moved) + " were moved");
      if (run) record(r, s, true);
      r.rebuilt = s.rebuilt;
    }
    return r;
  }

  // Sort-then-search's sort alone: a stable radix sort of (bucket id, index) pairs over the id's bits.
  BucketCase radix_pairs(int table, uint64_t n, uint32_t m) {
    BucketCase r = start(table, "radix pairs", n, m);
    SortOptions o;
    o.algorithm = Algorithm::radix;
    o.value_bytes = 4;
    o.end_bit = std::max(1u, uint32_t(std::bit_width(m - 1)));
    Sorter sorter(device_, o);
    const std::vector<uint32_t> ids = workloads::uniform_bucket_ids(n, m, uint32_t(c_.seed));
    std::vector<uint32_t> expected_keys = ids, expected_values = iota_values(n);
    workloads::reference_sort(Key::u32, Order::ascending, std::as_writable_bytes(std::span(expected_keys)), expected_values);
    Buffer keys(device_, n * 4, "bucket ids"), values(device_, n * 4, "element indices");
    const std::vector<uint32_t> indices = iota_values(n);
    std::vector<uint32_t> got_keys(n), got_values(n);
    for (int64_t run = 0; run <= c_.repeat; ++run) {
      keys.upload(std::as_bytes(std::span(ids)));
      values.upload(std::as_bytes(std::span(indices)));
      const SortStats s = sorter.sort(keys, &values, n);
      keys.download(std::as_writable_bytes(std::span(got_keys)));
      values.download(std::as_writable_bytes(std::span(got_values)));
      const std::string diff = workloads::first_difference(Key::u32, std::as_bytes(std::span(expected_keys)),
                                                           std::as_bytes(std::span(got_keys)), expected_values, got_values);
      if (!diff.empty()) throw RuntimeFailure(describe(r) + ": run " + std::to_string(run) + " gave a wrong result: " + diff);
      if (run && s.timed()) r.gpu_ms.push_back(s.gpu_ms);
    }
    return r;
  }

 private:
  BucketCase start(int table, const std::string& op, uint64_t n, uint32_t m) const {
    BucketCase r;
    r.table = table;
    r.op = op;
    r.n = n;
    r.buckets = m;
    return r;
  }

  BucketOptions options(uint64_t n, uint32_t m) const {
    BucketOptions o;
    o.buckets = m;
    o.capacity = uint32_t(n);
    return o;
  }

  BucketLists make_lists(const BucketOptions& o) {
    return refusals_are_usage_errors("bucket lists of " + std::to_string(o.capacity) + " elements in " +
                                         std::to_string(o.buckets) + " buckets",
                                     [&] { return BucketLists(device_, o); });
  }

  static std::string describe(const BucketCase& r) {
    return "bench-buckets table " + std::to_string(r.table) + " " + r.op + " n=" + std::to_string(r.n) +
           " buckets=" + std::to_string(r.buckets);
  }

  // A run counts only if its lists are exactly the buckets.
  static void check(const BucketLists& lists, const std::vector<uint32_t>& ids, uint32_t m, const BucketCase& r,
                    int64_t run) {
    std::string why = workloads::check_bucket_lists(lists.download_head(), lists.download_next(), ids, m);
    // For the CLI's own tests only: a wrong list must stop the benchmark.
    if (why.empty() && run == 1 && std::getenv("VKSORT_BENCH_TEST_CORRUPT")) why = "(corrupted by the test hook)";
    if (!why.empty())
      throw RuntimeFailure(describe(r) + ": " + (run ? "timed run " + std::to_string(run) : std::string("warm-up run")) +
                           " built wrong lists: " + why);
  }

  // Iterations and fallback describe repeated scatter; a sort-based build has neither.
  static void record(BucketCase& r, const BucketStats& s, bool scatter) {
    if (s.timed()) r.gpu_ms.push_back(s.gpu_ms);
    for (const auto& [name, ms] : s.phases_ms) {
      auto it = std::find_if(r.phases_ms.begin(), r.phases_ms.end(), [&](const auto& p) { return p.first == name; });
      if (it == r.phases_ms.end()) r.phases_ms.push_back({name, {ms}});
      else it->second.push_back(ms);
    }
    if (!scatter) return;
    r.iterations.push_back(s.iterations);
    r.fallback.push_back(s.fallback);
  }

  Device& device_;
  const BucketBenchCommand& c_;
};

std::string moved_label(const BucketCase& r) {
  if (r.moved_percent < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, r.rebuilt ? "%g%% (built)" : "%g%%", r.moved_percent);
  return buf;
}

void print_table(std::ostream& out, const std::vector<BucketCase>& cases) {
  using A = Table::Align;
  Table t({{"table"}, {"op"}, {"parts"}, {"n", A::right}, {"buckets", A::right}, {"per bucket", A::right}, {"moved", A::right},
           {"GPU ms median (min..max)", A::right}, {"Melem/s", A::right}, {"iterations", A::right}, {"fallback", A::right},
           {"vs build", A::right}});
  for (const auto& r : cases) {
    const bool timed = !r.gpu_ms.empty();
    const Summary g = timed ? summarize(r.gpu_ms) : Summary{};
    char per[32];
    std::snprintf(per, sizeof per, "%.3g", double(r.n) / r.buckets);
    t.add_row({std::to_string(r.table), r.op, r.parts.empty() ? "-" : r.parts, std::to_string(r.n), std::to_string(r.buckets),
               per, moved_label(r),
               timed ? format_ms(g.median) + " (" + format_ms(g.min) + ".." + format_ms(g.max) + ")" : "n/a",
               timed && g.median > 0 ? format_rate(double(r.n) / g.median / 1e3) : "n/a",
               r.iterations.empty() ? "-" : format_ms(median(r.iterations)),
               r.fallback.empty() ? "-" : std::to_string(uint64_t(median(r.fallback))),
               timed && r.build_ms > 0 ? format_ratio(g.median / r.build_ms) : "-"});
  }
  t.print(out);
}

nlohmann::ordered_json cases_json(const std::vector<BucketCase>& cases) {
  using nlohmann::ordered_json;
  ordered_json all = ordered_json::array();
  for (const auto& r : cases) {
    ordered_json c;
    c["table"] = r.table;
    c["op"] = r.op;
    c["parts"] = r.parts.empty() ? ordered_json(nullptr) : ordered_json(r.parts);
    c["n"] = r.n;
    c["buckets"] = r.buckets;
    c["moved_percent"] = r.moved_percent < 0 ? ordered_json(nullptr) : ordered_json(r.moved_percent);
    if (r.op == "resort") c["rebuilt"] = r.rebuilt;
    if (r.gpu_ms.empty()) c["gpu_ms"] = nullptr;
    else {
      const Summary g = summarize(r.gpu_ms);
      c["gpu_ms"] = {{"median", g.median}, {"min", g.min}, {"max", g.max}, {"runs", r.gpu_ms}};
    }
    c["iterations"] = r.iterations.empty() ? ordered_json(nullptr) : ordered_json(median(r.iterations));
    c["fallback"] = r.fallback.empty() ? ordered_json(nullptr) : ordered_json(median(r.fallback));
    nlohmann::ordered_json phases = nlohmann::ordered_json::object();
    for (const auto& [name, samples] : r.phases_ms) phases[name] = median(samples);
    c["phases_ms"] = phases;
    c["vs_build"] = !r.gpu_ms.empty() && r.build_ms > 0 ? ordered_json(median(r.gpu_ms) / r.build_ms) : ordered_json(nullptr);
    all.push_back(std::move(c));
  }
  return all;
}

std::string cases_csv(const DeviceInfo& d, const std::vector<BucketCase>& cases) {
  std::string csv = csv_line({"device", "git_commit", "table", "op", "parts", "n", "buckets", "moved_percent",
                              "gpu_ms_median", "gpu_ms_min", "gpu_ms_max", "iterations", "fallback", "vs_build"});
  for (const auto& r : cases) {
    const bool timed = !r.gpu_ms.empty();
    const Summary g = timed ? summarize(r.gpu_ms) : Summary{};
    auto opt = [&](bool ok, double v) { return csv_number(ok ? std::optional(v) : std::nullopt); };
    csv += csv_line({d.name, VKSORT_GIT_COMMIT, std::to_string(r.table), r.op, r.parts, std::to_string(r.n),
                     std::to_string(r.buckets), opt(r.moved_percent >= 0, r.moved_percent), opt(timed, g.median),
                     opt(timed, g.min), opt(timed, g.max), opt(!r.iterations.empty(), median(r.iterations)),
                     opt(!r.fallback.empty(), median(r.fallback)),
                     opt(timed && r.build_ms > 0, g.median / r.build_ms)});
  }
  return csv;
}

// The options of one bucket benchmark, parsed and checked before any device work.
struct BucketPlan {
  std::vector<Size> sizes;
  std::vector<double> per_bucket, moved;
  std::vector<uint32_t> parts;
  std::vector<int> tables;
  bool csv = false, json = false;
};

// Every case's bucket count, checked before the device opens (and before earlier cases run for
// minutes): a Table 1 count beyond BucketOptions::buckets' range wrapped in uint32_t (--n 5M
// --per-bucket 0.001 ran 947912704 buckets, not 5368709120), and a resort in a single bucket
// (n < 2 x --grid-per-bucket) can move nothing, yet its row said "50%" (Table 3: "2%").
void check_bucket_counts(const BucketPlan& p, const BucketBenchCommand& c) {
  const auto has = [&](int t) { return std::find(p.tables.begin(), p.tables.end(), t) != p.tables.end(); };
  for (const Size& s : p.sizes) {
    if (has(1))
      for (double per : p.per_bucket)
        if (buckets_for(s.n, per) > max_buckets)
          throw UsageError("--per-bucket: " + plain(per) + " elements per bucket at --n " + s.text + " is " +
                           std::to_string(uint64_t(buckets_for(s.n, per))) +
                           " buckets; bucket lists take at most 2^31 - 2 (give more per bucket)");
    const bool resorts_move = has(3) || (has(2) && std::any_of(p.moved.begin(), p.moved.end(), [](double m) { return m > 0; }));
    if (resorts_move && buckets_for(s.n, c.grid_per_bucket) < 2)
      throw UsageError("--n " + s.text + " at --grid-per-bucket " + plain(c.grid_per_bucket) +
                       " is 1 bucket for Tables 2 and 3, where a resort can move no element: give at least " +
                       std::to_string(uint64_t(std::ceil(2 * c.grid_per_bucket))) +
                       " elements, a smaller --grid-per-bucket, or --tables 1");
  }
}

BucketPlan parse_bucket_plan(const BucketBenchCommand& c) {
  BucketPlan p;
  if (c.repeat < 1) throw UsageError("--repeat: " + std::to_string(c.repeat) + " timed runs: at least 1 is needed");
  // The bucket ids take a 32-bit seed: --seed 4294967297 ran seed 1's ids and reported 4294967297.
  if (c.seed > UINT32_MAX)
    throw UsageError("--seed: " + std::to_string(c.seed) + ": the bucket tables take seeds from 0 to 4294967295");
  p.sizes = parse_sizes(c.sizes, "elements");
  p.per_bucket = parse_numbers(c.per_bucket, "--per-bucket", 1.0 / 1024, 1u << 20);
  p.moved = parse_numbers(c.moved, "--moved", 0, 100);
  for (const auto& part : c.parts) p.parts.push_back(parse_parts(part));
  if (p.parts.empty()) throw UsageError("--parts: no values given");
  for (const auto& t : c.tables) {
    if (t != "1" && t != "2" && t != "3") throw UsageError("--tables: '" + t + "': the paper's tables are 1, 2 and 3");
    p.tables.push_back(std::stoi(t));
  }
  if (p.tables.empty()) throw UsageError("--tables: no tables given");
  if (c.grid_per_bucket < 1) throw UsageError("--grid-per-bucket: at least 1 element per bucket on average");
  check_bucket_counts(p, c);
  const StdoutFormat format = parse_stdout_format(c.format);
  p.csv = format == StdoutFormat::csv;
  p.json = format == StdoutFormat::json;
  return p;
}

}  // namespace

void check_bench_buckets(const BucketBenchCommand& c) { (void)parse_bucket_plan(c); }

int run_bench_buckets(const GlobalOptions& global, const BucketBenchCommand& c) {
  parse_bucket_plan(c);  // bad options are refused before the device opens
  Device device = open_device(global);
  return run_bench_buckets_on(device, c);
}

int run_bench_buckets_on(Device& device, const BucketBenchCommand& c, io::AtomicFile* json_file) {
  const BucketPlan plan = parse_bucket_plan(c);
  const auto& [sizes, per_bucket, moved, parts, tables, csv, json] = plan;
  std::optional<io::AtomicFile> json_made;
  if (!json_file && !c.json.empty()) json_made.emplace(c.json, "--json");
  io::AtomicFile* json_out = json_file ? json_file : json_made ? &*json_made : nullptr;
  auto has = [&](int t) { return std::find(tables.begin(), tables.end(), t) != tables.end(); };
  // parse_bucket_plan checked that every count fits BucketOptions::buckets.
  auto bucket_count = [](uint64_t n, double per) { return uint32_t(buckets_for(n, per)); };

  BucketBench bench(device, c);
  std::vector<BucketCase> cases;
  // Steps for the progress bar, weighted by their elements.
  double total = 0;
  for (const auto& s : sizes)
    total += double(s.n) * double((has(1) ? per_bucket.size() * parts.size() : 0) + (has(2) ? moved.size() + 1 : 0) +
                                  (has(3) ? 4 : 0));
  Progress progress(total);
  auto step = [&](const std::string& what, uint64_t n) { progress.start(what + " n=" + std::to_string(n), double(n)); };
  // The scatter build every "vs build" of the same (n, M) compares with.
  auto reference_build = [&](int table, uint64_t n, uint32_t m) {
    step("table " + std::to_string(table) + " build", n);
    BucketCase b = bench.build(table, n, m, 0, BucketMode::scatter, "build");
    b.build_ms = median(b.gpu_ms);
    cases.push_back(b);
    return b.build_ms;
  };
  try {
    if (has(1))
      for (const auto& s : sizes)
        for (double per : per_bucket)
          for (uint32_t p : parts) {
            step("table 1 build, " + format_ms(per) + " per bucket", s.n);
            cases.push_back(bench.build(1, s.n, bucket_count(s.n, per), p, BucketMode::scatter, "build"));
          }
    if (has(2))
      for (const auto& s : sizes) {
        const uint32_t m = bucket_count(s.n, c.grid_per_bucket);
        const double build_ms = reference_build(2, s.n, m);
        for (double f : moved) {
          step("table 2 resort " + format_ms(f) + "%", s.n);
          cases.push_back(bench.resort(2, s.n, m, f));
          cases.back().build_ms = build_ms;
        }
      }
    if (has(3))
      for (const auto& s : sizes) {
        const uint32_t m = bucket_count(s.n, c.grid_per_bucket);
        const double build_ms = reference_build(3, s.n, m);
        step("table 3 resort 2%", s.n);
        cases.push_back(bench.resort(3, s.n, m, 2.0));
        cases.back().build_ms = build_ms;
        step("table 3 sort build", s.n);
        cases.push_back(bench.build(3, s.n, m, 0, BucketMode::sort, "sort build"));
        cases.back().build_ms = build_ms;
        step("table 3 radix pairs", s.n);
        cases.push_back(bench.radix_pairs(3, s.n, m));
        cases.back().build_ms = build_ms;
      }
  } catch (...) {
    progress.clear();
    if (!cases.empty() && !csv && !json && !c.quiet) print_table(std::cout, cases);
    throw;
  }
  progress.clear();

  nlohmann::ordered_json doc;
  doc["vksort_version"] = vksort::version();
  doc["git_commit"] = VKSORT_GIT_COMMIT;
  doc["command_line"] = c.command_line;
  doc["device"] = device_json(device.info());
  doc["validation"] = device.validation_enabled();
  doc["repeat"] = c.repeat;
  doc["warmup"] = 1;
  doc["seed"] = c.seed;
  doc["grid_per_bucket"] = c.grid_per_bucket;
  doc["rebuild_above"] = c.rebuild_above >= 0 ? c.rebuild_above : BucketOptions{}.rebuild_above;
  doc["chained"] = c.chained;
  doc["results"] = cases_json(cases);
  const std::string json_text = doc.dump(2) + "\n";
  if (c.quiet) {
  } else if (csv) {
    std::cout << cases_csv(device.info(), cases);
  } else if (json) {
    std::cout << json_text;
  } else {
    std::cout << "vksort " << vksort::version() << " (" << VKSORT_GIT_COMMIT << ") bench-buckets on "
              << describe_device(device.info()) << (device.validation_enabled() ? ", validation on" : "") << '\n'
              << "GPU: median (min..max) of " << c.repeat << " timed runs after 1 warm-up, from GPU timestamps; every "
              << "run's lists checked on the CPU; uniform random bucket ids, seed " << c.seed << '\n'
              << "Table 1: builds (Rozen et al. Table 1). Table 2: resort after moving a share of the elements, "
              << "n/" << c.grid_per_bucket << " buckets (their Table 2: 2^20 in 64^3). Table 3: lists vs sorting "
              << "(bucket, index) pairs. vs build = ms / the scatter build's ms at the same n and buckets\n\n";
    print_table(std::cout, cases);
  }
  if (json_out) {
    json_out->write(std::as_bytes(std::span(json_text.data(), json_text.size())));
    json_out->commit();
  }
  return exit_ok;
}

}  // namespace vksort::cli
