// SPDX-License-Identifier: MIT
// vksort's kernels through a GPU's own compiler, without the GPU: Mesa's RADV driver, asked for an AMD
// family by RADV_FORCE_FAMILY, offers a "null" device (no hardware: pipelines compile through ACO,
// AMD's shader compiler in Mesa, and nothing can run). ctest runs this once per family (GCN 5, RDNA 2,
// RDNA 3, CDNA 2, all with subgroups of 64; tests/CMakeLists.txt), on that device alone (VK_ICD_FILENAMES),
// with pipeline statistics on (VKSORT_PIPELINE_STATS) and the validation layer where installed (any
// message fails the run, test_main.cpp). It checks that
//   - every sort's pipelines compile there: each algorithm and path a GPU takes, every key type, with
//     values and records, the rankings and stagings of the single pass, argsort, segmented sort, the
//     bucket lists' builder;
//   - the single pass's kernels at the device's own shapes keep their arrays in registers: no spills,
//     no scratch (an H200 once put the ballot kernel's keys and ranks in local memory: every key access
//     a memory access; bench/results/nvidia-h200_2026-11-27).
// The statistics (registers, shared memory, occupancy, instructions) go to stderr; for tables of them
// by build and shape, scripts/amd_kernel_stats.py.
// Where RADV or the family is not installed, the test is skipped.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "api/internals.hpp"
#include "buckets/bucket_builder.hpp"
#include "gpu/context.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

