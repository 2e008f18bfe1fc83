#include "bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>
#include <vksort/vksort.hpp>

#include "stats.hpp"
#include "table.hpp"

namespace vksort::cli {

namespace {

constexpr const char* not_available = "n/a";

// Three significant digits or more: enough to compare, few enough to read.
std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 10 ? "%.3f" : ms < 100 ? "%.2f" : ms < 1000 ? "%.1f" : "%.0f", ms);
  return buf;
}

std::string format_number(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Millions of keys per second, three significant digits (a CPU driver sorts well below one).
std::string format_rate(double mkeys) {
  char buf[32];
  if (mkeys >= 100) std::snprintf(buf, sizeof buf, "%.0f", mkeys);
  else if (mkeys >= 1 || mkeys <= 0) std::snprintf(buf, sizeof buf, "%.*f", mkeys >= 10 ? 1 : 2, mkeys);
  else std::snprintf(buf, sizeof buf, "%.*f", std::min(8, 2 - int(std::floor(std::log10(mkeys)))), mkeys);
  return buf;
}

// Two significant digits below 1 ("0.0024x"), so a slow GPU still shows by how much.
std::string format_ratio(double r) {
  char buf[32];
  if (r >= 10) std::snprintf(buf, sizeof buf, "%.1fx", r);
  else if (r >= 1 || r <= 0) std::snprintf(buf, sizeof buf, "%.2fx", r);
  else std::snprintf(buf, sizeof buf, "%.*fx", std::min(8, 1 - int(std::floor(std::log10(r)))), r);
  return buf;
}

const std::vector<double>* find(const NamedSamples& named, const std::string& name) {
  for (const auto& [k, v] : named)
    if (k == name) return &v;
  return nullptr;
}

// "rounds 3/64, tile 256": a pair of facts X_run and X_recorded reads as one "X run/recorded".
std::string format_facts(const NamedSamples& facts) {
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

std::string type_label(const CaseResult& r) {
  return std::string(to_string(r.key)) + (r.values ? "+values" : "");
}

}  // namespace

void print_bench_header(std::ostream& out, const BenchSetup& s) {
  out << "vksort " << vksort::version() << " bench on " << s.device << (s.validation ? ", validation on" : "") << '\n'
      << "GPU: median (min..max) of " << s.repeat << " timed sort" << (s.repeat == 1 ? "" : "s")
      << " after 1 warm-up, from GPU timestamps; every result checked against the CPU reference; seed " << s.seed
      << '\n'
      << "CPU on the same input: std::sort (1 thread), LSD radix (" << s.radix_threads << " thread"
      << (s.radix_threads == 1 ? "" : "s") << "), median of " << s.repeat
      << "; speedup = CPU ms / GPU ms (above 1: the GPU is faster)\n\n";
}

void print_bench_table(std::ostream& out, std::span<const CaseResult> results) {
  // One column per phase name that any case reports (algorithms differ in their phases).
  std::vector<std::string> phases;
  for (const auto& r : results)
    for (const auto& [name, samples] : r.phases_ms)
      if (std::find(phases.begin(), phases.end(), name) == phases.end()) phases.push_back(name);

  using A = Table::Align;
  std::vector<Table::Column> columns = {{"algo"}, {"type"}, {"order"}, {"dist"}, {"n", A::right},
                                        {"GPU ms median (min..max)", A::right}, {"Mkeys/s", A::right}};
  for (const auto& p : phases) columns.push_back({p + " ms", A::right});
  for (Table::Column c : std::initializer_list<Table::Column>{{"facts"}, {"std::sort ms", A::right}, {"radix ms", A::right},
                                                              {"vs std::sort", A::right}, {"vs radix", A::right}})
    columns.push_back(c);
  Table table(columns);

  for (const auto& r : results) {
    const bool timed = !r.gpu_ms.empty();
    const Summary gpu = timed ? summarize(r.gpu_ms) : Summary{};
    const double std_ms = summarize(r.std_sort_ms).median, radix_ms = summarize(r.radix_ms).median;
    std::vector<std::string> row = {r.algorithm, type_label(r), std::string(to_string(r.order)), r.distribution,
                                    std::to_string(r.n)};
    row.push_back(timed ? format_ms(gpu.median) + " (" + format_ms(gpu.min) + ".." + format_ms(gpu.max) + ")" : not_available);
    // A sort too fast for the timer's resolution reads 0 ms: show no rate rather than infinity.
    const bool rated = timed && gpu.median > 0;
    row.push_back(rated ? format_rate(double(r.n) / gpu.median / 1e3) : not_available);
    for (const auto& p : phases) {
      const auto* samples = find(r.phases_ms, p);
      row.push_back(!timed ? not_available : samples ? format_ms(summarize(*samples).median) : "-");
    }
    row.push_back(format_facts(r.facts));
    row.push_back(format_ms(std_ms));
    row.push_back(format_ms(radix_ms));
    row.push_back(rated ? format_ratio(std_ms / gpu.median) : not_available);
    row.push_back(rated ? format_ratio(radix_ms / gpu.median) : not_available);
    table.add_row(std::move(row));
  }
  table.print(out);
}

std::string bench_json(const BenchSetup& s, std::span<const CaseResult> results) {
  using nlohmann::ordered_json;
  auto summary = [](const std::vector<double>& samples) -> ordered_json {
    if (samples.empty()) return nullptr;  // not measured: never a made-up 0
    const Summary m = summarize(samples);
    return {{"median", m.median}, {"min", m.min}, {"max", m.max}, {"runs", samples}};
  };
  ordered_json doc;
  doc["vksort_version"] = vksort::version();
  doc["device"] = {{"name", s.device_info.name},
                   {"type", s.device_info.type},
                   {"vendor_id", s.device_info.vendor_id},
                   {"device_id", s.device_info.device_id},
                   {"driver_name", s.device_info.driver_name},
                   {"driver_info", s.device_info.driver_info},
                   {"subgroup_size", s.device_info.subgroup_size}};
  doc["validation"] = s.validation;
  doc["repeat"] = s.repeat;
  doc["warmup"] = 1;
  doc["seed"] = s.seed;
  doc["radix_threads"] = s.radix_threads;
  ordered_json cases = ordered_json::array();
  for (const auto& r : results) {
    ordered_json c;
    c["algorithm"] = r.algorithm;
    c["key"] = std::string(to_string(r.key));
    c["order"] = std::string(to_string(r.order));
    c["values"] = r.values;
    c["distribution"] = r.distribution;
    c["n"] = r.n;
    c["gpu_ms"] = summary(r.gpu_ms);
    const bool rated = !r.gpu_ms.empty() && summarize(r.gpu_ms).median > 0;
    c["mkeys_per_s"] = rated ? ordered_json(double(r.n) / summarize(r.gpu_ms).median / 1e3) : ordered_json(nullptr);
    ordered_json phases = ordered_json::object();
    for (const auto& [name, samples] : r.phases_ms) phases[name] = summary(samples);
    c["phases_ms"] = phases;
    ordered_json facts = ordered_json::object();
    for (const auto& [name, samples] : r.facts) facts[name] = summarize(samples).median;
    c["facts"] = facts;
    c["cpu_std_sort_ms"] = summary(r.std_sort_ms);
    c["cpu_lsd_radix_ms"] = summary(r.radix_ms);
    cases.push_back(std::move(c));
  }
  doc["results"] = std::move(cases);
  return doc.dump(2) + "\n";
}

}  // namespace vksort::cli
