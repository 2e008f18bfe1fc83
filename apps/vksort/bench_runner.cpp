// SPDX-License-Identifier: MIT
#include "bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli_error.hpp"
#include "cpu_baselines.hpp"
#include "io/format_bytes.hpp"
#include "progress.hpp"
#include "reference_sort.hpp"

namespace vksort::cli {

namespace {

struct Config {
  SortOptions options;
  std::string label;  // "brick/blocks"
  std::optional<Sorter> sorter;
};

std::vector<workloads::DistributionSpec> parse_distributions(const std::vector<std::string>& texts) {
  std::vector<workloads::DistributionSpec> specs;
  for (const auto& t : texts) {
    const auto spec = workloads::parse_distribution(t);
    // A known name with a bad parameter: say what is wrong with the parameter.
    if (!spec && t.find(':') != std::string::npos) {
      const std::string name = t.substr(0, t.find(':')), param = t.substr(t.find(':') + 1);
      if (const auto kind = workloads::parse_distribution(name)) {
        if (!workloads::takes_param(kind->kind))
          throw UsageError("--dist: '" + t + "': " + name + " takes no parameter");
        char* end = nullptr;
        const double v = std::strtod(param.c_str(), &end);
        const std::string why = param.empty() || *end ? in_quotes(param) + " is not a number"
                                                      : workloads::invalid_reason({kind->kind, v});
        throw UsageError("--dist: '" + t + "': bad parameter" + (why.empty() ? "" : ": " + why));
      }
    }
    if (!spec) {
      std::string known;
      for (auto name : workloads::distribution_names()) known += (known.empty() ? "" : ", ") + std::string(name);
      throw UsageError("--dist: unknown distribution or bad parameter '" + t + "' (known: " + known +
                       "; parameters as in nearly_sorted:5, few_unique:16, entropy:3, zipf:1.2)");
    }
    specs.push_back(*spec);
  }
  if (specs.empty()) throw UsageError("--dist: no distributions given");
  return specs;
}

// Refuses sizes the device cannot hold before any case runs, so a typo in the last size does not
// cost the time of all the others.
// --resident keeps the input and every run's result on the device too: `copies` of the data in all.
void check_fits(const DeviceInfo& d, Key key, uint32_t value_bytes, const Size& s, uint64_t copies) {
  const bool values = value_bytes != 0;
  // Saturating: with --resident and --repeat near 2^63 the products wrapped to a few KiB, the check
  // passed, and the run went on allocating result buffers until the host ran out of memory.
  auto times = [](uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; };
  const uint64_t one_copy = times(s.n, key_bytes(key));
  const uint64_t key_bytes_total = times(one_copy, copies), value_bytes_total = times(times(s.n, value_bytes), copies);
  const uint64_t all_bytes = key_bytes_total > UINT64_MAX - value_bytes_total ? UINT64_MAX : key_bytes_total + value_bytes_total;
  const std::string what = "--n " + s.text + ": " + std::to_string(s.n) + " " + std::string(to_string(key)) + " keys" +
                           (copies > 1 ? " (" + std::to_string(copies) + " copies with --resident)" : "");
  if (d.max_allocation_size && one_copy > d.max_allocation_size)
    throw UsageError(what + " need " + io::format_bytes(one_copy) + " in one buffer, more than \"" + d.name +
                     "\" allows (maxMemoryAllocationSize " + io::format_bytes(d.max_allocation_size) + ")");
  if (d.device_local_bytes && all_bytes > d.device_local_bytes)
    throw UsageError(what + (values ? " and their values" : "") + " need " +
                     (all_bytes == UINT64_MAX ? std::string("more than 2^64 bytes") : io::format_bytes(all_bytes)) + ", more than \"" + d.name + "\" has (" +
                     io::format_bytes(d.device_local_bytes) + " device-local)");
}

Buffer allocate(Device& device, uint64_t bytes, const std::string& purpose) {
  try {
    return Buffer(device, bytes, purpose);
  } catch (const vksort::Error& e) {
    if (is_out_of_memory(e) || is_refusal(e)) throw UsageError(std::string("the device cannot hold the input: ") + e.what());
    throw;
  }
}

template <class F>
double host_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void add_sample(NamedSamples& named, const std::string& name, double v) {
  for (auto& [k, samples] : named)
    if (k == name) return samples.push_back(v);
  named.push_back({name, {v}});
}

struct Input {
  std::vector<std::byte> keys;
  std::vector<uint32_t> values;   // empty without --values; with records, each key's original index
  std::vector<std::byte> records; // records of value_bytes > 4: word w of the input is w, so every word is unique
};

// records[i] = from[index[i]]: the move a record sort ends with, on the CPU.
void gather_records(std::span<const std::byte> from, std::span<const uint32_t> index, uint32_t record_bytes,
                    std::span<std::byte> records) {
  for (size_t i = 0; i < index.size(); ++i)
    std::memcpy(&records[i * record_bytes], &from[size_t(index[i]) * record_bytes], record_bytes);
}

std::string record_difference(std::span<const std::byte> expected, std::span<const std::byte> got, uint32_t record_bytes) {
  for (size_t b = 0; b < expected.size(); b += 4)
    if (std::memcmp(&expected[b], &got[b], 4) != 0)
      return "record " + std::to_string(b / record_bytes) + " differs from the reference at byte " + std::to_string(b % record_bytes);
  return "";
}

CaseResult run_case(Device& device, Config& config, const workloads::DistributionSpec& dist, const Size& size,
                    const BenchCommand& c, Buffer& key_buffer, Buffer* value_buffer, bool cpu_baselines) {
  const SortOptions& o = config.options;
  const uint64_t n = size.n;
  CaseResult r;
  // `auto` is shown beside what it chose for this n, to compare with that algorithm run alone.
  r.algorithm = o.algorithm == Algorithm::automatic
                    ? "auto=" + algorithm_label(config.sorter->algorithm_for(size.n), o.brick_variant)
                    : config.label;
  r.key = o.key;
  r.order = o.order;
  r.values = o.value_bytes != 0;
  r.value_bytes = o.value_bytes;
  r.distribution = workloads::to_string(dist);
  r.n = n;
  std::string name = config.label + " " + type_label(r) + " " + std::string(to_string(o.order)) + " " + r.distribution;
  name.append(" n=").append(std::to_string(n)).append(" seed=").append(std::to_string(c.seed));

  // Records (value_bytes > 4) are checked as the GPU makes them: keys with their original index
  // sorted, then every record moved by that index.
  const uint32_t rb = o.value_bytes > 4 ? o.value_bytes : 0;
  Input input;
  input.keys = workloads::generate_keys(o.key, dist, n, c.seed);
  if (r.values) input.values = workloads::generate_values(n);
  if (rb) {
    const std::vector<uint32_t> words = workloads::generate_values(n * (rb / 4));
    input.records.resize(words.size() * 4);
    if (!words.empty()) std::memcpy(input.records.data(), words.data(), input.records.size());
  }
  Input expected = input;
  workloads::reference_sort(o.key, o.order, expected.keys, expected.values);
  if (rb) gather_records(input.records, expected.values, rb, expected.records);
  Input got = input;
  // What travels in the values buffer: the 32-bit values, or the records.
  auto value_bytes_of = [&](Input& in) {
    return rb ? std::span<std::byte>(in.records) : std::as_writable_bytes(std::span(in.values));
  };

  // Warm-ups first (pipeline caches, first touch of memory, and the GPU's clocks, which a GPU raises
  // only after some time under load): at least c.warmup of them and c.warmup_ms of wall time. Then
  // c.repeat timed runs. Every run is checked: a fast wrong answer must stop the benchmark, not
  // become a number (with --resident, of the warm-ups only the last, whose result is kept).
  // The warm-up's clock starts at its first sort, not before --resident's setup (uploading the input,
  // allocating every kept result: most of a second at 2^28 keys, with the GPU idle): an H200 counted
  // that setup as 700 ms of warm-up and ran the timed sorts 3-5x slow (bench/results/nvidia-h200_2026-11-27).
  std::chrono::steady_clock::time_point warm_start;
  auto warming = [&](int64_t done) {
    if (done == 0) warm_start = std::chrono::steady_clock::now();
    const std::chrono::duration<double, std::milli> spent = std::chrono::steady_clock::now() - warm_start;
    const bool more = done < c.warmup || spent.count() < double(c.warmup_ms);
    if (!more) r.warmup_runs = done;
    return more;
  };
  auto check = [&](const std::string& which, bool last) {
    // For the CLI's own tests only: corrupts the last run's result to prove that it is caught.
    if (last && std::getenv("VKSORT_BENCH_TEST_CORRUPT")) got.keys[(n - 1) * key_bytes(o.key)] ^= std::byte{1};
    std::string diff = rb ? workloads::first_difference(o.key, expected.keys, got.keys)
                          : workloads::first_difference(o.key, expected.keys, got.keys, expected.values, got.values);
    if (diff.empty() && rb) diff = record_difference(expected.records, got.records, rb);
    if (!diff.empty()) throw RuntimeFailure("bench " + name + ": " + which + " gave a wrong result: " + diff);
  };
  auto warm_label = [](int64_t k) { return "warm-up run " + std::to_string(k); };
  auto timed_label = [&](int64_t k) { return "timed run " + std::to_string(k + 1) + " of " + std::to_string(c.repeat); };
  auto record = [&](const SortStats& stats) {
    if (stats.timed()) {
      r.gpu_ms.push_back(stats.gpu_ms);
      for (const auto& [phase, ms] : stats.phases_ms) add_sample(r.phases_ms, phase, ms);
    }
    for (const auto& [fact, v] : stats.facts) add_sample(r.facts, fact, v);
  };
  auto sort_once = [&] { return refusals_are_usage_errors(name, [&] { return config.sorter->sort(key_buffer, value_buffer, n); }); };

  if (!c.resident) {
    // Each run uploads its input and downloads its result: the GPU idles while the host copies.
    auto run_once = [&] {
      key_buffer.upload(input.keys);
      if (value_buffer) value_buffer->upload(value_bytes_of(input));
      const SortStats stats = sort_once();
      key_buffer.download(got.keys);
      if (value_buffer) value_buffer->download(value_bytes_of(got));
      return stats;
    };
    for (int64_t k = 0; warming(k); ++k) {
      run_once();
      check(warm_label(k + 1), false);
    }
    for (int64_t k = 0; k < c.repeat; ++k) {
      const SortStats stats = run_once();
      check(timed_label(k), k + 1 == c.repeat);
      record(stats);
    }
  } else {
    // The input waits on the GPU and results are copied aside there, so consecutive runs are only a
    // GPU copy apart, in one submission. Kept: a warm-up's result and every timed run's, all
    // downloaded and checked after the last run.
    const VkDeviceSize key_size = key_buffer.size(), value_size = value_buffer ? value_buffer->size() : 0;
    Buffer pristine_keys = allocate(device, key_size, "the input keys (--resident)");
    std::optional<Buffer> pristine_values;
    pristine_keys.upload(input.keys);
    if (value_buffer) {
      pristine_values.emplace(allocate(device, value_size, "the input values (--resident)"));
      pristine_values->upload(value_bytes_of(input));
    }
    std::vector<Buffer> kept_keys, kept_values;  // [0]: a warm-up run; [1 + k]: timed run k
    for (int64_t k = 0; k <= c.repeat; ++k) {
      const std::string which = k == 0 ? "a warm-up run" : "timed run " + std::to_string(k);
      kept_keys.push_back(allocate(device, key_size, "result keys of " + which + " (--resident)"));
      if (value_buffer) kept_values.push_back(allocate(device, value_size, "result values of " + which + " (--resident)"));
    }
    // Sorts back to back in one submission each (Sorter::sort_back_to_back), keeping results
    // [first, first + count): the GPU runs them as one sustained load. Separate submissions with the
    // host's copies and waits between them left an H200 at 345-675 MHz instead of 1980 through 2^24's
    // runs of ~2 ms, 3x slow (bench/results/nvidia-h200_2026-11-27-session20).
    auto batch = [&](size_t first, size_t count) {
      std::vector<Sorter::RunResult> keep;
      for (size_t k = first; k < first + count; ++k) keep.push_back({&kept_keys[k], value_buffer ? &kept_values[k] : nullptr});
      return refusals_are_usage_errors(name, [&] {
        return config.sorter->sort_back_to_back(key_buffer, value_buffer, n, pristine_keys,
                                                pristine_values ? &*pristine_values : nullptr, keep);
      });
    };
    // Warm-up batches into every kept buffer (the timed batch overwrites all but the first, which keeps
    // a warm-up's result to check), then one timed batch.
    int64_t warmups = 0;
    while (warming(warmups)) {
      batch(0, size_t(c.repeat) + 1);
      warmups += c.repeat + 1;
    }
    r.warmup_runs = warmups;
    const std::vector<SortStats> stats = batch(1, size_t(c.repeat));
    auto fetch = [&](size_t keep) {
      kept_keys[keep].download(got.keys);
      if (value_buffer) kept_values[keep].download(value_bytes_of(got));
    };
    if (warmups > 0) {
      fetch(0);
      check("a warm-up run", false);
    }
    for (int64_t k = 0; k < c.repeat; ++k) {
      fetch(size_t(k) + 1);
      check(timed_label(k), k + 1 == c.repeat);
      record(stats[size_t(k)]);
    }
  }

  // CPU baselines on the same input, each on a fresh copy, checked like the GPU's result (std::sort
  // is unstable, so only its keys must match). Records: the same two steps as the GPU's, timed
  // together: (key, index) sorted, then the records gathered.
  if (!cpu_baselines) return r;
  for (const workloads::CpuBaseline& cpu : workloads::cpu_baselines()) {
    for (int64_t run = 0; run < c.repeat; ++run) {
      got = input;
      const double ms = host_ms([&] {
        cpu.sort(o.key, o.order, got.keys, got.values);
        if (rb) gather_records(input.records, got.values, rb, got.records);
      });
      std::string diff = !cpu.stable ? workloads::first_difference(o.key, expected.keys, got.keys)
                         : rb        ? workloads::first_difference(o.key, expected.keys, got.keys)
                                     : workloads::first_difference(o.key, expected.keys, got.keys, expected.values, got.values);
      if (diff.empty() && cpu.stable && rb) diff = record_difference(expected.records, got.records, rb);
      if (!diff.empty())
        throw RuntimeFailure("bench " + name + ": CPU baseline " + std::string(cpu.name) + " gave a wrong result: " + diff);
      add_sample(r.cpu_ms, std::string(cpu.name), ms);
    }
  }
  return r;
}

std::vector<Config> make_configs(Device& device, const Matrix& m) {
  std::vector<Config> configs;
  for (Algorithm a : m.algorithms)
    for (Key k : m.keys)
      for (BrickVariant v : m.variants) {
        Config cfg;
        cfg.options.key = k;
        cfg.options.order = m.run.descending ? Order::descending : Order::ascending;
        cfg.options.algorithm = a;
        cfg.options.value_bytes = m.value_bytes;
        cfg.options.brick_variant = v;
        cfg.options.tuning = m.tuning;
        cfg.sorter.emplace(refusals_are_usage_errors(
            "setting up " + std::string(to_string(a)) + " sort of " + std::string(to_string(k)) + " keys",
            [&] { return Sorter(device, cfg.options); }));
        // `auto` is labelled per case with what it chose (run_case).
        cfg.label = a == Algorithm::automatic ? "auto" : algorithm_label(cfg.sorter->algorithm(), v);
        // Variants only shape brick sort: other algorithms, and "auto" given twice, would repeat a row.
        const bool repeated = std::any_of(configs.begin(), configs.end(), [&](const Config& o) {
          return o.label == cfg.label && o.options.key == k;
        });
        if (!repeated) configs.push_back(std::move(cfg));
      }
  return configs;
}

}  // namespace

Matrix parse_matrix(const std::string& title, const BenchCommand& c) {
  Matrix m;
  m.title = title;
  m.run = c;
  m.sizes = parse_sizes(c.sizes, "keys");
  m.dists = parse_distributions(c.distributions);
  for (const auto& t : c.types) m.keys.push_back(parse_key_option(t));
  for (const auto& a : c.algorithms) m.algorithms.push_back(parse_algorithm_option(a));
  for (const auto& v : c.variants) m.variants.push_back(parse_variant_option(v));
  if (m.keys.empty() || m.algorithms.empty() || m.variants.empty())
    throw UsageError("--type, --algo and --variant each need at least one value");
  m.tuning = to_tuning(c.tuning);
  // --value-bytes N carries records of N bytes (and implies --values); --values alone is 4.
  m.value_bytes = c.values || c.value_bytes != -1 ? value_bytes_option(c.value_bytes) : 0;
  m.run.values = m.value_bytes != 0;
  return m;
}

void check_fits(const DeviceInfo& device, const Matrix& m) {
  for (Key k : m.keys)
    for (const auto& s : m.sizes)
      check_fits(device, k, m.value_bytes, s, m.run.resident ? uint64_t(m.run.repeat) + 3 : 1);  // (repeat >= 1)
}

void run_matrices(Device& device, const std::vector<Matrix>& matrices, const RunOptions& options,
                  std::vector<CaseResult>& results) {
  // The roofline yardstick: one copy per distinct byte count, measured after the first sort of that
  // many bytes, warmed up as long as the sorts (the host's checking before it leaves the GPU idle).
  std::vector<std::pair<uint64_t, double>> copy_ms;  // bytes -> median ms
  auto copy_time = [&](uint64_t bytes, int64_t repeat, int64_t warmup_ms) {
    for (const auto& [b, ms] : copy_ms)
      if (b == bytes) return ms;
    const CopyBandwidth bw = refusals_are_usage_errors("measuring the copy bandwidth", [&] {
      return measure_copy_bandwidth(device, bytes, int(repeat), double(warmup_ms));
    });
    copy_ms.push_back({bytes, bw.ms});
    return bw.ms;
  };

  // Work of a case for the time-left estimate: n log n per run, GPU and CPU alike.
  auto work = [&](uint64_t n, int64_t repeat) { return double(n) * std::log2(double(n) + 2.0) * double(repeat + 1); };
  double total_work = 0;
  for (const Matrix& m : matrices)
    for (const auto& s : m.sizes)
      total_work += work(s.n, m.run.repeat) * double(m.dists.size() * m.algorithms.size() * m.keys.size() * m.variants.size());
  std::vector<std::vector<Config>> configs;
  for (const Matrix& m : matrices) configs.push_back(make_configs(device, m));
  // Element-wise brick sort refuses more than max_brick_pairs_keys when it sorts: "--variant pairs
  // --n 5,70000" ran every case before that one and then failed (exit 2). Refused before the first.
  for (size_t i = 0; i < matrices.size(); ++i)
    for (const Config& cfg : configs[i])
      for (const Size& s : matrices[i].sizes)
        if (cfg.options.brick_variant == BrickVariant::pairs && cfg.sorter->algorithm_for(s.n) == Algorithm::brick &&
            s.n > max_brick_pairs_keys)
          throw UsageError("--n " + s.text + ": " + std::to_string(s.n) + " keys are more than element-wise brick sort (" +
                           cfg.label + ") takes, " + std::to_string(max_brick_pairs_keys) + "; use --variant blocks");
  Progress progress(total_work);
  for (size_t i = 0; i < matrices.size(); ++i) {
    const Matrix& m = matrices[i];
    for (auto& cfg : configs[i])
      for (const auto& s : m.sizes) {
        const uint32_t kb = key_bytes(cfg.options.key);
        Buffer key_buffer = allocate(device, s.n * kb, std::to_string(s.n) + " keys");
        std::optional<Buffer> value_buffer;
        if (m.value_bytes) value_buffer.emplace(allocate(device, s.n * m.value_bytes, std::to_string(s.n) + " values"));
        for (const auto& d : m.dists) {
          progress.start(cfg.label + " " + std::string(to_string(cfg.options.key)) + " " + workloads::to_string(d) +
                             " n=" + std::to_string(s.n),
                         work(s.n, m.run.repeat));
          CaseResult r = run_case(device, cfg, d, s, m.run, key_buffer, value_buffer ? &*value_buffer : nullptr,
                                  options.cpu_baselines);
          r.experiment = m.title;
          if (options.roofline) r.copy_ms = copy_time(r.bytes(), m.run.repeat, m.run.warmup_ms);
          results.push_back(std::move(r));
        }
      }
  }
}

}  // namespace vksort::cli
