// SPDX-License-Identifier: MIT
// vksort tune: measures where brick, radix and sample sort overtake each other on this device, for
// 32- and 64-bit keys with and without values, radix sort's digit width and, where radix sort takes the
// single pass ranking by subgroup ballots (GPUs), the single pass's tile shape, and saves them as the
// device's profile for Algorithm::automatic (see vksort/auto_profile.hpp). Every measured sort is
// checked like a benchmark's.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include <vksort/vksort.hpp>

#include "io/atomic_file.hpp"
#include "bench_runner.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "crossovers.hpp"
#include "report_format.hpp"
#include "stats.hpp"
#include "table.hpp"

namespace vksort::cli {

namespace {

// Brick sort only pays while a few tiles hold the keys; sample sort only once there are many sublists.
constexpr uint64_t brick_largest = uint64_t(1) << 16;
constexpr uint64_t sample_smallest = uint64_t(1) << 14;

struct Kind {
  Key key;
  bool values;
  const char* name;
};
constexpr Kind kinds[] = {{Key::u32, false, "32-bit keys"},
                          {Key::u32, true, "32-bit keys + values"},
                          {Key::u64, false, "64-bit keys"},
                          {Key::u64, true, "64-bit keys + values"}};

std::string text(uint64_t n) { return std::to_string(n); }

// The experiments comparing radix digit widths are the kind's name plus this.
constexpr const char* digits_suffix = ": radix digits";


// The experiments timing single-pass shapes are the kind's name plus this and the shape ("" for the
// built-in one).
constexpr const char* shape_suffix = ": single-pass shape ";

// The single pass's shapes tried per kind, workgroup x keys per invocation, around the built-in ones
// (384 x 16 or 256 x 16 for 32-bit keys, 256 x 16 for 64-bit): an H200 ran 2^26 u32 keys 1.23x as fast
// at 384 x 16 as at 256 x 16, and 0.42x at 384 x 21 (bench/results/nvidia-h200_2026-11-27-session20),
// then 1.08x as fast at 384 x 20 as at 384 x 16 (bench/results/nvidia-h200_2026-11-29-session33), then,
// the kernel grown to 87 registers at 384 x 20, 0.77x (bench/results/nvidia-h200_2026-12-04-session53):
// where that turns depends on the compiler's registers and the chip. Shapes the device refuses
// (shared memory, whole subgroups) are passed over.
std::vector<std::pair<uint32_t, uint32_t>> shape_candidates(Key key) {
  const std::vector<uint32_t> items = key_bytes(key) == 8 ? std::vector<uint32_t>{4, 6, 8, 10} : std::vector<uint32_t>{8, 12, 16, 20};
  std::vector<std::pair<uint32_t, uint32_t>> shapes;
  for (uint32_t workgroup : {128u, 256u, 384u, 512u})
    for (uint32_t i : items) shapes.push_back({workgroup, i});
  return shapes;
}

// The first sample of a case's fact, or -1.
double fact_of(const CaseResult& r, const std::string& name) {
  for (const auto& [fact, samples] : r.facts)
    if (fact == name && !samples.empty()) return samples.front();
  return -1;
}

std::string shape_text(uint32_t workgroup, uint32_t items) { return text(workgroup) + "x" + text(items); }

// One algorithm on one kind of sort, uniform keys, timed as `c` says; sizes are the caller's.
BenchCommand kind_bench(const Kind& k, const std::string& algorithm, const TuneCommand& c) {
  BenchCommand b;
  b.algorithms = {algorithm};
  b.types = {std::string(to_string(k.key))};
  b.values = k.values;
  b.distributions = {"uniform"};
  b.repeat = c.repeat;
  b.seed = c.seed;
  b.sizes.clear();
  return b;
}

}  // namespace

int run_tune(const GlobalOptions& global, const TuneCommand& c) {
  if (c.repeat < 1) throw UsageError("--repeat: " + std::to_string(c.repeat) + " timed runs: at least 1 is needed");
  // Every other option the command would ignore is refused; so is this one.
  if (c.dry_run && !c.out.empty()) throw UsageError("--out with --dry-run: a dry run saves no profile; give one of them");
  std::optional<uint64_t> max_n;
  if (!c.max_n.empty()) {
    max_n = parse_sizes({c.max_n}, "keys", "--max-n").front().n;
    if (*max_n < 512) throw UsageError("--max-n: " + c.max_n + ": tuning needs sizes from 256 to at least 512");
  }
  Device device = open_device(global);
  // Measured from the built-in choices, whatever profile is saved now.
  device.set_auto_profile(AutoProfile{});
  const uint64_t top = max_n.value_or(device.info().type == "cpu" ? uint64_t(1) << 20 : uint64_t(1) << 24);
  const std::string path = c.out.empty() ? auto_profile_path(device.info()) : c.out;
  if (path.empty() && !c.dry_run)
    throw UsageError("no place to save the profile: set HOME, XDG_CACHE_HOME or VKSORT_CACHE_DIR, or give --out");
  // An --out that cannot be written fails now, not after the measurements.
  std::optional<io::AtomicFile> out_file;
  if (!c.out.empty() && !c.dry_run) out_file.emplace(c.out, "--out");
  // So does the cache folder's (VKSORT_CACHE_DIR naming a file, a read-only folder): it failed only
  // after every measurement, with exit 1. Its folder is created now, as saving would create it.
  if (c.out.empty() && !c.dry_run) {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!folder.empty()) std::filesystem::create_directories(folder, ec);
    if (ec) throw UsageError("cannot save the profile in " + in_quotes(folder.string()) + ": " + ec.message() + " (give --out, or set VKSORT_CACHE_DIR)");
    io::check_destination(path, "the profile");
  }

