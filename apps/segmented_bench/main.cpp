// SPDX-License-Identifier: MIT
// bench_segmented — segmented sort (vksort/segmented.hpp) beside the two ways to do without it, on the
// same u32 keys, interleaved in one run (one repetition of each in turn, so machine load hits all alike):
//   segmented  segmented_sort_host: one submission for all segments, the path chosen automatically
//   composed   the same, forced to composed (segment, key) keys (SegmentedPath::composed_keys)
//   by_size    the same, forced to the paths without them (SegmentedPath::by_size: what automatic
//              chose before composed keys existed)
//   loop       one sort_host per segment (the device's cached Sorter; one submission each)
//   pairs      one radix sort of 64-bit (segment << 32 | key) keys carrying a 32-bit index, bit range
//              [0, 32 + ceil(log2(segments))): the sort alone, the keys composed beforehand on the host
//              and the values left to gather (so a lower bound for that approach)
// Every result is checked against std::stable_sort per segment before it is timed.
//
//   bench_segmented [--n KEYS] [--min SIZE] [--max SIZE] [--segments S] [--large K:SIZE]
//                   [--methods segmented,composed,by_size,loop,pairs] [--repeat R] [--json FILE]
//
// Segment sizes are uniform in [min, max] until n keys are used (the last one shorter), or with
// --segments S, S equal segments. --large K:SIZE puts K segments of SIZE keys among the uniform ones
// (mixed small and large segments), at random places. --methods times only those named (default:
// segmented, loop, pairs). Times: GPU timestamps (gpu_ms; for the loop, the sum over its sorts)
// and wall-clock per call (host copies and submissions included); medians of R after one warm-up.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <vksort/vksort.hpp>

#include "cli_checks.hpp"
#include "io/atomic_file.hpp"

using Clock = std::chrono::steady_clock;

constexpr uint64_t kMaxKeys = (uint64_t(1) << 31) - 1;  // the library's limit

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_segmented: %s\n", why.c_str());
  std::exit(2);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Timing {
  std::vector<double> gpu_ms, wall_ms;
};

}  // namespace

