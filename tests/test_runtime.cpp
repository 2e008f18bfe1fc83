// SPDX-License-Identifier: MIT
// The runtime layer: device choice, requirement checks, buffers, validation messages.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <optional>
#include <thread>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "gpu/device_select.hpp"
#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "gpu/submit.hpp"
#include "io/atomic_file.hpp"
#include "io/format_bytes.hpp"
#include "sort/env_knobs.hpp"
#include "sort/radix_plain_scans.hpp"
#include "support/scoped_env.hpp"
#include "support/test_device.hpp"
#include "../shaders/common/interface.h"

using namespace vksort;

namespace {
DeviceListing listing(uint32_t index, const char* name, const char* type, bool usable = true) {
  DeviceListing d;
  d.index = index;
  d.info.name = name;
  d.info.type = type;
  d.usable = usable;
  d.unusable_why = usable ? "" : std::string("the bufferDeviceAddress feature is required but missing (device \"") + name + "\")";
  return d;
}
}  // namespace

TEST_CASE("device choice: discrete > integrated > virtual > cpu, by index, by name, with clear errors") {
  std::vector<DeviceListing> devices = {listing(0, "llvmpipe (LLVM 15)", "cpu"), listing(1, "Intel Arc", "integrated"),
                                        listing(2, "NVIDIA H100", "discrete", false), listing(3, "AMD RX", "discrete")};
  CHECK(gpu::choose_device("", devices) == 3);  // the usable discrete one
  CHECK(gpu::choose_device("0", devices) == 0);
  CHECK(gpu::choose_device("intel", devices) == 1);
  CHECK(gpu::choose_device("LLVMPIPE", devices) == 0);
  CHECK_THROWS_WITH_AS(gpu::choose_device("7", devices), doctest::Contains("no Vulkan device matches \"7\""), Error);
  // Digits are an index only (a name part they would take llvmpipe's "LLVM 15" for "1" or "15"): the
  // refusal says how to name a device whose name holds them.
  devices.push_back(listing(4, "NVIDIA GeForce RTX 4090", "discrete"));
  CHECK_THROWS_WITH_AS(gpu::choose_device("4090", devices), doctest::Contains("a part of a name needs more than digits"), Error);
  CHECK_THROWS_WITH_AS(gpu::choose_device("15", devices), doctest::Contains("digits select a device by its index"), Error);
  CHECK(gpu::choose_device("rtx 4090", devices) == 4);
  devices.pop_back();
  CHECK_THROWS_WITH_AS(gpu::choose_device("radeon pro", devices), doctest::Contains("devices: 0: llvmpipe"), Error);
  CHECK_THROWS_WITH_AS(gpu::choose_device("h100", devices), doctest::Contains("bufferDeviceAddress"), Error);
  devices.pop_back();
  CHECK(gpu::choose_device("", devices) == 1);
  CHECK_THROWS_WITH_AS(gpu::choose_device("", {}), doctest::Contains("no Vulkan device found"), Error);
}

// Any value but -1, 0 and 1 was taken as "on" (or "off" when negative), silently.
TEST_CASE("DeviceOptions::validation outside -1, 0 and 1 is refused") {
  for (const int bad : {7, 2, -2}) {
    CAPTURE(bad);
    DeviceOptions o;
    o.validation = bad;
    const Result<Device> r = Device::create(o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message.find("DeviceOptions::validation is " + std::to_string(bad)) != std::string::npos);
  }
}

TEST_CASE("a missing feature is named together with the device") {
  gpu::DeviceFacts f{"Old GPU", VK_API_VERSION_1_2, true, true, true, 128};
  CHECK(gpu::missing_requirement(f).empty());
  f.buffer_device_address = false;
  CHECK(gpu::missing_requirement(f) == "the bufferDeviceAddress feature is required but missing (device \"Old GPU\")");
  f.buffer_device_address = true;
  f.api_version = VK_API_VERSION_1_1;
  CHECK(gpu::missing_requirement(f) == "Vulkan 1.2 is required but the device offers 1.1 (device \"Old GPU\")");
  f.api_version = VK_API_VERSION_1_3;
  f.has_compute_queue = false;
  CHECK(gpu::missing_requirement(f).find("compute") != std::string::npos);
}

TEST_CASE("the real device list marks exactly one chosen device, and VKSORT_DEVICE picks by name") {
  std::vector<DeviceListing> devices = list_devices();
  REQUIRE(!devices.empty());
  CHECK(std::count_if(devices.begin(), devices.end(), [](const auto& d) { return d.chosen; }) == 1);
  const DeviceInfo& info = test::device().info();
  CHECK(!info.name.empty());
  CHECK(info.max_shared_memory >= 16384);  // Vulkan's guaranteed minimum
  CHECK(info.max_workgroup_count[0] >= 65535);

  const test::ScopedEnv device_env("VKSORT_DEVICE", "no-such-device-anywhere");
  CHECK_THROWS_WITH_AS(Device(DeviceOptions{.validation = 0}), doctest::Contains("no-such-device-anywhere"), Error);
  device_env.set(info.name.substr(0, 4));
  CHECK(Device(DeviceOptions{.validation = 0}).info().name == info.name);
}

TEST_CASE("choose_device names the device Device would create, by the same rule, without creating it") {
  const std::vector<DeviceListing> devices = list_devices();
  REQUIRE(!devices.empty());
  const Device gpu(DeviceOptions{.validation = 0});
  const DeviceListing pick = choose_device();
  CHECK(pick.chosen);
  CHECK(pick.info.name == gpu.info().name);
  CHECK(std::equal(std::begin(pick.info.uuid), std::end(pick.info.uuid), std::begin(gpu.info().uuid)));
  CHECK(devices[pick.index].chosen);
  CHECK(choose_device({.select = "0"}).index == 0);
  CHECK(choose_device({.select = pick.info.name}).index == pick.index);
  CHECK_THROWS_WITH_AS(choose_device({.select = "no-such-device-anywhere"}), doctest::Contains("no-such-device-anywhere"), Error);
  // An all-digit selector is an index only: a digit that occurs in a device's name is no match.
  int digits_tried = 0;
  for (const DeviceListing& d : devices)
    for (char c : d.info.name)
      if (c >= '0' && c <= '9' && uint32_t(c - '0') >= devices.size()) {
        CHECK_THROWS_WITH_AS(choose_device({.select = std::string(1, c)}), doctest::Contains("matches"), Error);
        ++digits_tried;
      }
  if (digits_tried == 0) MESSAGE("skipped: no device name holds a digit beyond the device count");
  const test::ScopedEnv device_env("VKSORT_DEVICE", "no-such-device-anywhere");
  CHECK_THROWS_WITH_AS(choose_device(), doctest::Contains("no-such-device-anywhere"), Error);
  CHECK(choose_device({.select = "0"}).index == 0);  // the option before the environment, as Device
}

