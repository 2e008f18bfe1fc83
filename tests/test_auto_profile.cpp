// SPDX-License-Identifier: MIT
// Algorithm::automatic's profile: the choice by n, the file format (round trip and clear errors), where
// it is cached, and that a corrupt cache never stops sorting.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>

#include "support/scoped_env.hpp"
#include "support/test_device.hpp"
#include "vksort/vksort.hpp"

using namespace vksort;
namespace fs = std::filesystem;

namespace {

using test::ScopedEnv;

fs::path temp_folder() {
  std::string templ = (fs::temp_directory_path() / "vksort-profile-XXXXXX").string();
  REQUIRE(mkdtemp(templ.data()) != nullptr);
  return templ;
}

AutoProfile sample_profile() {
  AutoProfile p;
  p.of(Key::u32, false) = {0, 0};
  p.of(Key::f32, true) = {4096, 1u << 22};
  p.of(Key::i64, false) = {AutoCrossovers::one_tile, 1u << 20};
  p.of(Key::u64, true) = {123, 0, 4};
  p.of(Key::u32, false).single_pass_workgroup = 384;
  p.of(Key::u32, false).single_pass_items = 16;
  p.of(Key::u64, true).single_pass_workgroup = 5;
  p.of(Key::u64, true).single_pass_items = 65536;
  return p;
}

}  // namespace

TEST_CASE("auto profile: brick up to the crossover (or one tile), sample from its crossover, radix between") {
  AutoProfile p = sample_profile();
  CHECK(p.choose(Key::u32, false, 1, 2048) == Algorithm::radix);  // brick never
  CHECK(p.choose(Key::u32, false, 0, 2048) == Algorithm::radix);  // never means never, also for no keys
  CHECK(p.choose(Key::i32, true, 4096, 2048) == Algorithm::brick);
  CHECK(p.choose(Key::i32, true, 4097, 2048) == Algorithm::radix);
  CHECK(p.choose(Key::i32, true, 1u << 22, 2048) == Algorithm::sample);
  CHECK(p.choose(Key::f64, false, 2048, 2048) == Algorithm::brick);  // one tile
  CHECK(p.choose(Key::f64, false, 2049, 2048) == Algorithm::radix);
  CHECK(p.choose(Key::u64, false, 1u << 20, 2048) == Algorithm::sample);
  CHECK(p.choose(Key::u64, true, 1u << 30, 2048) == Algorithm::radix);
  const AutoProfile defaults;
  for (Key k : {Key::u32, Key::f64})
    for (bool v : {false, true}) {
      CHECK(defaults.choose(k, v, 1000, 1024) == Algorithm::brick);
      CHECK(defaults.choose(k, v, 1025, 1024) == Algorithm::radix);
      CHECK(defaults.choose(k, v, uint64_t(1) << 30, 1024) == Algorithm::radix);
    }
}