int main(int argc, char** argv) {
  using vksort::cli_checks::at_least_one;
  using vksort::cli_checks::not_negative;
  uint64_t n = 1 << 20, min_size = 16, max_size = 1024, equal_segments = 0, large = 0, large_size = 0;
  int repeat = 5;
  std::string json, large_text;
  std::vector<std::string> names = {"segmented", "loop", "pairs"};
  // CLI11 with the apps' shared checks: "abc" ended in an uncaught exception, "-5" wrapped to 2^64 - 5.
  CLI::App app{"bench_segmented: segmented sort beside one sort per segment and a sort of (segment, key) pairs"};
  app.add_option("--n", n, "keys (fewer than 2^31)")->check(at_least_one)->check(CLI::Range(uint64_t(1), kMaxKeys));
  app.add_option("--min", min_size, "smallest uniform segment")->check(at_least_one);
  app.add_option("--max", max_size, "largest uniform segment")->check(not_negative);
  app.add_option("--segments", equal_segments, "S equal segments instead of uniform sizes")->check(not_negative);
  app.add_option("--large", large_text, "K segments of SIZE keys among the uniform ones, as K:SIZE (e.g. 4:100000)");
  // A comma list that refuses an empty item (CLI11's delimiter ran "segmented,,loop" as two methods).
  vksort::cli_checks::add_list_option(app, "--methods", names, "segmented, composed, by_size, loop, pairs (comma-separated)",
                                      CLI::IsMember({"segmented", "composed", "by_size", "loop", "pairs"}));
  app.add_option("--repeat", repeat, "timed repetitions")->check(CLI::Range(1, 1000000));
  app.add_option("--json", json, "also write the results as JSON to FILE");
  if (const std::string empty = vksort::cli_checks::empty_value_option(argc, argv); !empty.empty()) die(empty);
  vksort::cli_checks::decimal_integer_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help: 0; bad input: 2, as the other apps
  }
  if (const std::string empty = vksort::cli_checks::empty_value_given(app); !empty.empty()) die(empty);
  if (!large_text.empty()) {
    const size_t colon = large_text.find(':');
    auto count = [&](const std::string& t) {
      if (t.empty() || t.size() > 10 || t.find_first_not_of("0123456789") != std::string::npos)
        die("--large K:SIZE takes two whole numbers below 2^31, e.g. 4:100000; got '" + large_text + "'");
      return std::stoull(t);
    };
    if (colon == std::string::npos) die("--large K:SIZE, e.g. 4:100000; got '" + large_text + "'");
    large = count(large_text.substr(0, colon));
    large_size = count(large_text.substr(colon + 1));
  }
  if (max_size < min_size) die("--max " + std::to_string(max_size) + " is less than --min " + std::to_string(min_size));
  if (equal_segments > n) die("--segments " + std::to_string(equal_segments) + " is more than --n " + std::to_string(n));
  // In 128 bits: K x SIZE overflowed 64 bits past this check and ran away.
  if (static_cast<unsigned __int128>(large) * large_size >= n)
    die("--large K:SIZE: the large segments must leave keys for the uniform ones");
  if (!json.empty()) {
    try {
      vksort::io::check_destination(json, "--json");  // before the benchmark, not after it
    } catch (const vksort::io::FileError& e) {
      die(e.what());
    }
  }

  std::mt19937_64 rng(42);
  std::vector<uint32_t> offsets{0};
  if (equal_segments) {
    for (uint64_t s = 1; s <= equal_segments; ++s) offsets.push_back(uint32_t(n * s / equal_segments));
  } else {
    const uint64_t uniform_keys = n - large * large_size;
    std::vector<uint64_t> sizes;
    for (uint64_t used = 0; used < uniform_keys; used += sizes.back())
      sizes.push_back(std::min<uint64_t>(uniform_keys - used, min_size + rng() % (max_size - min_size + 1)));
    for (uint64_t k = 0; k < large; ++k) sizes.insert(sizes.begin() + rng() % (sizes.size() + 1), large_size);
    for (uint64_t size : sizes) offsets.push_back(uint32_t(offsets.back() + size));
  }
  const uint64_t segments = offsets.size() - 1;
  std::vector<uint32_t> input(n);
  for (auto& k : input) k = uint32_t(rng());
  std::vector<uint32_t> expected = input;
  for (uint64_t s = 0; s < segments; ++s) std::stable_sort(expected.begin() + offsets[s], expected.begin() + offsets[s + 1]);

  vksort::Device gpu;
  const uint32_t bits = uint32_t(std::bit_width(segments - 1));
  std::vector<uint64_t> pairs(n);
  for (uint64_t s = 0; s < segments; ++s)
    for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) pairs[i] = uint64_t(s) << 32 | input[i];
  std::vector<uint32_t> index(n);

  auto run = [&](const std::string& which, Timing& t, bool check) {
    std::vector<uint32_t> keys = input;
    double gpu_ms = 0;
    const auto start = Clock::now();
    if (which == "segmented" || which == "composed" || which == "by_size") {
      const vksort::SegmentedPath path = which == "composed" ? vksort::SegmentedPath::composed_keys
                                         : which == "by_size" ? vksort::SegmentedPath::by_size
                                                              : vksort::SegmentedPath::automatic;
      const vksort::SortStats stats = vksort::segmented_sort_host(gpu, keys.data(), n, nullptr, 0, offsets.data(), segments,
                                                                  {.key = vksort::Key::u32}, path);
      gpu_ms = stats.gpu_ms;
      if (check && which == "segmented")
        std::printf("segmented: automatic chose %s\n", stats.fact("composed_keys").value_or(0) ? "composed keys" : "by size");
    } else if (which == "loop") {
      for (uint64_t s = 0; s < segments; ++s)
        gpu_ms += vksort::sort(gpu, std::span(keys).subspan(offsets[s], offsets[s + 1] - offsets[s])).gpu_ms;
    } else {
      std::vector<uint64_t> k = pairs;
      for (uint32_t i = 0; i < n; ++i) index[i] = i;
      gpu_ms = vksort::sort_host(gpu, k.data(), n, index.data(),
                                 {.key = vksort::Key::u64, .algorithm = vksort::Algorithm::radix, .end_bit = 32 + bits}).gpu_ms;
      if (check)
        for (uint64_t i = 0; i < n; ++i) keys[i] = uint32_t(k[i]);
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (check && keys != expected) die(which + ": the result differs from std::stable_sort per segment");
    t.gpu_ms.push_back(gpu_ms);
    t.wall_ms.push_back(wall_ms);
  };

  std::vector<Timing> timings(names.size()), warmup(names.size());
  for (size_t k = 0; k < names.size(); ++k) run(names[k], warmup[k], true);
  for (int r = 0; r < repeat; ++r)
    for (size_t k = 0; k < names.size(); ++k) run(names[k], timings[k], false);

  std::printf("device: %s; %llu u32 keys in %llu segments (sizes %s%s), median of %d\n", gpu.info().name.c_str(),
              (unsigned long long)n, (unsigned long long)segments,
              equal_segments ? "equal" : (std::to_string(min_size) + ".." + std::to_string(max_size)).c_str(),
              large ? (" and " + std::to_string(large) + " of " + std::to_string(large_size)).c_str() : "", repeat);
  std::printf("%-10s %12s %12s %14s\n", "method", "gpu_ms", "wall_ms", "Mkeys/s (gpu)");
  nlohmann::json results = nlohmann::json::array();
  for (size_t k = 0; k < names.size(); ++k) {
    const double g = median(timings[k].gpu_ms), w = median(timings[k].wall_ms);
    std::printf("%-10s %12.2f %12.2f %14.1f\n", names[k].c_str(), g, w, n / g / 1e3);
    results.push_back({{"method", names[k]}, {"gpu_ms", g}, {"wall_ms", w}});
  }
  if (!json.empty()) {
    nlohmann::json doc = {{"device", gpu.info().name}, {"n", n}, {"segments", segments},
                          {"min_size", equal_segments ? n / equal_segments : min_size},
                          {"max_size", equal_segments ? n / equal_segments : max_size}, {"large", large},
                          {"large_size", large_size}, {"repeat", repeat}, {"results", results}};
    try {
      vksort::io::write_file(json, "--json", doc.dump(2) + "\n");  // whole or not at all
    } catch (const vksort::io::FileError& e) {
      die(e.what());
    }
  }
  return 0;
}