TEST_CASE("without a Vulkan driver, listing and creating devices say so (not only VK_ERROR_INCOMPATIBLE_DRIVER)") {
  const test::ScopedEnv icd("VK_ICD_FILENAMES", "/nonexistent/vksort_no_driver.json");
  const test::ScopedEnv driver_files("VK_DRIVER_FILES", "/nonexistent/vksort_no_driver.json");
  const test::ScopedEnv add_driver_files("VK_ADD_DRIVER_FILES", std::nullopt);
  CHECK_THROWS_WITH_AS(list_devices(), doctest::Contains("no Vulkan driver found"), Error);
  CHECK_THROWS_WITH_AS(choose_device(), doctest::Contains("mesa-vulkan-drivers"), Error);
  CHECK_THROWS_WITH_AS(Device(DeviceOptions{.validation = 0}), doctest::Contains("no Vulkan driver found"), Error);
}

TEST_CASE("buffers round-trip bytes, at offsets, and refuse out-of-range copies") {
  Device& gpu = test::device();
  std::vector<uint32_t> data(100003);
  std::iota(data.begin(), data.end(), 7u);
  Buffer b(gpu, data.size() * 4, "round trip");
  CHECK(b.size() == data.size() * 4);
  CHECK(b.address() != 0);
  b.upload(std::as_bytes(std::span(data)));
  std::vector<uint32_t> back(data.size());
  b.download(std::as_writable_bytes(std::span(back)));
  CHECK(back == data);
  std::vector<uint32_t> part(10, 0xdeadbeef);
  b.upload(std::as_bytes(std::span(part)), 400);
  b.download(std::as_writable_bytes(std::span(back)));
  CHECK(back[99] == 106);
  CHECK(back[100] == 0xdeadbeef);
  CHECK(back[109] == 0xdeadbeef);
  CHECK(back[110] == 117);
  CHECK_THROWS_WITH_AS(b.upload(std::as_bytes(std::span(part)), b.size() - 8), doctest::Contains("exceeds"), Error);
}

TEST_CASE("Buffer::copy_from copies on the GPU, at offsets, and refuses what it cannot copy") {
  Device& gpu = test::device();
  std::vector<uint32_t> data(50001);
  std::iota(data.begin(), data.end(), 11u);
  Buffer a(gpu, data.size() * 4, "source"), b(gpu, data.size() * 4, "target");
  a.upload(std::as_bytes(std::span(data)));
  b.copy_from(a, a.size());
  std::vector<uint32_t> back(data.size());
  b.download(std::as_writable_bytes(std::span(back)));
  CHECK(back == data);
  // Words 10..19 of a into words 100..109 of b; within one buffer, ranges that do not overlap.
  b.copy_from(a, 40, 40, 400);
  a.copy_from(a, 40, 0, 800);
  b.download(std::as_writable_bytes(std::span(back)));
  CHECK(back[99] == 110);
  CHECK(back[100] == 21);
  CHECK(back[109] == 30);
  CHECK(back[110] == 121);
  a.download(std::as_writable_bytes(std::span(back)));
  CHECK(back[200] == 11);
  CHECK(back[209] == 20);
  CHECK(back[210] == 221);
  b.copy_from(a, 0);  // nothing to copy

  CHECK_THROWS_WITH_AS(b.copy_from(a, 8, a.size() - 4), doctest::Contains("copy (source) of 8 bytes"), Error);
  CHECK_THROWS_WITH_AS(b.copy_from(a, 8, 0, b.size() - 4), doctest::Contains("copy (destination) of 8 bytes"), Error);
  CHECK_THROWS_WITH_AS(a.copy_from(a, 40, 0, 20), doctest::Contains("overlapping"), Error);
  Buffer empty;
  CHECK_THROWS_WITH_AS(empty.copy_from(a, 4), doctest::Contains("copy into an empty"), Error);
  CHECK_THROWS_WITH_AS(a.copy_from(empty, 4), doctest::Contains("copy from an empty"), Error);
  Device other(test::options_like_device());
  Buffer theirs(other, 400, "elsewhere");
  CHECK_THROWS_WITH_AS(theirs.copy_from(a, 400), doctest::Contains("different vksort::Devices"), Error);
  // A refused copy changed nothing.
  b.download(std::as_writable_bytes(std::span(back)));
  CHECK(back[0] == 11);
}

