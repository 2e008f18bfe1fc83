// SPDX-License-Identifier: MIT
#include "bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>
#include <vksort/vksort.hpp>

#include "cpu_baselines.hpp"
#include "report_format.hpp"
#include "stats.hpp"
#include "table.hpp"

namespace vksort::cli {

namespace {

constexpr const char* not_available = "n/a";

std::string format_number(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

const std::vector<double>* find(const NamedSamples& named, const std::string& name) {
  for (const auto& [k, v] : named)
    if (k == name) return &v;
  return nullptr;
}

// The facts the table shows, in this order: those that explain a time at a glance (how many passes or
// rounds ran, the tile, sample sort's buckets, which radix path and ranking ran). Every fact, these
// included, is in the csv and json outputs; showing all of them made the table ~330 columns wide.
constexpr std::string_view table_facts[] = {"passes_run", "passes_recorded", "rounds_run", "rounds_recorded", "tile",
                                            "samples", "largest_bucket", "single_pass", "ranking_columns",
                                            "ranking_ballot", "ranking_match", "lookback_fallbacks"};

// "rounds 3/64, tile 256": a pair of facts X_run and X_recorded reads as one "X run/recorded".
std::string format_facts(const NamedSamples& all_facts) {
  NamedSamples facts;
  for (std::string_view wanted : table_facts)
    for (const auto& fact : all_facts)
      if (fact.first == wanted) facts.push_back(fact);
  std::string text;
  auto add = [&](const std::string& item) { text += (text.empty() ? "" : ", ") + item; };
  for (const auto& [name, samples] : facts) {
    const double v = summarize(samples).median;
    if (name.ends_with("_recorded") && find(facts, name.substr(0, name.size() - 9) + "_run")) continue;
    if (name.ends_with("_run")) {
      const std::string stem = name.substr(0, name.size() - 4);
      if (const auto* rec = find(facts, stem + "_recorded")) {
        add(stem + " " + format_number(v) + "/" + format_number(summarize(*rec).median));
        continue;
      }
    }
    add(name + " " + format_number(v));
  }
  return text.empty() ? "-" : text;
}

// "; LABEL: take_tile 0.1%, load_count 20.3%, ..., 1.2e+04 ticks/tile" from the facts PREFIX_share_<phase>
// and PREFIX_ticks_per_UNIT where the sort ran with phase clocks (bench --phase-clocks), else "".
std::string format_clock_shares(const NamedSamples& facts, const std::string& prefix, const char* unit, const char* label) {
  const std::string shares = prefix + "_share_";
  std::string text;
  for (const auto& [name, samples] : facts) {
    if (!name.starts_with(shares)) continue;
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", summarize(samples).median * 100);
    text += (text.empty() ? "" : ", ") + name.substr(shares.size()) + " " + share;
  }
  if (text.empty()) return "";
  if (const auto* ticks = find(facts, prefix + "_ticks_per_" + unit))
    text += ", " + format_number(summarize(*ticks).median) + " ticks/" + unit;
  return std::string("; ") + label + ": " + text;
}

// The passes' clocks, then the upfront histogram's.
std::string format_clocks(const NamedSamples& facts) {
  return format_clock_shares(facts, "clock", "tile", "clocks") + format_clock_shares(facts, "histogram_clock", "block", "histogram clocks");
}

// Short column names for the CPU baselines: "std::sort" stays, "std::stable_sort" -> "stable",
// "lsd_radix" -> "radix", "tbb::parallel_sort" -> "tbb".
std::string cpu_label(const std::string& name) {
  if (name == "std::stable_sort") return "stable";
  if (name == "lsd_radix") return "radix";
  if (name == "tbb::parallel_sort") return "tbb";
  return name;
}

// The union of the names some case reports, in first-seen order (algorithms differ in phases and facts).
std::vector<std::string> names_in(std::span<const CaseResult> results, NamedSamples CaseResult::*member) {
  std::vector<std::string> names;
  for (const auto& r : results)
    for (const auto& [name, samples] : r.*member)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

std::optional<double> median_of(const NamedSamples& named, const std::string& name) {
  const auto* samples = find(named, name);
  if (!samples || samples->empty()) return std::nullopt;
  return summarize(*samples).median;
}

std::optional<double> gpu_median(const CaseResult& r) {
  if (r.gpu_ms.empty()) return std::nullopt;
  return summarize(r.gpu_ms).median;
}

// Fraction of the copy bandwidth, when both were timed and the sort took measurable time.
std::optional<double> roofline_fraction(const CaseResult& r) {
  const auto gpu = gpu_median(r);
  if (!gpu || *gpu <= 0 || r.copy_ms < 0) return std::nullopt;
  return r.copy_ms / *gpu;
}

}  // namespace

std::string type_label(const CaseResult& r) {
  std::string label(to_string(r.key));
  if (r.value_bytes == 4) label.append("+values");
  else if (r.value_bytes) label.append("+").append(std::to_string(r.value_bytes)).append("B");  // records
  return label;
}

void print_bench_header(std::ostream& out, const BenchSetup& s) {
  out << "vksort " << vksort::version() << " (" << s.git_commit << ") bench on " << s.device
      << (s.validation ? ", validation on" : "") << '\n'
      << "GPU: median (min..max) of " << s.repeat << " timed sort" << (s.repeat == 1 ? "" : "s")
      << " after " << (s.warmup_ms > 0 ? "at least " : "") << s.warmup << " warm-up" << (s.warmup == 1 ? "" : "s")
      << (s.warmup_ms > 0 ? " and " + std::to_string(s.warmup_ms) + " ms of them" : "")
      << ", from GPU timestamps; every result checked against the CPU reference; seed " << s.seed << '\n'
      << (s.resident ? "resident: the timed runs back to back in one submission, the inputs restored and the results kept "
                       "by GPU copies between them, checked after the last (the GPU does not idle between runs)\n"
                     : "")
      << "copy%: the sort's speed as a share of a copy kernel moving the same bytes on this device (the least any sort\n"
         "  must move: every key and value read and written once; input a sort only reads can exceed 100%)\n"
      << "CPU on the same input: std::sort and std::stable_sort (1 thread), LSD radix (" << s.radix_threads
      << " thread" << (s.radix_threads == 1 ? "" : "s") << ")"
      << (workloads::have_tbb() ? ", oneTBB parallel_sort (all cores)" : "") << ", median of " << s.repeat << '\n'
      << "  vs X = X's ms / GPU ms (above 1: the GPU is faster)\n"
      << "under each case: the median ms of each phase, the main facts and the CPU baselines' ms; --format csv or json has\n"
         "  them all\n\n";
}

namespace {
void print_one_table(std::ostream& out, std::span<const CaseResult> results) {
  const std::vector<std::string> cpus = names_in(results, &CaseResult::cpu_ms);

  using A = Table::Align;
  std::vector<Table::Column> columns = {{"algo"}, {"type"}, {"order"}, {"dist"}, {"n", A::right},
                                        {"GPU ms median (min..max)", A::right}, {"Mkeys/s", A::right},
                                        {"copy%", A::right}};
  for (const auto& c : cpus) columns.push_back({"vs " + cpu_label(c), A::right});
  Table table(columns);

  for (const auto& r : results) {
    const bool timed = !r.gpu_ms.empty();
    const Summary gpu = timed ? summarize(r.gpu_ms) : Summary{};
    std::vector<std::string> row = {r.algorithm, type_label(r), std::string(to_string(r.order)), r.distribution,
                                    std::to_string(r.n)};
    row.push_back(timed ? format_ms(gpu.median) + " (" + format_ms(gpu.min) + ".." + format_ms(gpu.max) + ")" : not_available);
    // A sort too fast for the timer's resolution reads 0 ms: show no rate rather than infinity.
    const bool rated = timed && gpu.median > 0;
    row.push_back(rated ? format_rate(double(r.n) / gpu.median / 1e3) : not_available);
    const auto roof = roofline_fraction(r);
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f%%", roof.value_or(0) * 100);
    row.push_back(roof ? percent : not_available);
    for (const auto& c : cpus) {
      const auto ms = median_of(r.cpu_ms, c);
      row.push_back(!ms ? "-" : rated ? format_ratio(*ms / gpu.median) : not_available);
    }
    table.add_row(std::move(row));
    // Phases, facts and the CPU times under the row: as columns they made the table 210-330 columns wide.
    std::string phase_times, cpu_times;
    for (const auto& [name, samples] : r.phases_ms)
      phase_times += (phase_times.empty() ? "" : ", ") + name + " " + (timed ? format_ms(summarize(samples).median) : not_available);
    for (const auto& c : cpus)
      if (const auto ms = median_of(r.cpu_ms, c)) cpu_times += (cpu_times.empty() ? "" : ", ") + cpu_label(c) + " " + format_ms(*ms);
    table.add_detail("phases ms: " + (phase_times.empty() ? std::string("-") : phase_times) + "; facts: " + format_facts(r.facts) +
                     format_clocks(r.facts) + (cpu_times.empty() ? "" : "; CPU ms: " + cpu_times));
  }
  table.print(out);
}
}  // namespace

void print_bench_table(std::ostream& out, std::span<const CaseResult> results) {
  // A suite's experiments each get their own table under their title.
  for (size_t begin = 0; begin < results.size();) {
    size_t end = begin + 1;
    while (end < results.size() && results[end].experiment == results[begin].experiment) ++end;
    if (!results[begin].experiment.empty()) out << (begin ? "\n" : "") << "== " << results[begin].experiment << " ==\n";
    print_one_table(out, results.subspan(begin, end - begin));
    begin = end;
  }
}

std::string bench_json(const BenchSetup& s, std::span<const CaseResult> results) {
  using nlohmann::ordered_json;
  auto summary = [](const std::vector<double>& samples) -> ordered_json {
    if (samples.empty()) return nullptr;  // not measured: never a made-up 0
    const Summary m = summarize(samples);
    return {{"median", m.median}, {"min", m.min}, {"max", m.max}, {"runs", samples}};
  };
  auto optional = [](std::optional<double> v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
  ordered_json doc;
  doc["vksort_version"] = vksort::version();
  doc["git_commit"] = s.git_commit;
  doc["command_line"] = s.command_line;
  if (!s.suite.empty()) doc["suite"] = s.suite;
  doc["device"] = device_json(s.device_info);
  doc["validation"] = s.validation;
  doc["repeat"] = s.repeat;
  doc["warmup"] = s.warmup;
  doc["warmup_ms"] = s.warmup_ms;
  doc["resident"] = s.resident;
  doc["seed"] = s.seed;
  doc["radix_threads"] = s.radix_threads;
  ordered_json cases = ordered_json::array();
  for (const auto& r : results) {
    ordered_json c;
    if (!r.experiment.empty()) c["experiment"] = r.experiment;
    c["algorithm"] = r.algorithm;
    c["key"] = std::string(to_string(r.key));
    c["order"] = std::string(to_string(r.order));
    c["values"] = r.values;
    c["value_bytes"] = r.value_bytes;
    c["distribution"] = r.distribution;
    c["n"] = r.n;
    c["bytes"] = r.bytes();
    c["gpu_ms"] = summary(r.gpu_ms);
    const auto gpu = gpu_median(r);
    c["mkeys_per_s"] = optional(gpu && *gpu > 0 ? std::optional(double(r.n) / *gpu / 1e3) : std::nullopt);
    c["copy_ms"] = optional(r.copy_ms >= 0 ? std::optional(r.copy_ms) : std::nullopt);
    c["warmup_runs"] = r.warmup_runs;
    c["roofline_fraction"] = optional(roofline_fraction(r));
    ordered_json phases = ordered_json::object();
    for (const auto& [name, samples] : r.phases_ms) phases[name] = summary(samples);
    c["phases_ms"] = phases;
    ordered_json facts = ordered_json::object();
    for (const auto& [name, samples] : r.facts) facts[name] = summarize(samples).median;
    c["facts"] = facts;
    ordered_json cpu = ordered_json::object();
    for (const auto& [name, samples] : r.cpu_ms) cpu[name] = summary(samples);
    c["cpu_ms"] = cpu;
    cases.push_back(std::move(c));
  }
  doc["results"] = std::move(cases);
  return doc.dump(2) + "\n";
}

std::string bench_csv(const BenchSetup& s, std::span<const CaseResult> results) {
  const std::vector<std::string> phases = names_in(results, &CaseResult::phases_ms);
  const std::vector<std::string> facts = names_in(results, &CaseResult::facts);
  const std::vector<std::string> cpus = names_in(results, &CaseResult::cpu_ms);
  std::vector<std::string> header = {"device", "driver", "vksort_version", "git_commit", "experiment", "algorithm", "key", "order",
                                     "values", "distribution", "n", "bytes", "gpu_ms_median", "gpu_ms_min",
                                     "gpu_ms_max", "mkeys_per_s", "copy_ms", "roofline_fraction",
                                     "value_bytes"};  // added last: earlier columns keep their places
  for (const auto& c : cpus) header.push_back("cpu_" + identifier(c) + "_ms");
  for (const auto& p : phases) header.push_back("phase_" + identifier(p) + "_ms");
  for (const auto& f : facts) header.push_back("fact_" + identifier(f));
  std::string csv = csv_line(header);
  for (const auto& r : results) {
    const auto gpu = gpu_median(r);
    const Summary g = r.gpu_ms.empty() ? Summary{} : summarize(r.gpu_ms);
    std::vector<std::string> row = {s.device_info.name, s.device_info.driver_info, vksort::version(), s.git_commit,
                                    r.experiment, r.algorithm, std::string(to_string(r.key)), std::string(to_string(r.order)),
                                    r.values ? "1" : "0", r.distribution, std::to_string(r.n), std::to_string(r.bytes()),
                                    csv_number(gpu), csv_number(gpu ? std::optional(g.min) : std::nullopt),
                                    csv_number(gpu ? std::optional(g.max) : std::nullopt),
                                    csv_number(gpu && *gpu > 0 ? std::optional(double(r.n) / *gpu / 1e3) : std::nullopt),
                                    csv_number(r.copy_ms >= 0 ? std::optional(r.copy_ms) : std::nullopt),
                                    csv_number(roofline_fraction(r)), std::to_string(r.value_bytes)};
    for (const auto& c : cpus) row.push_back(csv_number(median_of(r.cpu_ms, c)));
    for (const auto& p : phases) row.push_back(csv_number(median_of(r.phases_ms, p)));
    for (const auto& f : facts) row.push_back(csv_number(median_of(r.facts, f)));
    csv += csv_line(row);
  }
  return csv;
}

}  // namespace vksort::cli
