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
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <vksort/vksort.hpp>

using Clock = std::chrono::steady_clock;

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
  uint64_t n = 1 << 20, min_size = 16, max_size = 1024, equal_segments = 0, large = 0, large_size = 0;
  int repeat = 5;
  std::string json;
  std::vector<std::string> names = {"segmented", "loop", "pairs"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") n = std::stoull(next());
    else if (a == "--min") min_size = std::stoull(next());
    else if (a == "--max") max_size = std::stoull(next());
    else if (a == "--segments") equal_segments = std::stoull(next());
    else if (a == "--large") {
      const std::string v = next();
      const size_t colon = v.find(':');
      if (colon == std::string::npos) die("--large K:SIZE, e.g. 4:100000");
      large = std::stoull(v.substr(0, colon));
      large_size = std::stoull(v.substr(colon + 1));
    } else if (a == "--methods") {
      names.clear();
      std::string v = next() + ",";
      for (size_t at = 0, comma; (comma = v.find(',', at)) != std::string::npos; at = comma + 1) {
        names.push_back(v.substr(at, comma - at));
        if (names.back() != "segmented" && names.back() != "composed" && names.back() != "by_size" &&
            names.back() != "loop" && names.back() != "pairs")
          die("--methods: segmented, composed, by_size, loop or pairs, not '" + names.back() + "'");
      }
    } else if (a == "--repeat") repeat = std::stoi(next());
    else if (a == "--json") json = next();
    else die("unknown option " + a);
  }
  if (n == 0 || min_size == 0 || max_size < min_size || repeat < 1) die("need n > 0, 0 < min <= max, repeat >= 1");
  if (large * large_size >= n) die("--large K:SIZE: the large segments must leave keys for the uniform ones");

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
  std::string rows;
  for (size_t k = 0; k < names.size(); ++k) {
    const double g = median(timings[k].gpu_ms), w = median(timings[k].wall_ms);
    std::printf("%-10s %12.2f %12.2f %14.1f\n", names[k].c_str(), g, w, n / g / 1e3);
    rows += std::string(rows.empty() ? "" : ",\n") + "    {\"method\": \"" + names[k] + "\", \"gpu_ms\": " + std::to_string(g) +
            ", \"wall_ms\": " + std::to_string(w) + "}";
  }
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"device\": \"" << gpu.info().name << "\",\n  \"n\": " << n << ",\n  \"segments\": " << segments
        << ",\n  \"min_size\": " << (equal_segments ? n / equal_segments : min_size)
        << ",\n  \"max_size\": " << (equal_segments ? n / equal_segments : max_size) << ",\n  \"large\": " << large
        << ",\n  \"large_size\": " << large_size << ",\n  \"repeat\": " << repeat
        << ",\n  \"results\": [\n" << rows << "\n  ]\n}\n";
    if (!out) die("cannot write " + json);
  }
  return 0;
}