// Sorter::sort_back_to_back (vksort bench --resident): several sorts of one input in one submission,
// each refilled from the input and its result copied aside, every result and every run's stats its
// own; for each algorithm, with values and with records; and every misuse refused before recording.
// ctest also runs it under synchronization validation (sync_back_to_back).
TEST_CASE("sorts back to back: each run refilled, sorted, kept; misuse refused") {
  Device& gpu = test::device();
  const uint64_t n = 3001;
  std::vector<uint32_t> keys(n), expected_keys;
  for (uint32_t i = 0; i < n; ++i) keys[i] = (i * 2654435761u) >> 9;
  const uint32_t runs = 3;
  for (Algorithm a : {Algorithm::radix, Algorithm::brick, Algorithm::sample, Algorithm::automatic})
    for (uint32_t value_bytes : {0u, 4u, 12u}) {
      CAPTURE(a);
      CAPTURE(value_bytes);
      const SortOptions o{.key = Key::u32, .algorithm = a, .value_bytes = value_bytes};
      Sorter sorter(gpu, o);
      // Values: each key's index in its first word, the rest of a record its index + 1, + 2.
      std::vector<uint32_t> values(value_bytes ? n * value_bytes / 4 : 0);
      for (uint64_t i = 0; i < values.size(); ++i) values[i] = uint32_t(i / (value_bytes / 4) + i % (value_bytes / 4));
      Buffer input_keys(gpu, n * 4, "input keys"), work_keys(gpu, n * 4, "keys");
      input_keys.upload(std::as_bytes(std::span(keys)));
      std::optional<Buffer> input_values, work_values;
      if (value_bytes) {
        input_values.emplace(gpu, values.size() * 4, "input values");
        work_values.emplace(gpu, values.size() * 4, "values");
        input_values->upload(std::as_bytes(std::span(values)));
      }
      std::vector<Buffer> kept_keys, kept_values;
      for (uint32_t k = 0; k < runs; ++k) {
        kept_keys.emplace_back(gpu, n * 4, "kept keys");
        if (value_bytes) kept_values.emplace_back(gpu, values.size() * 4, "kept values");
      }
      std::vector<Sorter::RunResult> results;
      for (uint32_t k = 0; k < runs; ++k) results.push_back({&kept_keys[k], value_bytes ? &kept_values[k] : nullptr});
      const std::vector<SortStats> stats = sorter.sort_back_to_back(work_keys, value_bytes ? &*work_values : nullptr, n, input_keys,
                                                                    value_bytes ? &*input_values : nullptr, results);
      REQUIRE(stats.size() == runs);
      // The stable order by key, and each result equal to it.
      std::vector<uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return keys[x] < keys[y]; });
      for (uint32_t k = 0; k < runs; ++k) {
        CAPTURE(k);
        std::vector<uint32_t> got(n);
        kept_keys[k].download(std::as_writable_bytes(std::span(got)));
        for (uint64_t i = 0; i < n; ++i) REQUIRE(got[i] == keys[order[i]]);
        if (value_bytes) {
          std::vector<uint32_t> got_values(values.size());
          kept_values[k].download(std::as_writable_bytes(std::span(got_values)));
          const uint32_t words = value_bytes / 4;
          for (uint64_t i = 0; i < n; ++i)
            for (uint32_t w = 0; w < words; ++w) REQUIRE(got_values[i * words + w] == order[i] + w);
        }
        CHECK(stats[k].timed() == gpu.info().timestamps);
        if (stats[k].timed()) CHECK(stats[k].gpu_ms > 0);
        CHECK_FALSE(stats[k].facts.empty());
      }
      // The input is untouched.
      std::vector<uint32_t> still(n);
      input_keys.download(std::as_writable_bytes(std::span(still)));
      CHECK(still == keys);
    }

  // Misuse, refused before anything runs.
  const SortOptions pairs{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 4};
  Sorter sorter(gpu, pairs);
  Buffer in_k(gpu, n * 4, "in keys"), in_v(gpu, n * 4, "in values"), k(gpu, n * 4, "keys"), v(gpu, n * 4, "values");
  Buffer r1(gpu, n * 4, "r1"), r2(gpu, n * 4, "r2"), small(gpu, n * 4 - 4, "small");
  auto refused = [&](Buffer* values, const Buffer* input_values, std::vector<Sorter::RunResult> results, const char* needle) {
    CAPTURE(needle);
    CHECK_THROWS_WITH_AS(sorter.sort_back_to_back(k, values, n, in_k, input_values, results), doctest::Contains(needle), Error);
  };
  refused(&v, &in_v, {}, "no results to keep");
  refused(&v, nullptr, {{&r1, &r2}}, "given together or not at all");
  refused(&v, &in_v, {{&r1, nullptr}}, "results[0].values is missing");
  refused(&v, &in_v, {{nullptr, &r2}}, "results[0].keys is missing");
  refused(&v, &in_v, {{&small, &r2}}, "results[0].keys holds");
  refused(&v, &in_v, {{&r1, &r2}, {&r2, &r1}}, "results[1] names a buffer used elsewhere");
  refused(&v, &in_v, {{&k, &r2}}, "results[0] names a buffer used elsewhere");
  refused(&v, &in_v, {{&r1, &in_v}}, "results[0] names a buffer used elsewhere");
  refused(&v, &v, {{&r1, &r2}}, "must not be the ones sorted");
  refused(&k, &in_v, {{&r1, &r2}}, "the keys and values ranges overlap in one VkBuffer");
  Sorter keys_only(gpu, SortOptions{.key = Key::u32, .algorithm = Algorithm::radix});
  CHECK_THROWS_WITH_AS(keys_only.sort_back_to_back(k, nullptr, n, in_k, nullptr, std::vector<Sorter::RunResult>{{&r1, &r2}}),
                       doctest::Contains("results[0].values is given without values"), Error);
  CHECK_THROWS_WITH_AS(keys_only.sort_back_to_back(k, nullptr, n, k, nullptr, std::vector<Sorter::RunResult>{{&r1, nullptr}}),
                       doctest::Contains("must not be the ones sorted"), Error);
  CHECK_THROWS_WITH_AS(keys_only.sort_back_to_back(k, nullptr, n + 1, in_k, nullptr, std::vector<Sorter::RunResult>{{&r1, nullptr}}),
                       doctest::Contains("input_keys holds"), Error);
  Device other(test::options_like_device());
  Buffer theirs(other, n * 4, "elsewhere");
  CHECK_THROWS_WITH_AS(keys_only.sort_back_to_back(k, nullptr, n, in_k, nullptr, std::vector<Sorter::RunResult>{{&theirs, nullptr}}),
                       doctest::Contains("results[0].keys"), Error);
}

TEST_CASE("pretend dirty memory: every new device buffer holds its own nonzero stale word") {
  DeviceOptions options = test::options_like_device();
  options.pretend.dirty_memory = true;
  Device dirty(options);
  std::vector<uint32_t> first(1001), second(1001);
  Buffer a(dirty, first.size() * 4, "a"), b(dirty, second.size() * 4, "b");
  a.download(std::as_writable_bytes(std::span(first)));
  b.download(std::as_writable_bytes(std::span(second)));
  CHECK(first[0] != 0);
  CHECK(std::all_of(first.begin(), first.end(), [&](uint32_t w) { return w == first[0]; }));
  CHECK(std::all_of(second.begin(), second.end(), [&](uint32_t w) { return w == second[0]; }));
  CHECK(second[0] != 0);
  CHECK(second[0] != first[0]);
}