  // One matrix per (kind, algorithm), each over the sizes where that algorithm can win.
  std::vector<Matrix> matrices;
  const std::vector<std::string> algorithms = {"brick", "radix", "sample"};
  for (const Kind& k : kinds)
    for (const std::string& a : algorithms) {
      BenchCommand b = kind_bench(k, a, c);
      for (uint64_t n = 256; n <= top; n *= 2)
        if ((a != "brick" || n <= brick_largest) && (a != "sample" || n >= sample_smallest)) b.sizes.push_back(text(n));
      if (b.sizes.empty()) continue;
      matrices.push_back(parse_matrix(k.name, b));
    }
  // Radix sort's digit width (Ha et al.: calibrate per device): 4 against 8 bits at the largest size.
  for (const Kind& k : kinds)
    for (uint32_t bits : {4u, 8u}) {
      BenchCommand b = kind_bench(k, "radix", c);
      b.sizes = {text(top)};
      b.tuning.radix_bits = bits;
      matrices.push_back(parse_matrix(std::string(k.name) + digits_suffix, b));
    }
  for (const Matrix& m : matrices) check_fits(device.info(), m);

  std::vector<CaseResult> results;
  run_matrices(device, matrices, {.cpu_baselines = false, .roofline = false}, results);
  if (std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return r.gpu_ms.empty(); }))
    throw RuntimeFailure("tuning needs GPU timestamps, and \"" + device.info().name + "\" cannot write them on its queue");

  AutoProfile profile;
  profile.source = path;
  // The single pass's shapes, where radix sort at the largest size took the single pass ranking by
  // ballots or partitions: each candidate the device accepts, beside the built-in shape, at that size.
  std::vector<Matrix> shape_matrices;
  for (const Kind& k : kinds) {
    const auto top_radix = std::find_if(results.begin(), results.end(), [&](const CaseResult& r) {
      return r.experiment == k.name && r.n == top && r.algorithm.rfind("radix", 0) == 0;
    });
    if (top_radix == results.end() || fact_of(*top_radix, "single_pass") != 1 ||
        (fact_of(*top_radix, "ranking_ballot") != 1 && fact_of(*top_radix, "ranking_match") != 1))
      continue;
    auto matrix = [&](uint32_t workgroup, uint32_t items) {
      BenchCommand b = kind_bench(k, "radix", c);
      b.sizes = {text(top)};
      b.tuning.radix_scan = "single-pass";
      b.tuning.workgroup_size = workgroup;
      b.tuning.items_per_thread = items;
      return parse_matrix(std::string(k.name) + shape_suffix + (workgroup ? shape_text(workgroup, items) : ""), b);
    };
    shape_matrices.push_back(matrix(0, 0));
    for (const auto& [workgroup, items] : shape_candidates(k.key)) {
      SortOptions o{.key = k.key, .algorithm = Algorithm::radix, .value_bytes = k.values ? 4u : 0u};
      o.tuning.radix_scan = RadixScan::single_pass;
      o.tuning.workgroup_size = workgroup;
      o.tuning.items_per_thread = items;
      try {
        Sorter accepted(device, o);
      } catch (const Error&) {
        continue;  // refused here: not a candidate
      }
      shape_matrices.push_back(matrix(workgroup, items));
    }
  }
  std::vector<CaseResult> shape_results;
  run_matrices(device, shape_matrices, {.cpu_baselines = false, .roofline = false}, shape_results);
  struct ShapeRow {
    const char* kind;
    std::string built_in;  // the built-in shape, as it ran
    double built_in_ms;
    uint32_t workgroup, items;  // the fastest (0 x 0: the built-in)
    double ms;
  };
  std::vector<ShapeRow> shape_rows;
  using A = Table::Align;
  Table table({{"sort"}, {"n", A::right}, {"brick ms", A::right}, {"radix ms", A::right}, {"sample ms", A::right}, {"fastest"}});
  struct DigitRow {
    const char* kind;
    uint32_t bits;
    double ms;
  };
  std::vector<DigitRow> digit_rows;
  for (const Kind& k : kinds) {
    std::vector<workloads::Timing> timings;
    std::map<uint64_t, std::map<Algorithm, double>> grid;
    for (const CaseResult& r : results) {
      if (r.experiment != k.name) continue;
      const Algorithm a = *parse_algorithm(r.algorithm.substr(0, r.algorithm.find('/')));
      const double ms = summarize(r.gpu_ms).median;
      timings.push_back({r.n, a, ms});
      grid[r.n][a] = ms;
    }
    for (const auto& [n, row] : grid) {
      auto cell = [&](Algorithm a) { return row.count(a) ? format_ms(row.at(a)) : std::string("-"); };
      const auto best = std::min_element(row.begin(), row.end(), [](auto& x, auto& y) { return x.second < y.second; });
      table.add_row({k.name, text(n), cell(Algorithm::brick), cell(Algorithm::radix), cell(Algorithm::sample),
                     std::string(to_string(best->first))});
    }
    const workloads::Crossovers x = workloads::find_crossovers(timings);
    profile.of(k.key, k.values) = {x.brick_up_to, x.sample_from};
    // The faster digit width at the largest size.
    double best_ms = 0;
    for (const CaseResult& r : results) {
      if (r.experiment != std::string(k.name) + digits_suffix) continue;
      const double ms = summarize(r.gpu_ms).median;
      double radix_bits = 0;
      for (const auto& [name, samples] : r.facts)
        if (name == "radix_bits") radix_bits = samples.front();
      if (profile.of(k.key, k.values).radix_bits == 0 || ms < best_ms) {
        profile.of(k.key, k.values).radix_bits = uint32_t(radix_bits);
        best_ms = ms;
      }
      digit_rows.push_back({k.name, uint32_t(radix_bits), ms});
    }
    // The fastest shape; the built-in one where it is (none saved then, so later built-in choices apply).
    std::optional<ShapeRow> shapes;
    const std::string prefix = std::string(k.name) + shape_suffix;
    for (const CaseResult& r : shape_results) {
      if (r.experiment.rfind(prefix, 0) != 0) continue;
      const double ms = summarize(r.gpu_ms).median;
      const auto workgroup = uint32_t(fact_of(r, "workgroup")), tile = uint32_t(fact_of(r, "tile"));
      if (!shapes) shapes = ShapeRow{k.name, "", 0, 0, 0, 0};
      if (r.experiment == prefix) {
        shapes->built_in = shape_text(workgroup, workgroup ? tile / workgroup : 0);
        shapes->built_in_ms = ms;
        if (shapes->ms == 0 || ms <= shapes->ms) shapes->workgroup = 0, shapes->items = 0, shapes->ms = ms;
      } else if (shapes->ms == 0 || ms < shapes->ms) {
        shapes->workgroup = workgroup, shapes->items = tile / workgroup, shapes->ms = ms;
      }
    }
    if (shapes) {
      profile.of(k.key, k.values).single_pass_workgroup = shapes->workgroup;
      profile.of(k.key, k.values).single_pass_items = shapes->items;
      shape_rows.push_back(*shapes);
    }
  }

  std::cout << "vksort " << version() << " tune on " << describe_device(device.info()) << ": median of " << c.repeat
            << " timed sorts of uniform keys per size (after 1 warm-up), every result checked\n\n";
  table.print(std::cout);
  std::cout << "\nRadix sort digits at n = " << top << ":";
  for (const DigitRow& d : digit_rows) std::cout << (&d == &digit_rows.front() ? " " : ", ") << d.kind << " " << d.bits << " bits " << format_ms(d.ms) << " ms";
  std::cout << "\n";
  if (shape_rows.empty())
    std::cout << "\nSingle-pass shapes: not measured (radix sort on this device does not take the single pass with "
                 "subgroup ballots)\n";
  for (const ShapeRow& s : shape_rows) {
    std::cout << (&s == &shape_rows.front() ? "\nSingle-pass shapes (workgroup x keys per invocation) at n = " + text(top) + ":\n" : "")
              << "  " << s.kind << ": built-in " << s.built_in << " " << format_ms(s.built_in_ms) << " ms; ";
    if (s.workgroup) std::cout << "fastest " << shape_text(s.workgroup, s.items) << " " << format_ms(s.ms) << " ms\n";
    else std::cout << "the built-in is the fastest\n";
  }
  std::cout << "\nAlgorithm::automatic on this device:\n";
  for (const Kind& k : kinds) {
    const AutoCrossovers& x = profile.of(k.key, k.values);
    std::cout << "  " << k.name << ": brick sort " << (x.brick_up_to ? "up to " + text(x.brick_up_to) + " keys" : "never")
              << ", sample sort " << (x.sample_from ? "from " + text(x.sample_from) + " keys" : "never") << ", radix sort between with "
              << x.radix_bits << "-bit digits"
              << (x.single_pass_workgroup ? " and single-pass tiles of " + shape_text(x.single_pass_workgroup, x.single_pass_items) : "")
              << "\n";
  }
  if (c.dry_run) {
    std::cout << "\n--dry-run: not saved. The profile would be:\n" << profile.to_text(device.info());
    return exit_ok;
  }
  if (out_file) {
    const std::string text = profile.to_text(device.info());
    out_file->write(std::as_bytes(std::span(text.data(), text.size())));
    out_file->commit();
  } else {
    save_auto_profile(profile, device.info(), path);
  }
  // Only the cache folder's profile is read by every Device; an --out file only where it is named.
  if (out_file)
    std::cout << "\nSaved to " << path << " (not the profile every vksort::Device reads, "
              << auto_profile_path(device.info()) << ": name it with DeviceOptions::auto_profile, or copy it there)\n";
  else
    std::cout << "\nSaved to " << path << " (used by every vksort::Device on this device and driver; delete it to go back "
              << "to the built-in defaults)\n";
  return exit_ok;
}

}  // namespace vksort::cli