// Whether a Device made here would be RADV's null device. Tried in a child process first: RADV aborts
// the process on a family its version does not know (and an older Mesa may not know a newer family).
bool null_device_offered() {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    // The child's death is the answer, not a test failure: without the test framework's handlers.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(sig, SIG_DFL);
    auto made = Device::create(DeviceOptions{});
    _exit(made && made.value().info().name.find("Null hardware") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// RADV's null device, or null (the test then skips).
Device* null_device() {
  static std::unique_ptr<Device> device = [] {
    std::unique_ptr<Device> d;
    const char* family = std::getenv("RADV_FORCE_FAMILY");
    if (!family || !*family || !null_device_offered()) return d;
    // With the validation layer where installed, as every test: it checks each pipeline against what
    // this device offers and enables, which lavapipe's all-round support would never flag.
    DeviceOptions options;
    options.validation = validation_layer_available() ? 1 : 0;
    auto made = Device::create(options);
    if (!made) return d;
    if (made.value().info().name.find("Null hardware") == std::string::npos) return d;
    d = std::make_unique<Device>(std::move(made).value());
    return d;
  }();
  return device.get();
}

gpu::Context& context(Device& device) { return detail::context_of(device); }

// The pipelines compiled since `first` (an index into Context::compiled).
std::vector<gpu::CompiledPipeline> compiled_since(Device& device, size_t first) {
  gpu::Context& ctx = context(device);
  std::lock_guard lock(ctx.compiled_mutex);
  return {ctx.compiled.begin() + std::min(first, ctx.compiled.size()), ctx.compiled.end()};
}
size_t compiled_count(Device& device) {
  gpu::Context& ctx = context(device);
  std::lock_guard lock(ctx.compiled_mutex);
  return ctx.compiled.size();
}

// Whether the device is RADV's null device with statistics; else marks the case skipped.
Device* device_or_skip() {
  Device* d = null_device();
  if (!d) {
    test::skip("no RADV null device (set RADV_FORCE_FAMILY and VK_ICD_FILENAMES to Mesa's radeon_icd; tests/CMakeLists.txt does)");
    return nullptr;
  }
  if (!context(*d).pipeline_statistics) {
    test::skip("the RADV null device did not enable pipeline statistics (VKSORT_PIPELINE_STATS=1)");
    return nullptr;
  }
  return d;
}

std::string label(const SortOptions& o) {
  std::string s = std::string(to_string(o.key)) + " " + std::string(to_string(o.algorithm));
  if (o.order == Order::descending) s += " descending";
  if (o.value_bytes) s += " values " + std::to_string(o.value_bytes);
  if (o.tuning.radix_scan != RadixScan::automatic) s += " scan " + std::string(to_string(o.tuning.radix_scan));
  if (o.tuning.radix_ranking != RadixRanking::automatic) s += " ranking " + std::string(to_string(o.tuning.radix_ranking));
  if (o.tuning.radix_staging != RadixStaging::automatic) s += " staging " + std::string(to_string(o.tuning.radix_staging));
  return s;
}

// Builds a Sorter for `o` (compiling its pipelines); returns what compiled. A combination the device
// cannot take (Status unsupported: too little shared memory for a shape asked for) compiles nothing.
std::vector<gpu::CompiledPipeline> compile(Device& device, const SortOptions& o, bool& unsupported) {
  const size_t first = compiled_count(device);
  unsupported = false;
  try {
    Sorter sorter(device, o);
  } catch (const Error& e) {
    if (e.code() != Status::Code::unsupported) throw;
    unsupported = true;
  }
  return compiled_since(device, first);
}

}  // namespace

TEST_CASE("every sort's kernels compile with a GPU's compiler (RADV's null device)") {
  Device* device = device_or_skip();
  if (!device) return;
  MESSAGE("device: ", device->info().name, ", subgroup size ", device->info().subgroup_size,
          ", validation ", std::string(device->validation_enabled() ? "on" : "off"));
  size_t pipelines = 0;
  size_t sorts = 0;
  for (Key key : {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64}) {
    for (uint32_t value_bytes : {0u, 4u, 12u}) {
      std::vector<SortOptions> all;
      for (Algorithm a : {Algorithm::automatic, Algorithm::radix, Algorithm::brick, Algorithm::sample})
        all.push_back({.key = key, .algorithm = a, .value_bytes = value_bytes});
      SortOptions rts{.key = key, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
      rts.tuning.radix_scan = RadixScan::reduce_then_scan;
      all.push_back(rts);
      SortOptions columns{.key = key, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
      columns.tuning.radix_scan = RadixScan::single_pass;
      columns.tuning.radix_ranking = RadixRanking::columns;
      all.push_back(columns);
      for (RadixStaging staging : {RadixStaging::direct, RadixStaging::late, RadixStaging::early}) {
        SortOptions o{.key = key, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
        o.tuning.radix_ranking = RadixRanking::ballot;
        o.tuning.radix_staging = staging;
        all.push_back(o);
      }
      SortOptions descending{.key = key, .order = Order::descending, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
      all.push_back(descending);
      for (const SortOptions& o : all) {
        INFO(label(o));
        bool unsupported = false;
        std::vector<gpu::CompiledPipeline> compiled;
        CHECK_NOTHROW(compiled = compile(*device, o, unsupported));
        // Only a staging asked for may not fit (early needs room for histograms and tile side by side).
        if (unsupported) CHECK(o.tuning.radix_staging != RadixStaging::automatic);
        if (!unsupported) CHECK(!compiled.empty());
        pipelines += compiled.size();
        ++sorts;
      }
    }
  }
  for (uint32_t index_bytes : {4u, 8u}) {
    const size_t first = compiled_count(*device);
    CHECK_NOTHROW(ArgSorter(*device, SortOptions{.key = Key::f32}, index_bytes));
    CHECK(compiled_count(*device) > first);
  }
  for (SegmentedPath path : {SegmentedPath::composed_keys, SegmentedPath::by_size}) {
    const size_t first = compiled_count(*device);
    CHECK_NOTHROW(SegmentedSorter(*device, SortOptions{.key = Key::u32, .value_bytes = 4}, 0, path));
    CHECK(compiled_count(*device) > first);
  }
  // The bucket lists' kernels (their builder: the lists' buffers cannot be allocated here).
  for (BucketMode mode : {BucketMode::scatter, BucketMode::sort}) {
    const size_t first = compiled_count(*device);
    BucketOptions o{.buckets = 1000, .capacity = 100000};
    o.mode = mode;
    CHECK_NOTHROW(algo::BucketBuilder(context(*device), o));
    CHECK(compiled_count(*device) > first);
  }
  MESSAGE(sorts, " sorts, ", pipelines, " pipelines compiled");
}

TEST_CASE("the single pass's GPU kernels keep their arrays in registers (no spills, no scratch)") {
  Device* device = device_or_skip();
  if (!device) return;
  for (Key key : {Key::u32, Key::u64}) {
    for (uint32_t value_bytes : {0u, 4u}) {
      SortOptions o{.key = key, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
      INFO(label(o));
      bool unsupported = false;
      const std::vector<gpu::CompiledPipeline> compiled = compile(*device, o, unsupported);
      REQUIRE_FALSE(unsupported);
      size_t checked = 0;
      for (const gpu::CompiledPipeline& p : compiled) {
        if (p.kernel.find("radix_onesweep_ballot") != 0 && p.kernel.find("radix_onesweep_histogram") != 0) continue;
        INFO(p.kernel, " (", p.constants, ")");
        double spilled_v = -1, spilled_s = -1, scratch = -1;
        REQUIRE(p.number("Spilled VGPRs", spilled_v));
        REQUIRE(p.number("Spilled SGPRs", spilled_s));
        REQUIRE(p.number("Scratch size", scratch));
        CHECK(spilled_v == 0);
        CHECK(spilled_s == 0);
        CHECK(scratch == 0);
        ++checked;
      }
      // The pass kernel and the upfront histogram.
      CHECK(checked == 2);
    }
  }
}