namespace {
// What one workgroup of util/shared_probe.comp finds in workgroup memory (every word the device allows
// a workgroup), dispatched through a Recorder like every vksort kernel; `seed` gets the seed of the
// fill that DeviceOptions::pretend.dirty_shared_memory recorded before it.
std::vector<uint32_t> probe_shared_memory(Device& device, uint32_t& seed) {
  gpu::Context& ctx = detail::context_of(device);
  const uint32_t words = ctx.info.max_shared_memory / 4;
  gpu::Kernel probe(ctx, "util_shared_probe", 64, {{SPEC_SHARED_WORDS, words}}, sizeof(shader::DirtySharedPush));
  Buffer out(device, words * 4, "probe");
  shader::DirtySharedPush push{};
  push.dst = out.address();
  seed = ctx.dirty_dispatches.load();
  gpu::submit_and_wait(ctx, "the shared-memory probe", [&](VkCommandBuffer cmd) {
    gpu::Recorder rec(ctx, cmd);
    rec.dispatch(probe, push, 1);
  });
  std::vector<uint32_t> found(words);
  out.download(std::as_writable_bytes(std::span(found)));
  return found;
}
bool holds_pattern(const std::vector<uint32_t>& words, uint32_t seed) {
  for (uint32_t i = 0; i < words.size(); ++i)
    if (words[i] != shader::dirty_shared_word(i, seed)) return false;
  return true;
}
}  // namespace

// Each kernel finds its workgroup memory filled by the fill dispatched just before it: every word the
// device allows, with that dispatch's seed. lavapipe's workers keep their workgroup memory between
// dispatches; on one worker (LP_NUM_THREADS=1, as ctest runtime_dirty_shared runs it) the fill surely
// ran on the worker that runs the probe. With more, which worker runs which workgroup is the driver's.
TEST_CASE("pretend dirty shared memory: a kernel finds the fill's pattern in its workgroup memory") {
  if (const char* threads = std::getenv("LP_NUM_THREADS"); !threads || std::string(threads) != "1") {
    test::skip("needs LP_NUM_THREADS=1 (ctest runtime_dirty_shared sets it): with more lavapipe workers, whether "
               "the probe runs on one that ran the fill is the driver's choice; with 0 nothing carries over");
    return;
  }
  DeviceOptions options = test::options_like_device();
  options.pretend.dirty_shared_memory = true;
  Device dirty(options);
  if (DeviceInfo info = dirty.info(); info.type != "cpu") {
    test::skip("not a CPU driver: whether a GPU's next workgroup sees the fill is the GPU's choice");
    return;
  }
  uint32_t first_seed = 0, second_seed = 0;
  const std::vector<uint32_t> first = probe_shared_memory(dirty, first_seed);
  const std::vector<uint32_t> second = probe_shared_memory(dirty, second_seed);
  CHECK(holds_pattern(first, first_seed));
  CHECK(holds_pattern(second, second_seed));
  CHECK(first_seed != second_seed);  // a new pattern each dispatch
  CHECK(first != second);
  // The same probe on a device without the option finds no such pattern (the checks above are not
  // satisfied by anything the probe could find).
  Device clean(test::options_like_device());
  uint32_t seed = 0;
  const std::vector<uint32_t> found = probe_shared_memory(clean, seed);
  CHECK(detail::context_of(clean).dirty_dispatches.load() == 0);
  for (uint32_t s = 0; s < 64; ++s) CHECK_FALSE(holds_pattern(found, s));
}

TEST_CASE("byte counts read alike in every message: the one formatter's rounding and units") {
  using vksort::io::format_bytes;
  CHECK(format_bytes(0) == "0 bytes");
  CHECK(format_bytes(1) == "1 byte");
  CHECK(format_bytes(1023) == "1023 bytes");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(32768) == "32 KiB");
  CHECK(format_bytes((1u << 20) - 1) == "1 MiB");  // not "1024 KiB": rounding may carry into the next unit
  CHECK(format_bytes((1u << 20) - 52) == "1023.9 KiB");
  CHECK(format_bytes(uint64_t(16) << 30) == "16 GiB");
  CHECK(format_bytes(uint64_t(1) << 50) == "1 PiB");
  CHECK(format_bytes(UINT64_MAX) == "16 EiB");
}