TEST_CASE("auto profile: the text round-trips, and every malformed line is named") {
  const DeviceInfo& info = test::device().info();
  const AutoProfile p = sample_profile();
  const std::string text = p.to_text(info);
  CHECK(text.find(info.name) != std::string::npos);
  const AutoProfile back = AutoProfile::parse(text, "mem");
  for (int w = 0; w < 2; ++w)
    for (int v = 0; v < 2; ++v) CHECK(back.crossovers[w][v] == p.crossovers[w][v]);
  CHECK(back.source == "mem");

  struct Bad {
    std::string text, needle;
  };
  const std::string ok = "vksort-auto-profile 1\n32 keys brick_up_to 1 sample_from 0\n32 values brick_up_to 1 sample_from 0\n"
                         "64 keys brick_up_to 1 sample_from 0\n";
  const Bad bad[] = {
      {"", "empty"},
      {"hello 1\n", "line 1: not a vksort auto profile"},
      {"vksort-auto-profile 2\n", "version 2"},
      // The version is one word, "1" (these were read as version 1).
      {"vksort-auto-profile 1.5\n", "version 1.5 is not supported"},
      {"vksort-auto-profile 1x\n", "version 1x is not supported"},
      {"vksort-auto-profile 1 junk\n", "unexpected 'junk' after the version"},
      // Past 2^64 - 1 (strtoull's ERANGE) was read as 2^64 - 1, i.e. one_tile.
      {ok + "64 values brick_up_to 18446744073709551616 sample_from 0\n", "'18446744073709551616' is more than 2^64 - 1"},
      {ok, "no line for '64 values'"},
      {ok + "64 values brick_up_to -3 sample_from 0\n", "line 5: brick_up_to '-3'"},
      {ok + "64 values brick_up_to x sample_from 0\n", "brick_up_to 'x'"},
      // A minus sign was read into the unsigned count: 2^64 - 1, "never sample sort".
      {ok + "64 values brick_up_to 5 sample_from -1\n", "line 5: sample_from '-1' is not a count"},
      {ok + "64 values brick_up_to 5 sample_from 12abc\n", "sample_from '12abc'"},
      {ok + "64 values brick_up_to +5 sample_from 0\n", "brick_up_to '+5'"},
      {ok + "64 values brick_up_to 5 sample_from 0 extra\n", "unexpected 'extra'"},
      {ok + "48 values brick_up_to 5 sample_from 0\n", "line 5: expected"},
      {ok + "32 keys brick_up_to 5 sample_from 0\n", "'32 keys' is given twice"},
      {ok + "64 values brick_up_to 5 sample_from 0 radix_bits 3\n", "radix_bits must be 2, 4 or 8"},
      {ok + "64 values brick_up_to 5 sample_from 0 radix_bits\n", "radix_bits must be 2, 4 or 8"},
      {ok + "64 values brick_up_to 5 sample_from 0 radix_bits 4 x\n", "unexpected 'x' after the radix_bits"},
      {ok + "64 values brick_up_to 5 sample_from 0 radix_bits 4 radix_bits 8\n", "unexpected 'radix_bits' after the radix_bits"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape 384\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape 0x16\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape 384x\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape 384x65537\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape -4x16\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape 4x16x2\n", "single_pass_shape must be"},
      {ok + "64 values brick_up_to 5 sample_from 0 single_pass_shape 4x16 single_pass_shape 8x8\n",
       "unexpected 'single_pass_shape' after the single_pass_shape"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    CHECK_THROWS_WITH_AS(AutoProfile::parse(b.text, "f.txt"), doctest::Contains(b.needle.c_str()), Error);
  }
  // Blank lines of spaces and indented comments are blank lines and comments (the whole file was refused,
  // and the cache fell back to the defaults without a word).
  const AutoProfile spaced = AutoProfile::parse("  # a note\n" + ok + "   \n\t# another\n64 values brick_up_to 7 sample_from 0\n", "f.txt");
  CHECK(spaced.of(Key::u64, true).brick_up_to == 7);
}

// save_auto_profile wrote what no profile file holds: the next load failed to parse it (radix_bits 3)
// or to_text left it out (a 0x16 shape), and the defaults were used without a word.
TEST_CASE("auto profile: save_auto_profile refuses a profile that would not load back") {
  const fs::path dir = temp_folder();
  const DeviceInfo& info = test::device().info();
  AutoProfile bits;
  bits.of(Key::u32, false).radix_bits = 3;
  const std::string path = (dir / "p.txt").string();
  CHECK_THROWS_WITH_AS(save_auto_profile(bits, info, path), doctest::Contains("radix_bits is 3"), Error);
  AutoProfile shape;
  shape.of(Key::u64, true).single_pass_workgroup = 0;
  shape.of(Key::u64, true).single_pass_items = 16;
  CHECK_THROWS_AS(save_auto_profile(shape, info, path), Error);
  CHECK(!fs::exists(path));
  fs::remove_all(dir);
}

// A profile that cannot be written says whose fault it is: a folder that is a file is the caller's
// (invalid_argument), a write the disk refused is not (io_error; a file size limit stands in for a full
// disk, with SIGXFSZ ignored so the write fails with EFBIG instead of ending the process).
TEST_CASE("auto profile: save_auto_profile tells a bad path (invalid_argument) from a failed write (io_error)") {
  const fs::path dir = temp_folder();
  const DeviceInfo& info = test::device().info();
  std::ofstream(dir / "file") << "x";
  try {
    save_auto_profile(sample_profile(), info, (dir / "file" / "p.txt").string());
    FAIL("a path under a file was taken");
  } catch (const Error& e) {
    CHECK(e.code() == Status::Code::invalid_argument);
  }
  struct sigaction ignore {}, old_action {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old_action);
  rlimit old_limit{};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  rlimit limit = old_limit;
  limit.rlim_cur = 4;  // fewer bytes than any profile
  Status::Code code = Status::Code::ok;
  std::string what;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  try {
    save_auto_profile(sample_profile(), info, (dir / "p.txt").string());
  } catch (const Error& e) {
    code = e.code(), what = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  sigaction(SIGXFSZ, &old_action, nullptr);
  CHECK(code == Status::Code::io_error);
  CHECK(what.find("File too large") != std::string::npos);
  CHECK(to_string(code) == "io_error");
  CHECK(!fs::exists(dir / "p.txt"));
  fs::remove_all(dir);
}

// Device::set_auto_profile took any values, so every automatic sort on the Device failed afterwards,
// blaming Tuning::radix_bits, which the caller never set.
TEST_CASE("auto profile: set_auto_profile refuses values no profile file can hold, keeping the profile it had") {
  Device gpu(test::options_like_device());
  const AutoProfile before = gpu.auto_profile();
  AutoProfile bits = before, shape = before, half = before;
  bits.crossovers[1][0].radix_bits = 3;
  shape.crossovers[0][1].single_pass_workgroup = 70000;
  shape.crossovers[0][1].single_pass_items = 16;
  half.crossovers[0][0].single_pass_workgroup = 256;
  CHECK_THROWS_WITH_AS(gpu.set_auto_profile(bits), doctest::Contains("'64 keys': radix_bits is 3"), Error);
  CHECK_THROWS_WITH_AS(gpu.set_auto_profile(shape), doctest::Contains("'32 values': single_pass_shape is 70000x16"), Error);
  CHECK_THROWS_WITH_AS(gpu.set_auto_profile(half), doctest::Contains("single_pass_shape is 256x0"), Error);
  for (int w = 0; w < 2; ++w)
    for (int v = 0; v < 2; ++v) CHECK(gpu.auto_profile().crossovers[w][v] == before.crossovers[w][v]);
  std::vector<uint64_t> keys = {3, 1, 2};
  sort(gpu, std::span(keys));
  CHECK(keys == std::vector<uint64_t>{1, 2, 3});
}

TEST_CASE("auto profile: cached per device and driver; saved atomically; a corrupt cache falls back to defaults") {
  const DeviceInfo& info = test::device().info();
  const fs::path dir = temp_folder();
  {
    ScopedEnv cache("VKSORT_CACHE_DIR", (dir / "nested").string());
    const std::string path = auto_profile_path(info);
    CHECK(path.starts_with((dir / "nested").string()));
    CHECK(path.find(std::to_string(info.driver_version)) != std::string::npos);
    CHECK(load_auto_profile(info).source == "built-in defaults");  // nothing tuned yet

    save_auto_profile(sample_profile(), info, path);
    CHECK(fs::exists(path));
    CHECK(std::distance(fs::directory_iterator(dir / "nested"), fs::directory_iterator()) == 1);  // no temporary left
    const AutoProfile loaded = load_auto_profile(info);
    CHECK(loaded.source == path);
    CHECK(loaded.of(Key::u64, true) == sample_profile().of(Key::u64, true));

    std::ofstream(path) << "vksort-auto-profile 1\ngarbage\n";
    const AutoProfile fallback = load_auto_profile(info);
    CHECK(fallback.source.starts_with("built-in defaults (ignored "));
    CHECK(fallback.source.find("line 2") != std::string::npos);
    CHECK(fallback.of(Key::u32, false) == AutoCrossovers{});
  }
  {
    ScopedEnv cache("VKSORT_CACHE_DIR", "");
    ScopedEnv xdg("XDG_CACHE_HOME", (dir / "xdg").string());
    CHECK(auto_profile_path(info).starts_with((dir / "xdg" / "vksort").string()));
  }
  fs::remove_all(dir);
}

TEST_CASE("automatic sorts by the device's profile: brick, radix and sample by n, each result correct") {
  const fs::path dir = temp_folder();
  AutoProfile p;
  p.of(Key::i32, true) = {700, 6000};
  const std::string file = (dir / "profile.txt").string();
  std::ofstream(file) << p.to_text(test::device().info());
  DeviceOptions options = test::options_like_device();
  options.auto_profile = file;
  Device gpu(options);
  CHECK(gpu.auto_profile().source == file);

  const SortOptions o{.key = Key::i32, .value_bytes = 4};
  Sorter sorter(gpu, o);
  CHECK(sorter.algorithm_for(700) == Algorithm::brick);
  CHECK(sorter.algorithm_for(701) == Algorithm::radix);
  CHECK(sorter.algorithm_for(6000) == Algorithm::sample);
  CHECK(sorter.algorithm() == Algorithm::sample);
  // Each size really runs the algorithm chosen for it (its facts say which) and sorts correctly.
  const std::pair<uint32_t, const char*> cases[] = {{700, "rounds_run"}, {701, "passes_run"}, {6001, "largest_bucket"}};
  for (const auto& [n, fact] : cases) {
    CAPTURE(n);
    std::vector<int32_t> keys(n);
    std::vector<uint32_t> values(n);
    for (uint32_t i = 0; i < n; ++i) keys[i] = int32_t((i * 2654435761u) >> 7) - (1 << 24), values[i] = i;
    auto expected = keys;
    std::stable_sort(expected.begin(), expected.end());
    const SortStats stats = sort(gpu, std::span(keys), std::span(values), o);
    CHECK_MESSAGE(stats.fact(fact).has_value(), fact);
    CHECK(keys == expected);
    for (uint32_t i = 0; i < n; ++i) REQUIRE(int32_t((values[i] * 2654435761u) >> 7) - (1 << 24) == keys[i]);
  }
  // The profile's digit width reaches radix sorts that leave it to the device, not those that set it.
  AutoProfile digits;
  digits.of(Key::i32, true).radix_bits = 4;
  gpu.set_auto_profile(digits);
  const SortOptions explicit_radix{.key = Key::i32, .algorithm = Algorithm::radix, .value_bytes = 4};
  std::vector<int32_t> few = {5, -1, 3, 3, 0};
  std::vector<uint32_t> ids = {0, 1, 2, 3, 4};
  CHECK(sort(gpu, std::span(few), std::span(ids), explicit_radix).fact("radix_bits") == 4.0);
  CHECK(few == std::vector<int32_t>{-1, 0, 3, 3, 5});
  SortOptions eight = explicit_radix;
  eight.tuning.radix_bits = 8;
  CHECK(sort(gpu, std::span(few), std::span(ids), eight).fact("radix_bits") == 8.0);
  gpu.set_auto_profile(AutoProfile::parse(p.to_text(gpu.info()), file));
  // A bit range is radix sort's alone.
  CHECK(Sorter(gpu, SortOptions{.key = Key::i32, .value_bytes = 4, .end_bit = 16}).algorithm_for(10) == Algorithm::radix);
  // set_auto_profile reaches Sorters created afterwards, on every copy of the device.
  Device copy = gpu;
  copy.set_auto_profile(AutoProfile{});
  CHECK(gpu.auto_profile().source == "built-in defaults");
  Sorter defaults(gpu, o);
  CHECK(defaults.algorithm_for(uint64_t(1) << 20) == Algorithm::radix);
  CHECK(defaults.algorithm_for(6000) == Algorithm::radix);
  CHECK(sorter.algorithm_for(6000) == Algorithm::sample);  // read when created

  options.auto_profile = (dir / "missing.txt").string();
  CHECK_THROWS_WITH_AS(Device{options}, doctest::Contains("missing.txt"), Error);
  options.auto_profile = dir.string();  // was refused as "empty, not a vksort auto profile"
  CHECK_THROWS_WITH_AS(Device{options}, doctest::Contains("is a folder, not a file"), Error);
  options.auto_profile = "builtin";
  CHECK(Device(options).auto_profile().source == "built-in defaults");
  fs::remove_all(dir);
}

// `vksort tune` writes brick_up_to 0 where brick sort never won (GPUs): automatic Sorters then build no
// brick sort, and n = 0 (0 <= 0) chose it anyway, so every sort and scratch query of no keys threw
// "internal: automatic chose brick sort without constructing it", as did segmented sorts with an
// empty segment beside a large one (the empty ones' tile layout is one of 0 keys).
TEST_CASE("a profile where brick sort never wins sorts no keys, and empty segments, without brick sort") {
  Device gpu(test::options_like_device());
  AutoProfile never;
  for (auto& by_values : never.crossovers)
    for (AutoCrossovers& c : by_values) c = {0, 0};
  gpu.set_auto_profile(never);
  Sorter sorter(gpu, {.key = Key::u32, .value_bytes = 4});
  CHECK(sorter.algorithm_for(0) == Algorithm::radix);
  CHECK(sorter.scratch_bytes(0) > 0);
  Buffer keys(gpu, 16, "keys"), values(gpu, 16, "values");
  CHECK_NOTHROW(sorter.sort(keys, &values, 0));
  CHECK(ArgSorter(gpu, {}).scratch_bytes(0) > 0);
  CHECK(SegmentedSorter(gpu, {}).scratch_bytes(0, 1) > 0);
  std::vector<float> none;
  CHECK_NOTHROW(sort(gpu, std::span(none)));
  // An empty segment (sorted by the small-segment kernel, with no keys) beside one sorted apart.
  std::vector<uint32_t> seg_keys(3000), offsets = {0, 0, 3000};
  for (uint32_t i = 0; i < 3000; ++i) seg_keys[i] = (i * 2654435761u) >> 3;
  auto expected = seg_keys;
  std::sort(expected.begin(), expected.end());
  const SortStats stats = segmented_sort(gpu, std::span(seg_keys), std::span<const uint32_t>(offsets), {},
                                         SegmentedPath::by_size);
  CHECK(stats.fact("sorted_apart") == 1.0);
  CHECK(seg_keys == expected);
}

// The profile's single-pass shape (`vksort tune` measures it on GPUs) reaches radix sorts whose single
// pass ranks by subgroup ballots and whose Tuning leaves the shape to the device; a shape the device
// refuses falls back to the built-in one (a cache never stops sorting); other kinds of sort, and
// sorts that set either part of the shape, are untouched. On lavapipe posing as a GPU (ballot ranking).
TEST_CASE("the profile's single-pass shape: applied where it fits, passed over where refused") {
  DeviceOptions options = test::options_like_device();
  options.pretend.gpu = true;
  Device gpu(options);
  const DeviceInfo& info = gpu.info();
  if (!info.subgroup_ballot || !info.subgroup_shuffle || info.subgroup_size == 0) {
    test::skip("the device has no subgroup ballot: the single pass ranks by columns, which no profile shapes");
    return;
  }
  const uint32_t lanes = info.subgroup_size;
  const SortOptions radix{.key = Key::u32, .algorithm = Algorithm::radix};
  auto sorted = [](std::vector<uint32_t> keys) {
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  std::vector<uint32_t> input(5000);
  for (uint32_t i = 0; i < input.size(); ++i) input[i] = (i * 2654435761u) ^ (i >> 3);
  const std::vector<uint32_t> expected = sorted(input);
  // Sorts `input` with `o` on `gpu` as its profile now stands; returns the stats, checking the result.
  auto run = [&](const SortOptions& o) {
    std::vector<uint32_t> keys = input;
    const SortStats stats = sort(gpu, std::span(keys), o);
    CHECK(keys == expected);
    return stats;
  };

  AutoProfile shaped;
  shaped.of(Key::u32, false).single_pass_workgroup = 3 * lanes;  // 3 subgroups x 5 keys: no power of two
  shaped.of(Key::u32, false).single_pass_items = 5;
  gpu.set_auto_profile(shaped);
  SortStats s = run(radix);
  CHECK(s.fact("single_pass") == 1);
  CHECK(s.fact("shape_from_profile") == 1);
  CHECK(s.fact("workgroup") == 3 * lanes);
  CHECK(s.fact("tile") == 15 * lanes);
  // Automatic (radix at this size) too; pairs have a line of their own, here without a shape.
  CHECK(run(SortOptions{.key = Key::u32}).fact("shape_from_profile") == 1);
  {
    std::vector<uint32_t> keys = input, values(input.size(), 7);
    CHECK(sort(gpu, std::span(keys), std::span(values), radix).fact("shape_from_profile") == 0);
    CHECK(keys == expected);
  }
  // A shape set in Tuning, even in part, wins over the profile's.
  SortOptions items = radix;
  items.tuning.items_per_thread = 8;
  s = run(items);
  CHECK(s.fact("shape_from_profile") == 0);
  CHECK(s.fact("tile") == s.fact("workgroup").value_or(0) * 8);
  SortOptions workgroup = radix;
  workgroup.tuning.workgroup_size = 2 * lanes;
  s = run(workgroup);
  CHECK(s.fact("shape_from_profile") == 0);
  CHECK(s.fact("workgroup") == 2 * lanes);
  // Counter columns take no profile shape.
  SortOptions columns = radix;
  columns.tuning.radix_scan = RadixScan::single_pass;
  columns.tuning.radix_ranking = RadixRanking::columns;
  CHECK(run(columns).fact("shape_from_profile") == 0);

  // Shapes this device refuses: the built-in shape instead, sorting right.
  const SortStats built_in = [&] {
    gpu.set_auto_profile(AutoProfile{});
    return run(radix);
  }();
  CHECK(built_in.fact("shape_from_profile") == 0);
  for (auto [wg, per] : {std::pair{info.max_workgroup_invocations * 2, 4u},  // beyond the device's workgroups
                         std::pair{lanes, 40000u},                           // beyond the ballot's 2^15-key tiles
                         std::pair{lanes + lanes / 2, 4u}}) {                // not whole subgroups
    CAPTURE(wg);
    CAPTURE(per);
    AutoProfile refused;
    refused.of(Key::u32, false).single_pass_workgroup = wg;
    refused.of(Key::u32, false).single_pass_items = per;
    gpu.set_auto_profile(refused);
    s = run(radix);
    CHECK(s.fact("shape_from_profile") == 0);
    CHECK(s.fact("workgroup") == built_in.fact("workgroup"));
    CHECK(s.fact("tile") == built_in.fact("tile"));
  }
}

TEST_CASE("the built-in profile: brick sort for what one brick tile holds, radix beyond") {
  for (Key k : {Key::u32, Key::f64})
    for (uint32_t v : {0u, 4u}) {
      const Sorter brick(test::device(), SortOptions{.key = k, .algorithm = Algorithm::brick, .value_bytes = v});
      const Sorter automatic(test::device(), SortOptions{.key = k, .value_bytes = v});
      CHECK(automatic.algorithm_for(1) == Algorithm::brick);
      CHECK(automatic.algorithm_for(brick.tile_size()) == Algorithm::brick);
      CHECK(automatic.algorithm_for(brick.tile_size() + 1) == Algorithm::radix);
      CHECK(automatic.algorithm() == Algorithm::radix);
    }
}