namespace {
// A fresh folder under the temporary one, removed with its contents on leaving.
struct IoFolder {
  std::filesystem::path root;
  IoFolder() {
    std::string templ = (std::filesystem::temp_directory_path() / "vksort-io-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    root = templ;
  }
  ~IoFolder() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
};

// The kind of FileError `f` throws (io when it throws none, which the checks then report).
template <class F>
std::optional<io::FileError::Kind> file_error_kind(F f, std::string* what = nullptr) {
  try {
    f();
  } catch (const io::FileError& e) {
    if (what) *what = e.what();
    return e.kind();
  }
  return std::nullopt;
}
}  // namespace

// A name longer than the file system takes passed the up-front checks (the trial file has no name, or
// a hidden one cut to fit) and failed at commit's rename, after the whole sort: now a destination error
// before anything is written. The limits are the file system's own (pathconf), not a hard-coded 255.
TEST_CASE("io: a name or a path longer than the file system takes is refused up front") {
  namespace fs = std::filesystem;
  IoFolder f;
  const long name_max = pathconf(f.root.c_str(), _PC_NAME_MAX), path_max = pathconf(f.root.c_str(), _PC_PATH_MAX);
  REQUIRE(name_max > 0);
  REQUIRE(path_max > 0);
  std::string what;
  const fs::path too_long = f.root / std::string(size_t(name_max) + 1, 'y');
  CHECK(file_error_kind([&] { io::check_destination(too_long, "output"); }, &what) == io::FileError::Kind::destination);
  CHECK_MESSAGE(what.find("File name too long") != std::string::npos, what);
  CHECK(file_error_kind([&] { io::AtomicFile file(too_long, "output"); }) == io::FileError::Kind::destination);
  // A link to such a name: the file it names is what would be replaced.
  fs::create_symlink(too_long.filename(), f.root / "link.bin");
  CHECK(file_error_kind([&] { io::check_destination(f.root / "link.bin", "output"); }) == io::FileError::Kind::destination);
  // The longest name it takes is written, its temporary's hidden name being cut to fit.
  const fs::path longest = f.root / std::string(size_t(name_max), 'z');
  io::write_file(longest, "output", "data");
  CHECK(fs::file_size(longest) == 4);

  // Whole paths, through real nested folders (not a path spelt long, "root/././.", which the kernel takes
  // shorter than it is spelt): `folder` leaves room for the destination's path but not for that
  // of its temporary (hidden, named after it), `deeper` not even for the destination's; both failed only
  // at the end (linkat, rename). A path of path_max bytes counting the terminating NUL is too long.
  const auto padded = [&](size_t length, char letter) {  // a chain of its own for each letter
    fs::path p = f.root;
    while (p.string().size() < length) {
      const size_t left = length - p.string().size() - 1;  // "/" and a name
      p /= std::string(std::min<size_t>(left > 200 && left < 400 ? left / 2 : left, 200), letter);
    }
    REQUIRE(p.string().size() == length);
    fs::create_directories(p);
    return p;
  };
  const fs::path deeper = padded(size_t(path_max) - 4, 'd') / "o.bin";  // path_max + 2 bytes
  CHECK(file_error_kind([&] { io::check_destination(deeper, "output"); }, &what) == io::FileError::Kind::destination);
  CHECK_MESSAGE(what.find("File name too long") != std::string::npos, what);
  const fs::path folder = padded(size_t(path_max) - 20, 'e') / "o.bin";  // path_max - 14 bytes
  CHECK(file_error_kind([&] { io::check_destination(folder, "output"); }) == io::FileError::Kind::destination);
  CHECK(file_error_kind([&] { io::write_file(folder, "output", "data"); }) == io::FileError::Kind::destination);
  CHECK(fs::is_empty(folder.parent_path()));
  const fs::path roomy = padded(size_t(path_max) - 60, 'f') / "o.bin";
  io::write_file(roomy, "output", "data");
  CHECK(fs::file_size(roomy) == 4);
}

// "link/../o.bin" where link names a folder elsewhere: the kernel goes up from the folder the link names,
// so that is where the file goes (lexically normal, the path was "o.bin", and the file went beside the link).
TEST_CASE("io: a destination through a linked folder and '..' goes where the kernel resolves it") {
  namespace fs = std::filesystem;
  IoFolder f;
  fs::create_directories(f.root / "w");
  fs::create_directories(f.root / "real" / "sub");
  fs::create_directory_symlink(f.root / "real" / "sub", f.root / "w" / "link");
  const fs::path through = f.root / "w" / "link" / ".." / "o.bin";
  io::write_file(through, "output", "data");
  CHECK(fs::exists(f.root / "real" / "o.bin"));
  CHECK_FALSE(fs::exists(f.root / "w" / "o.bin"));
  // The same destination spelt by way of the folder it resolves to is one file.
  CHECK(io::same_destination(through, f.root / "real" / "o.bin"));
  CHECK_FALSE(io::same_destination(through, f.root / "w" / "o.bin"));
}

// std::filesystem::temp_directory_path takes TMPDIR= for a folder named "" and fails: empty means unset.
TEST_CASE("io: the temporary folder: $TMPDIR when set and not empty, else the fallbacks") {
  IoFolder f;
  std::error_code ec;
  {
    const test::ScopedEnv tmpdir("TMPDIR", f.root.string());
    CHECK(io::temp_folder(ec) == f.root);
    CHECK_FALSE(ec);
  }
  std::filesystem::path unset;
  {
    const test::ScopedEnv tmpdir("TMPDIR", std::nullopt);
    unset = io::temp_folder(ec);
    REQUIRE_FALSE(ec);
    CHECK(unset == std::filesystem::temp_directory_path());
  }
  {
    const test::ScopedEnv tmpdir("TMPDIR", std::string());
    CHECK(io::temp_folder(ec) == unset);
    CHECK_FALSE(ec);
  }
  {
    const test::ScopedEnv tmpdir("TMPDIR", (f.root / "nowhere").string());
    CHECK(io::temp_folder(ec).empty());
    CHECK(ec == std::errc::no_such_file_or_directory);
  }
}

TEST_CASE("an impossible allocation says what, how big and why") {
  Device& gpu = test::device();
  const uint64_t huge = uint64_t(1) << 50;
  CHECK_THROWS_WITH_AS(Buffer(gpu, huge, "keys"), doctest::Contains("allocating 1 PiB for keys on"), Error);
}

TEST_CASE("a validation error is raised as vksort::Error, not just printed") {
  Device& gpu = test::device();
  if (!gpu.validation_enabled()) {
    test::skip("validation layer not installed: nothing to raise");
    return;
  }
  gpu::Context& ctx = detail::context_of(gpu);
  // A zero-sized buffer breaks VUID-VkBufferCreateInfo-size-00912.
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 0;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  const uint64_t before = gpu::validation_message_count();
  if (ctx.vk.vkCreateBuffer(ctx.device, &info, nullptr, &buffer) == VK_SUCCESS && buffer)
    ctx.vk.vkDestroyBuffer(ctx.device, buffer, nullptr);
  const uint64_t provoked = gpu::validation_message_count() - before;
  CHECK(provoked >= 1);
  test::expect_validation_messages(provoked);
  CHECK_THROWS_WITH_AS(ctx.raise_validation_messages(), doctest::Contains("VUID-VkBufferCreateInfo-size"), Error);
  CHECK_NOTHROW(ctx.raise_validation_messages());  // raised once, then cleared
}

// Thread A recorded into a command buffer it never began: its record() returned ok, and thread B's
// correct sort then threw A's validation messages.
TEST_CASE("a record()'s validation messages are its own: returned by it, not raised by another thread") {
  Device& gpu = test::device();
  if (!gpu.validation_enabled()) {
    test::skip("validation layer not installed: no messages to attribute");
    return;
  }
  gpu::Context& ctx = detail::context_of(gpu);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = ctx.info.queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  REQUIRE(ctx.vk.vkCreateCommandPool(ctx.device, &pool_info, nullptr, &pool) == VK_SUCCESS);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer never_begun = VK_NULL_HANDLE;
  REQUIRE(ctx.vk.vkAllocateCommandBuffers(ctx.device, &alloc, &never_begun) == VK_SUCCESS);
  const uint32_t n = 1000;
  Sorter sorter(gpu, {.algorithm = Algorithm::radix});
  Buffer keys(gpu, n * 4, "keys"), scratch(gpu, sorter.scratch_bytes(n), "scratch");
  const uint64_t before = gpu::validation_message_count();
  Status recorded;
  std::thread a([&] { recorded = sorter.record(never_begun, {keys.ref(), {}, scratch.ref()}, n); });
  a.join();
  const uint64_t provoked = gpu::validation_message_count() - before;
  CHECK(provoked >= 1);
  test::expect_validation_messages(provoked);
  CHECK(recorded.code == Status::Code::vulkan_error);
  CHECK(recorded.result == VK_ERROR_VALIDATION_FAILED_EXT);
  CHECK_MESSAGE(recorded.message.find("recording") != std::string::npos, recorded.message);
  // Another thread's sort on the same Device sees none of them.
  std::vector<uint32_t> data(n);
  for (uint32_t i = 0; i < n; ++i) data[i] = (i * 2654435761u) >> 7;
  std::vector<uint32_t> expected = data;
  std::sort(expected.begin(), expected.end());
  CHECK_NOTHROW(vksort::sort(gpu, std::span(data)));
  CHECK(data == expected);
  ctx.vk.vkDestroyCommandPool(ctx.device, pool, nullptr);
}

TEST_CASE("asking for validation without the layer installed, or a bad selection, fails clearly") {
  if (!validation_layer_available())
    CHECK_THROWS_WITH_AS(Device(DeviceOptions{.validation = 1}), doctest::Contains("vulkan-validationlayers"), Error);
  CHECK_THROWS_WITH_AS(Device(DeviceOptions{.select = "99", .validation = 0}), doctest::Contains("no Vulkan device matches"), Error);
}

TEST_CASE("grids cover every workgroup within maxComputeWorkGroupCount, or refuse naming the limit") {
  gpu::Context ctx;
  ctx.info.name = "tiny";
  for (uint32_t limit : {65535u, 7u, 1u}) {
    ctx.info.max_workgroup_count[0] = ctx.info.max_workgroup_count[1] = ctx.info.max_workgroup_count[2] = limit;
    for (uint64_t groups : {1ull, 6ull, 7ull, 8ull, 48ull, 49ull, 50ull, 342ull, 343ull, 65535ull, 65536ull, 1000003ull}) {
      if (groups > uint64_t(limit) * limit * limit) {
        CHECK_THROWS_WITH_AS(gpu::grid_for(ctx, groups), doctest::Contains("exceeds maxComputeWorkGroupCount"), Error);
        continue;
      }
      gpu::Grid g = gpu::grid_for(ctx, groups);
      INFO("limit ", limit, " groups ", groups, " grid ", g.x, "x", g.y, "x", g.z);
      CHECK(g.x <= limit);
      CHECK(g.y <= limit);
      CHECK(g.z <= limit);
      const uint64_t covered = uint64_t(g.x) * g.y * g.z;
      CHECK(covered >= groups);
      CHECK(covered - groups < uint64_t(g.x) * g.y);  // excess stays within the last layer
    }
  }
}

TEST_CASE("a borrowed device: vksort sorts with the application's handles and destroys none of them") {
  Device& owner = test::device();
  gpu::Context& app = detail::context_of(owner);
  BorrowedVulkan handles{app.instance, app.physical, app.device, app.queue, app.info.queue_family,
                         app.ifn.vkGetInstanceProcAddr};
  {
    Device borrowed(handles);
    CHECK(borrowed.vk_device() == app.device);
    CHECK(borrowed.info().name == owner.info().name);
    std::vector<int32_t> keys = {5, -3, 2147483647, -2147483647 - 1, 0, 5, -3};
    std::vector<uint32_t> ids = {0, 1, 2, 3, 4, 5, 6};
    // The borrowed device submits on the application's queue: keep the owner's submissions apart.
    sort(borrowed, std::span(keys), std::span(ids), {.key = Key::i32, .algorithm = Algorithm::brick});
    CHECK(keys == std::vector<int32_t>{-2147483647 - 1, -3, -3, 0, 5, 5, 2147483647});
    CHECK(ids == std::vector<uint32_t>{3, 1, 6, 4, 0, 5, 2});
  }
  // The application's device still works after the borrowed one is gone.
  std::vector<uint32_t> more = {3, 1, 2};
  sort(owner, std::span(more), {.algorithm = Algorithm::brick});
  CHECK(more == std::vector<uint32_t>{1, 2, 3});
  CHECK_THROWS_WITH_AS(Device(BorrowedVulkan{}), doctest::Contains("must all be set"), Error);
}

TEST_CASE("without timestamps, times are reported as unavailable, never as zero") {
  DeviceOptions options = test::options_like_device();
  options.pretend.no_timestamps = true;
  Device gpu(options);
  CHECK_FALSE(gpu.info().timestamps);
  std::vector<float> keys = {3.0f, -0.0f, 0.0f, -1.0f};
  SortStats stats = sort(gpu, std::span(keys), {.key = Key::f32, .algorithm = Algorithm::brick});
  CHECK_FALSE(stats.timed());
  CHECK(stats.gpu_ms < 0);
  CHECK(stats.phases_ms.empty());
  CHECK(stats.fact("rounds_run").has_value());  // facts do not need timestamps
  CHECK(std::signbit(keys[1]));
  CHECK(keys == std::vector<float>{-1.0f, -0.0f, 0.0f, 3.0f});
}

// The typed host sort takes the key kind from the element type (issue 16: float and int32 spans
// without .key were sorted as u32 bits). Values with both signs, so a u32 order would differ.
template <class K>
void check_typed_sort(std::vector<K> keys) {
  std::vector<K> expected = keys;
  std::stable_sort(expected.begin(), expected.end());
  std::vector<uint32_t> ids(keys.size()), expected_ids(keys.size());
  std::iota(ids.begin(), ids.end(), 0u);
  std::iota(expected_ids.begin(), expected_ids.end(), 0u);
  std::stable_sort(expected_ids.begin(), expected_ids.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<K> pairs = keys;
  sort(test::device(), std::span(keys));
  CHECK(keys == expected);
  sort(test::device(), std::span(pairs), std::span(ids), {.order = Order::ascending});
  CHECK(pairs == expected);
  CHECK(ids == expected_ids);
}

TEST_CASE("the typed host sort deduces the key kind from the element type") {
  static_assert(key_of<float> == Key::f32 && key_of<double> == Key::f64);
  static_assert(key_of<int32_t> == Key::i32 && key_of<int64_t> == Key::i64);
  static_assert(key_of<uint32_t> == Key::u32 && key_of<uint64_t> == Key::u64);
  static_assert(!key_of<bool>.has_value() && !key_of<int16_t>.has_value());
  check_typed_sort<float>({1.5f, -2.0f, 0.5f, -0.25f, 3.0f, -0.0f, 0.0f, -1e30f});
  check_typed_sort<double>({1.5, -2.0, 0.5, -0.25, 3.0, -1e300, 7e-300});
  check_typed_sort<int32_t>({3, -1, 2, -5, INT32_MIN, INT32_MAX, 0});
  check_typed_sort<int64_t>({3, -1, 2, -5, INT64_MIN, INT64_MAX, int64_t(1) << 40});
  check_typed_sort<uint32_t>({3, 0x80000000u, 2, 0xFFFFFFFFu, 0});
  check_typed_sort<uint64_t>({3, uint64_t(1) << 63, 2, ~uint64_t(0), 0});
  // Descending follows the element type too: float order, not bit order.
  std::vector<float> f = {1.5f, -2.0f, 0.5f, -0.25f};
  sort(test::device(), std::span(f), {.order = Order::descending});
  CHECK(f == std::vector<float>{1.5f, 0.5f, -0.25f, -2.0f});
  // The kind named explicitly and matching is fine.
  std::vector<int32_t> i = {3, -1, 2, -5};
  sort(test::device(), std::span(i), {.key = Key::i32});
  CHECK(i == std::vector<int32_t>{-5, -1, 2, 3});
}

TEST_CASE("the typed host sort refuses a key kind that contradicts the element type") {
  Device& gpu = test::device();
  std::vector<float> f = {1.5f, -2.0f};
  std::vector<uint32_t> ids = {0, 1};
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(f), {.key = Key::u32}),
                       doctest::Contains("SortOptions::key is u32 but the keys are f32"), Error);
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(f), std::span(ids), {.key = Key::i32}),
                       doctest::Contains("SortOptions::key is i32 but the keys are f32"), Error);
  CHECK(f == std::vector<float>{1.5f, -2.0f});  // untouched
  std::vector<uint64_t> wide = {2, 1};
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(wide), {.key = Key::f64}),
                       doctest::Contains("SortOptions::key is f64 but the keys are u64"), Error);
  std::vector<int32_t> narrow = {2, 1};
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(narrow), {.key = Key::u32}),
                       doctest::Contains("SortOptions::key is u32 but the keys are i32"), Error);
  // An element type with no kind of its own needs .key, of its size.
  enum class Cell : uint32_t {};
  std::vector<Cell> cells = {Cell(2), Cell(1)};
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(cells)), doctest::Contains("must be given"), Error);
  CHECK_THROWS_WITH_AS(sort(gpu, std::span(cells), {.key = Key::u64}), doctest::Contains("size does not match"), Error);
  sort(gpu, std::span(cells), {.key = Key::u32});
  CHECK(cells == std::vector<Cell>{Cell(1), Cell(2)});
  // Elements of other widths, bool and const elements do not compile.
  using vksort::sort;
  static_assert(!std::is_invocable_v<decltype([](auto s) -> decltype(sort(test::device(), s)) {}), std::span<int16_t>>);
  static_assert(!std::is_invocable_v<decltype([](auto s) -> decltype(sort(test::device(), s)) {}), std::span<const float>>);
  static_assert(std::is_invocable_v<decltype([](auto s) -> decltype(sort(test::device(), s)) {}), std::span<float>>);
}

TEST_CASE("the copy-bandwidth yardstick times whole words, refuses nonsense, and is absent without timestamps") {
  Device& device = test::device();
  const CopyBandwidth bw = measure_copy_bandwidth(device, 1000001, 3);
  CHECK(bw.bytes == 1000004);  // rounded up to whole 32-bit words
  if (device.info().timestamps) {
    CHECK(bw.timed());
    CHECK(bw.ms > 0);
    CHECK(bw.ms_min <= bw.ms);
    CHECK(bw.gb_per_s() == doctest::Approx(2.0 * 1000004 / bw.ms / 1e6));
  }
  CHECK_THROWS_WITH_AS(measure_copy_bandwidth(device, 0), doctest::Contains("0 bytes"), Error);
  // (bytes + 3) / 4 wrapped to 0 words: a copy of nothing at 0 GB/s instead of a refusal.
  CHECK_THROWS_WITH_AS(measure_copy_bandwidth(device, UINT64_MAX), doctest::Contains("at most 2^32 - 1 words"), Error);
  CHECK_THROWS_WITH_AS(measure_copy_bandwidth(device, UINT64_MAX - 2), doctest::Contains("at most 2^32 - 1 words"), Error);
  CHECK_THROWS_WITH_AS(measure_copy_bandwidth(device, 64, 0), doctest::Contains("at least 1"), Error);
  CHECK_THROWS_WITH_AS(measure_copy_bandwidth(device, 64, 1, -1.0), doctest::Contains("warmup_ms"), Error);
  CHECK_THROWS_WITH_AS(measure_copy_bandwidth(device, 64, 1, std::nan("")), doctest::Contains("warmup_ms"), Error);
  // Warm-up copies for at least warmup_ms before the timed ones: the call takes at least that long.
  const auto began = std::chrono::steady_clock::now();
  const CopyBandwidth warmed = measure_copy_bandwidth(device, 4096, 1, 200.0);
  CHECK(std::chrono::steady_clock::now() - began >= std::chrono::milliseconds(200));
  CHECK(warmed.bytes == 4096);
  if (device.info().timestamps) CHECK(warmed.ms > 0);

  DeviceOptions options;
  options.validation = device.validation_enabled() ? 1 : 0;
  options.pretend.no_timestamps = true;
  Device untimed(options);
  const CopyBandwidth none = measure_copy_bandwidth(untimed, 4096, 1);
  CHECK(!none.timed());
  CHECK(none.gb_per_s() < 0);
}

// The sorts' experiment and diagnostic knobs (sort/env_knobs.hpp): unset and "" are the default, and any
// value a knob does not take is refused with its name, its value and what it takes.
TEST_CASE("environment knobs: defaults when unset or empty, strict values, and what each takes") {
  using namespace vksort::algo;
  const char* name = "VKSORT_TEST_KNOB";
  test::ScopedEnv knob(name, std::nullopt);
  CHECK(!env_switch(name));
  CHECK(!env_count(name, 1, 128, "a count").has_value());
  CHECK(env_choice(name, {16, 32}) == 0);
  CHECK(env_list(name, {"count", "spine"}).empty());
  knob.set("");
  CHECK(!env_switch(name));
  CHECK(!env_count(name, 1, 128, "a count").has_value());
  CHECK(env_choice(name, {16, 32}) == 0);
  CHECK(env_list(name, {"count", "spine"}).empty());

  knob.set("0");
  CHECK(!env_switch(name));
  knob.set("1");
  CHECK(env_switch(name));
  for (const char* bad : {"yes", "true", "2", " 1", "01"}) {
    knob.set(bad);
    CHECK_THROWS_WITH_AS(env_switch(name), ("VKSORT_TEST_KNOB is \"" + std::string(bad) + "\"; it takes 0 or 1").c_str(), Error);
  }

  knob.set("128");
  CHECK(env_count(name, 1, 128, "a count, 1 to 128") == 128u);
  knob.set("007");
  CHECK(env_count(name, 1, 128, "a count, 1 to 128") == 7u);
  for (const char* bad : {"0", "129", "-1", "1e2", "12 ", "4294967297", "x"}) {
    knob.set(bad);
    CHECK_THROWS_WITH_AS(env_count(name, 1, 128, "a count, 1 to 128"),
                         ("VKSORT_TEST_KNOB is \"" + std::string(bad) + "\"; it takes a count, 1 to 128").c_str(), Error);
  }

  knob.set("32");
  CHECK(env_choice(name, {16, 32}) == 32u);
  knob.set("8");
  CHECK(env_choice(name, {1, 2, 4, 8}) == 8u);
  knob.set("08");
  CHECK_THROWS_WITH_AS(env_choice(name, {1, 2, 4, 8}), "VKSORT_TEST_KNOB is \"08\"; it takes 1, 2, 4 or 8", Error);
  knob.set("24");
  CHECK_THROWS_WITH_AS(env_choice(name, {16, 32}), "VKSORT_TEST_KNOB is \"24\"; it takes 16 or 32", Error);

  knob.set("spine");
  CHECK(env_list(name, {"count", "spine", "scatter"}) == std::vector<std::string>{"spine"});
  knob.set("scatter,count,scatter");
  CHECK(env_list(name, {"count", "spine", "scatter"}) == std::vector<std::string>{"scatter", "count", "scatter"});
  for (const char* bad : {"count,warp", ",count", "count,,spine", "Count", "count spine"}) {
    knob.set(bad);
    CHECK_THROWS_WITH_AS(env_list(name, {"count", "spine", "scatter"}),
                         ("VKSORT_TEST_KNOB is \"" + std::string(bad) + "\"; it takes a comma-separated list of count, spine and scatter").c_str(),
                         Error);
  }
}

// Reduce-then-scan's kernels built without subgroups (sort/radix_plain_scans.hpp): on NVIDIA the scatter
// alone for 64-bit keys by default (a driver workaround, narrowed to that kernel by an H200's bisection
// in session 33), elsewhere and for 32-bit keys never; VKSORT_RADIX_PLAIN_SCANS
// names exactly which instead, "none" none, on any device.
TEST_CASE("reduce-then-scan's plain scans: the NVIDIA 64-bit workaround, and the diagnostic that overrides it") {
  using namespace vksort::algo;
  test::ScopedEnv knob("VKSORT_RADIX_PLAIN_SCANS", std::nullopt);
  DeviceInfo nvidia;
  nvidia.vendor_id = vendor_nvidia;
  nvidia.subgroup_arithmetic = true;
  DeviceInfo amd = nvidia;
  amd.vendor_id = 0x1002;
  DeviceInfo nvidia_plain = nvidia;  // no subgroup arithmetic: every kernel is plain anyway
  nvidia_plain.subgroup_arithmetic = false;
  auto none = [](const PlainScans& p) { return !p.count && !p.spine && !p.scatter; };
  for (Key key : {Key::u64, Key::i64, Key::f64}) {
    const PlainScans p = radix_plain_scans(nvidia, key);
    CHECK((p.scatter && !p.count && !p.spine));
    CHECK(p.workaround);
    CHECK(none(radix_plain_scans(amd, key)));
    CHECK(!radix_plain_scans(nvidia_plain, key).workaround);
  }
  for (Key key : {Key::u32, Key::i32, Key::f32}) {
    const PlainScans p = radix_plain_scans(nvidia, key);
    CHECK(none(p));
    CHECK(!p.workaround);
  }

  knob.set("");  // as unset
  CHECK(radix_plain_scans(nvidia, Key::u64).workaround);
  knob.set("none");
  for (const DeviceInfo& d : {nvidia, amd}) {
    const PlainScans p = radix_plain_scans(d, Key::u64);
    CHECK(none(p));
    CHECK(!p.workaround);
  }
  knob.set("scatter");
  for (Key key : {Key::u32, Key::u64}) {
    const PlainScans p = radix_plain_scans(nvidia, key);
    CHECK((p.scatter && !p.count && !p.spine && !p.workaround));
  }
  knob.set("spine,count");
  CHECK(radix_plain_scans(amd, Key::u32).count);
  CHECK(radix_plain_scans(amd, Key::u32).spine);
  CHECK(!radix_plain_scans(amd, Key::u32).scatter);
  for (const char* bad : {"none,count", "count,none"}) {
    knob.set(bad);
    CHECK_THROWS_WITH_AS(radix_plain_scans(nvidia, Key::u64),
                         ("VKSORT_RADIX_PLAIN_SCANS is \"" + std::string(bad) + "\"; \"none\" stands alone (no kernel without subgroups)").c_str(),
                         Error);
  }
  knob.set("warp");
  CHECK_THROWS_WITH_AS(radix_plain_scans(nvidia, Key::u64),
                       "VKSORT_RADIX_PLAIN_SCANS is \"warp\"; it takes a comma-separated list of count, spine, scatter and none", Error);
}
