// SPDX-License-Identifier: MIT
// Radix sort's reduce-then-scan path against the CPU reference: every key type x order x with/without values on awkward sizes
// and inputs, with the device's own block size and with tiny blocks that make every multi-block path
// run at small n, and every digit width. Then the GPU-side decisions (sorted on entry, early stop,
// skipped passes, the finish copy), key bit ranges, determinism, small devices and the recording
// path. Test names of the matrix contain the key type so ctest can split it by that.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "sort/radix_plain_scans.hpp"
#include "host_keys.hpp"
#include "reference_sort.hpp"
#include "support/sort_check.hpp"
#include "support/app_commands.hpp"
#include "support/scoped_env.hpp"
#include "support/test_device.hpp"

using namespace vksort;
using workloads::Distribution;
using workloads::DistributionSpec;

namespace {

using test::check_on;
constexpr auto& all_inputs = test::all_distributions;

// This file tests the reduce-then-scan path (the single pass has test_radix_single_pass.cpp), on every
// device: `automatic` would take the single pass on GPUs.
SortOptions radix(Key key, Order order = Order::ascending, uint32_t value_bytes = 0) {
  SortOptions o{.key = key, .order = order, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
  o.tuning.radix_scan = RadixScan::reduce_then_scan;
  return o;
}

// Sorts `keys` (raw bytes of options.key) with values = original index on `gpu`; returns the sorted
// keys and values.
struct Sorted {
  std::vector<std::byte> keys;
  std::vector<uint32_t> values;
  SortStats stats;
};
Sorted gpu_sort(Device& gpu, Sorter& sorter, std::vector<std::byte> keys) {
  const uint64_t n = keys.size() / key_bytes(sorter.options().key);
  Sorted out;
  out.values = sorter.options().value_bytes ? workloads::generate_values(n) : std::vector<uint32_t>{};
  Buffer kb(gpu, std::max<size_t>(keys.size(), 8), "keys");
  kb.upload(keys);
  std::optional<Buffer> vb;
  if (!out.values.empty()) {
    vb.emplace(gpu, std::max<size_t>(n * 4, 8), "values");
    vb->upload(std::as_bytes(std::span(out.values)));
  }
  out.stats = sorter.sort(kb, vb ? &*vb : nullptr, n);
  kb.download(keys);
  if (vb) vb->download(std::as_writable_bytes(std::span(out.values)));
  out.keys = std::move(keys);
  return out;
}

// "" when sorting `keys` on the GPU gives the reference result byte for byte.
std::string check_keys(Sorter& sorter, const std::vector<std::byte>& keys, SortStats* stats = nullptr,
                       Device* gpu = nullptr) {
  const SortOptions& o = sorter.options();
  Sorted got = gpu_sort(gpu ? *gpu : test::device(), sorter, keys);
  if (stats) *stats = got.stats;
  std::vector<std::byte> expected = keys;
  std::vector<uint32_t> expected_values =
      o.value_bytes ? workloads::generate_values(keys.size() / key_bytes(o.key)) : std::vector<uint32_t>{};
  workloads::reference_sort(o.key, o.order, expected, expected_values);
  return workloads::first_difference(o.key, expected, got.keys, expected_values, got.values);
}

template <class U>
std::vector<std::byte> to_bytes(const std::vector<U>& v) {
  std::vector<std::byte> b(v.size() * sizeof(U));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// The facts of a small sort by `sorter`.
SortStats small_sort_stats(Sorter& sorter) {
  SortStats stats;
  std::vector<std::byte> keys = workloads::generate_keys(sorter.options().key, {Distribution::uniform, 0}, 100, 3);
  REQUIRE(check_keys(sorter, keys, &stats) == "");
  return stats;
}
bool ranks_by_columns(Sorter& sorter) { return small_sort_stats(sorter).fact("ranking_columns") == 1.0; }

// A radix Sorter for `o` with `ranking` forced, checked to use it; the splits scan with subgroup
// operations exactly where the device has subgroup arithmetic (not with VKSORT_TEST_NO_SUBGROUPS),
// except for 64-bit keys on NVIDIA, a driver workaround (sort/radix_plain_scans.hpp). Under the
// diagnostic VKSORT_RADIX_PLAIN_SCANS (GPU runs bisecting that defect) the listed kernels scan without
// subgroups by design, so the scans are not checked then.
Sorter ranked(SortOptions o, RadixRanking ranking) {
  o.tuning.radix_ranking = ranking;
  Sorter sorter(test::device(), o);
  const SortStats stats = small_sort_stats(sorter);
  const bool columns = ranking == RadixRanking::columns;
  CHECK(stats.fact("ranking_columns") == (columns ? 1.0 : 0.0));
  const DeviceInfo& info = test::device().info();
  const bool workaround = info.subgroup_arithmetic && info.vendor_id == algo::vendor_nvidia && key_bytes(o.key) == 8;
  if (!std::getenv("VKSORT_RADIX_PLAIN_SCANS")) {
    CHECK(stats.fact("subgroup_scans") == (info.subgroup_arithmetic && !columns && !workaround ? 1.0 : 0.0));
    if (!columns) CHECK(stats.fact("plain_scans_workaround") == (workaround ? 1.0 : 0.0));
  }
  return sorter;
}

// The whole matrix for one key type, once per block ranking (both stable, so the same bytes).
void radix_matrix(Key key) {
  uint64_t seed = 1;
  for (RadixRanking ranking : {RadixRanking::splits, RadixRanking::columns}) {
    INFO("ranking ", to_string(ranking));
    const bool columns = ranking == RadixRanking::columns;
    for (Order order : {Order::ascending, Order::descending}) {
      for (uint32_t value_bytes : {0u, 4u}) {
        SortOptions o = radix(key, order, value_bytes);
        Sorter device_blocks = ranked(o, ranking);
        const uint32_t block = device_blocks.tile_size();
        for (uint64_t n : test::awkward_sizes(16, block, 100000)) test::check_case(device_blocks, {{Distribution::uniform, 0}, n, seed++});
        for (Distribution d : all_inputs)
          for (uint64_t n : {uint64_t(block) + 1, uint64_t(5 * block - 3), uint64_t(33331)})
            test::check_case(device_blocks, {workloads::default_spec(d), n, seed++});

        // Tiny blocks (4 invocations x 4 keys): every size from one block to two blocks + 1, and many
        // blocks, so the scan has several levels and blocks straddle digit runs.
        o.tuning = {.workgroup_size = 4, .items_per_thread = 4, .radix_scan = RadixScan::reduce_then_scan};
        Sorter small_blocks = ranked(o, ranking);
        REQUIRE(small_blocks.tile_size() == 16);
        for (uint64_t n = 0; n <= 2 * 16 + 1; ++n) test::check_case(small_blocks, {{Distribution::uniform, 0}, n, seed++});
        for (Distribution d : all_inputs)
          for (uint64_t n : {uint64_t(100), uint64_t(257)}) test::check_case(small_blocks, {workloads::default_spec(d), n, seed++});
        for (Distribution d : test::many_tile_distributions)
          test::check_case(small_blocks, {workloads::default_spec(d), 5000, seed++});

        // The other digit widths, on the device's blocks and on tiny ones. Columns need a radix of at
        // least the workgroup size: 2-bit digits only on 4-invocation workgroups.
        for (uint32_t bits : {2u, 4u}) {
          SortOptions w = radix(key, order, value_bytes);
          w.tuning.radix_bits = bits;
          if (columns && bits == 2) w.tuning.workgroup_size = 4;
          Sorter wide = ranked(w, ranking);
          for (uint64_t n : {uint64_t(3), uint64_t(block) - 1, uint64_t(2 * block + 1), uint64_t(40009)})
            test::check_case(wide, {{Distribution::uniform, 0}, n, seed++});
          for (Distribution d : {Distribution::special, Distribution::few_unique, Distribution::nearly_sorted})
            test::check_case(wide, {workloads::default_spec(d), 3001, seed++});
          w.tuning = {.workgroup_size = 4, .items_per_thread = 4, .radix_bits = bits, .radix_scan = RadixScan::reduce_then_scan};
          Sorter narrow = ranked(w, ranking);
          for (uint64_t n : {uint64_t(17), uint64_t(1000)}) test::check_case(narrow, {{Distribution::uniform, 0}, n, seed++});
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("radix sort u32") { radix_matrix(Key::u32); }
TEST_CASE("radix sort i32") { radix_matrix(Key::i32); }
TEST_CASE("radix sort f32") { radix_matrix(Key::f32); }
TEST_CASE("radix sort u64") { radix_matrix(Key::u64); }
TEST_CASE("radix sort i64") { radix_matrix(Key::i64); }
TEST_CASE("radix sort f64") { radix_matrix(Key::f64); }

// NVIDIA's reduce-then-scan defect (scripts/gpu-check.sh, stage 6): the u64 matrix's first sort with
// values (this one: the splits at the device's blocks, 100 keys) lost keys after the keys-only sorts had
// run, and not in a process of its own. Here alone, so that gpu-check can run it first in a fresh
// process with workgroup memory dirtied (VKSORT_TEST_DIRTY_SHARED=1) and without: a failure with it
// alone says the scatter reads workgroup memory it did not write.
TEST_CASE("radix sort u64 with values: the matrix's first sort with values, alone") {
  ranked(radix(Key::u64, Order::ascending, 4), RadixRanking::splits);
}

TEST_CASE("radix sort of large arrays (several million keys)") {
  Sorter with_values(test::device(), radix(Key::u32, Order::ascending, 4));
  test::check_case(with_values, {{Distribution::uniform, 0}, (uint64_t(1) << 22) + 1, 7});
  Sorter keys_only(test::device(), radix(Key::f32, Order::descending));
  test::check_case(keys_only, {{Distribution::gaussian, 0}, uint64_t(1) << 22, 8});
  Sorter wide(test::device(), radix(Key::i64, Order::ascending, 4));
  test::check_case(wide, {{Distribution::uniform, 0}, (uint64_t(1) << 21) - 1, 9});
}

// Shaders reach keys through device addresses, not descriptors, so one array may exceed what one
// storage-buffer binding can see (maxStorageBufferRange: 128 MiB on lavapipe). Both sides of that limit.
TEST_CASE("radix sort of an array larger than maxStorageBufferRange") {
  const uint64_t range = test::device().info().max_storage_buffer_range;
  const uint64_t beyond = range / 8 + 3;  // u64 keys: 24 bytes past the limit
  if (beyond > (uint64_t(1) << 25)) {
    test::skip("maxStorageBufferRange " + std::to_string(range) + " bytes: beyond it is too large for a test on this device");
    return;
  }
  Sorter sorter(test::device(), radix(Key::u64));
  test::check_case(sorter, {{Distribution::uniform, 0}, range / 8 - 1, 11});
  test::check_case(sorter, {{Distribution::uniform, 0}, beyond, 12});
}

// Which path automatic (Tuning::radix_scan) takes: the single pass on GPUs and on CPU drivers that bind
// its buffers; reduce-then-scan on CPU drivers that cannot (VKSORT_BOUND_BUFFERS=0 poses as one), where
// the single pass refuses a tuning made for reduce-then-scan (2-bit digits in workgroups of 8
// invocations: the single pass's counter columns need at least as many digits as invocations), and,
// on a CPU driver that binds, for arrays larger than one binding (the next test).
SortOptions automatic_radix(Key key, Order order = Order::ascending, uint32_t value_bytes = 0) {
  return SortOptions{.key = key, .order = order, .algorithm = Algorithm::radix, .value_bytes = value_bytes};
}
// The fact single_pass of sorting n uniform keys with `o` (checked against the reference).
double single_pass_of(Device& gpu, const SortOptions& o, uint64_t n) {
  Sorter sorter(gpu, o);
  SortStats stats;
  test::check_case(sorter, {{Distribution::uniform, 0}, n, 41}, &stats);
  return stats.fact("single_pass").value_or(-1.0);
}
TEST_CASE("radix sort, automatic path: the single pass where it binds or on GPUs, else reduce-then-scan") {
  Device& gpu = test::device();
  const bool cpu = gpu.info().type == "cpu";
  const bool binds = detail::context_of(gpu).push_descriptors;
  CHECK(single_pass_of(gpu, automatic_radix(Key::u32), 5000) == (!cpu || binds ? 1.0 : 0.0));
  {
    const test::ScopedEnv addresses("VKSORT_BOUND_BUFFERS", std::string("0"));
    CHECK(single_pass_of(gpu, automatic_radix(Key::u32, Order::descending, 4), 5000) == (cpu ? 0.0 : 1.0));
  }
  if (!cpu) return;
  SortOptions tuned = automatic_radix(Key::u32);
  tuned.tuning = {.workgroup_size = 8, .radix_bits = 2};
  CHECK(single_pass_of(gpu, tuned, 5000) == 0.0);
}

// A CPU driver that binds the single pass's buffers: automatic sorts an array of one binding
// (maxStorageBufferRange) by the single pass, and one key more by reduce-then-scan.
TEST_CASE("radix sort, automatic path on a CPU driver: reduce-then-scan beyond maxStorageBufferRange") {
  Device& gpu = test::device();
  const uint64_t range = gpu.info().max_storage_buffer_range;
  if (gpu.info().type != "cpu" || !detail::context_of(gpu).push_descriptors || range / 8 + 1 > (uint64_t(1) << 25)) {
    test::skip("not a CPU driver with push descriptors, or maxStorageBufferRange " + std::to_string(range) +
               " bytes: beyond it is too large for a test on this device");
    return;
  }
  CHECK(single_pass_of(gpu, automatic_radix(Key::u64), range / 8) == 1.0);
  CHECK(single_pass_of(gpu, automatic_radix(Key::u64), range / 8 + 1) == 0.0);
}

// A count the GPU reads when the sort runs (Sorter::record_indirect): one recording, submitted again
// after each new count, sorts exactly the first min(count, max_n) keys and leaves the rest alone.
TEST_CASE("radix sort with a GPU-side count: one recording, any count up to max_n") {
  Device& gpu = test::device();
  for (const SortOptions o : {radix(Key::u32, Order::ascending, 4), radix(Key::f64, Order::descending),
                              SortOptions{.key = Key::i32, .value_bytes = 4}}) {  // automatic: its radix sort
    CAPTURE(to_string(o.key));
    Sorter sorter(gpu, o);
    const uint64_t max_n = 3 * sorter.tile_size() + 17;
    const uint32_t kb = key_bytes(o.key);
    const auto input = workloads::generate_keys(o.key, {Distribution::uniform, 0}, max_n, 5);
    const auto input_values = workloads::generate_values(max_n);
    Buffer keys(gpu, max_n * kb, "keys"), values(gpu, max_n * 4, "values"), count(gpu, 4, "count");
    Buffer scratch(gpu, sorter.scratch_bytes_indirect(max_n), "scratch");
    test::AppCommands app(gpu);
    const SortBuffers b{keys.ref(), o.value_bytes ? values.ref() : BufferRef{}, scratch.ref()};
    const Status status = sorter.record_indirect(app.cmd(), b, count.ref(), max_n);
    REQUIRE_MESSAGE(status.ok(), status.message);
    bool first = true;
    for (uint64_t c : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(sorter.tile_size()) - 1, uint64_t(sorter.tile_size()),
                       uint64_t(sorter.tile_size()) + 1, max_n - 1, max_n, max_n + 1000}) {
      CAPTURE(c);
      keys.upload(input);
      values.upload(std::as_bytes(std::span(input_values)));
      const uint32_t c32 = uint32_t(c);
      count.upload(std::as_bytes(std::span(&c32, 1)));
      if (first) app.submit_and_wait();
      else app.submit_again_and_wait();
      first = false;
      std::vector<std::byte> got(max_n * kb);
      std::vector<uint32_t> got_values(max_n);
      keys.download(got);
      values.download(std::as_writable_bytes(std::span(got_values)));
      const uint64_t sorted = std::min(c, max_n);
      std::vector<std::byte> expected(input.begin(), input.begin() + sorted * kb);
      std::vector<uint32_t> expected_values(input_values.begin(), input_values.begin() + sorted);
      workloads::reference_sort(o.key, o.order, expected, expected_values);
      expected.insert(expected.end(), input.begin() + sorted * kb, input.end());
      expected_values.insert(expected_values.end(), input_values.begin() + sorted, input_values.end());
      if (!o.value_bytes) expected_values = input_values;
      CHECK_MESSAGE(workloads::first_difference(o.key, expected, got, expected_values, got_values).empty(),
                    workloads::first_difference(o.key, expected, got, expected_values, got_values));
    }
  }
  // Brick and sample sort read n from the host: a Status, nothing recorded.
  Sorter brick(gpu, SortOptions{.algorithm = Algorithm::brick});
  test::AppCommands app(gpu);
  Buffer keys(gpu, 64, "keys"), count(gpu, 4, "count"), scratch(gpu, 4096, "scratch");
  const Status refused = brick.record_indirect(app.cmd(), {keys.ref(), {}, scratch.ref()}, count.ref(), 16);
  CHECK(!refused.ok());
  CHECK(refused.message.find("radix sort") != std::string::npos);
  CHECK(brick.scratch_bytes_indirect(16) == 0);
  Sorter r(gpu, radix(Key::u32));
  CHECK(!r.record_indirect(app.cmd(), {keys.ref(), {}, scratch.ref()}, {count.vk_buffer(), 2, 2}, 16).ok());
}

TEST_CASE("radix sort finds sorted input before the first pass and runs none") {
  for (Key key : {Key::u32, Key::f64}) {
    for (Order order : {Order::ascending, Order::descending}) {
      Sorter sorter(test::device(), radix(key, order, 4));
      // `sorted` is ascending numerically: for a descending sort the reverse input is the sorted one.
      const Distribution d = order == Order::ascending ? Distribution::sorted : Distribution::reverse;
      for (uint64_t n : {uint64_t(2), uint64_t(5000), uint64_t(100003)}) {
        SortStats stats;
        test::check_case(sorter, {{d, 0}, n, 4}, &stats);
        CHECK(stats.fact("sorted_on_entry") == 1);
        CHECK(stats.fact("passes_run") == 0);
        CHECK(stats.fact("passes_skipped") == 0);
        CHECK(stats.fact("passes_recorded") == key_bytes(key) * 8 / *stats.fact("radix_bits"));
      }
      // All keys equal is sorted too, and so is any input of 0 or 1 key.
      SortStats stats;
      test::check_case(sorter, {{Distribution::all_equal, 0}, 7777, 5}, &stats);
      CHECK(stats.fact("sorted_on_entry") == 1);
      CHECK(stats.fact("passes_run") == 0);
      test::check_case(sorter, {{Distribution::uniform, 0}, 1, 5}, &stats);
      CHECK(stats.fact("passes_recorded") == 0);
      CHECK(stats.fact("sorted_on_entry") == 1);
    }
  }
  // An unsorted input is not sorted on entry.
  Sorter sorter(test::device(), radix(Key::u32));
  SortStats stats;
  test::check_case(sorter, {workloads::default_spec(Distribution::nearly_sorted), 5000, 6}, &stats);
  CHECK(stats.fact("sorted_on_entry") == 0);
}

uint32_t next_byte(uint32_t& x) {
  x = x * 1664525u + 1013904223u;
  return x >> 24;
}

TEST_CASE("radix sort stops once a pass leaves the data sorted, and the finish copy brings it home") {
  SortOptions o = radix(Key::u32, Order::ascending, 4);
  o.tuning.radix_bits = 8;
  Sorter sorter(test::device(), o);
  // key = (l << 8) | l: sorting by the low byte sorts the whole key, so after one scatter (data now in
  // scratch) the check before pass 2 stops the sort, and the finish copy decodes it into place.
  std::vector<uint32_t> keys(30011);
  uint32_t x = 12345;
  for (uint32_t& k : keys) {
    x = x * 1664525u + 1013904223u;
    const uint32_t l = x >> 24;
    k = (l << 8) | l;
  }
  SortStats stats;
  CHECK(check_keys(sorter, to_bytes(keys), &stats) == "");
  CHECK(stats.fact("passes_recorded") == 4);
  CHECK(stats.fact("passes_run") == 1);
  CHECK(stats.fact("sorted_on_entry") == 0);
  CHECK(stats.fact("order_checks") == 2);

  // Keys below 2^16: two passes, then sorted (data back in the caller's buffer, no finish needed).
  for (uint32_t& k : keys) {
    x = x * 1664525u + 1013904223u;
    k = x >> 16;
  }
  CHECK(check_keys(sorter, to_bytes(keys), &stats) == "");
  CHECK(stats.fact("passes_run") == 2);
  CHECK(stats.fact("passes_skipped") == 0);

  // Descending floats: 1 + (l / 256) for a random byte l differ only in mantissa bits 15-22, so the
  // passes below bit 15 are skipped (constant digits), and once the digit holding bits 15-22 is done
  // the data is sorted: the rest of the recorded passes never run.
  SortOptions f = radix(Key::f32, Order::descending, 4);
  f.tuning.radix_bits = 8;
  Sorter floats(test::device(), f);
  std::vector<float> fk(5000);
  for (float& k : fk) k = 1.0f + float(next_byte(x)) / 256.0f;
  CHECK(check_keys(floats, to_bytes(fk), &stats) == "");
  CHECK(stats.fact("passes_skipped") == 1);
  CHECK(stats.fact("passes_run") == 2);
  CHECK(stats.fact("passes_recorded") == 4);
}

TEST_CASE("radix sort skips passes whose digit is the same for every key") {
  SortOptions o = radix(Key::u32, Order::ascending, 4);
  o.tuning.radix_bits = 8;
  Sorter sorter(test::device(), o);
  uint32_t x = 777;
  auto next = [&] { return x = x * 1664525u + 1013904223u; };
  std::vector<uint32_t> keys(20011);

  // Low 16 bits constant: passes 0 and 1 skipped, 2 and 3 run.
  for (uint32_t& k : keys) k = (next() & 0xffff0000u) | 0xab;
  SortStats stats;
  CHECK(check_keys(sorter, to_bytes(keys), &stats) == "");
  CHECK(stats.fact("passes_skipped") == 2);
  CHECK(stats.fact("passes_run") == 2);

  // Byte 1 constant: three scatters leave the data in scratch; the finish copy decodes it home.
  for (uint32_t& k : keys) k = (next() & 0xffff00ffu) | 0x5a00;
  CHECK(check_keys(sorter, to_bytes(keys), &stats) == "");
  CHECK(stats.fact("passes_skipped") == 1);
  CHECK(stats.fact("passes_run") == 3);

  // The same on signed and descending float keys (the constant digit is one of the encoded key).
  SortOptions s = radix(Key::i32, Order::descending, 4);
  s.tuning.radix_bits = 4;
  Sorter signed_sorter(test::device(), s);
  std::vector<int32_t> sk(9001);
  for (int32_t& k : sk) k = int32_t(next() & 0xfff0fff0u);  // nibbles 0 and 4 constant
  CHECK(check_keys(signed_sorter, to_bytes(sk), &stats) == "");
  CHECK(stats.fact("passes_skipped") == 2);
  CHECK(stats.fact("passes_run") == 6);

  // An odd number of scatters on keys whose encoding is not the identity: the finish copy decodes.
  SortOptions d = radix(Key::i64, Order::descending, 4);
  d.tuning.radix_bits = 8;
  Sorter wide_sorter(test::device(), d);
  std::vector<int64_t> wk(7001);
  for (int64_t& k : wk) k = int64_t((uint64_t(next()) << 32 | next()) & ~(uint64_t(0xff) << 24));  // byte 3 zero
  CHECK(check_keys(wide_sorter, to_bytes(wk), &stats) == "");
  CHECK(stats.fact("passes_skipped") == 1);
  CHECK(stats.fact("passes_run") == 7);
}

namespace {
// The reference for a bit-range sort: stable by bits [begin, end) of the encoded key.
void reference_bit_range(Key key, Order order, uint32_t begin, uint32_t end, std::vector<std::byte>& keys,
                         std::vector<uint32_t>& values) {
  const size_t kb = key_bytes(key), n = keys.size() / kb;
  const uint64_t mask = (end - begin == 64 ? ~uint64_t(0) : (uint64_t(1) << (end - begin)) - 1);
  std::vector<size_t> index(n);
  std::iota(index.begin(), index.end(), 0);
  std::vector<uint64_t> field(n);
  for (size_t i = 0; i < n; ++i) field[i] = (workloads::encode_key(key, order, keys.data() + i * kb) >> begin) & mask;
  std::stable_sort(index.begin(), index.end(), [&](size_t a, size_t b) { return field[a] < field[b]; });
  std::vector<std::byte> k(keys.size());
  std::vector<uint32_t> v(values.size());
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(k.data() + i * kb, keys.data() + index[i] * kb, kb);
    if (!values.empty()) v[i] = values[index[i]];
  }
  keys = std::move(k);
  values = std::move(v);
}
}  // namespace

TEST_CASE("radix sort by a key bit range orders by those bits only, stably, and carries the rest") {
  struct Range {
    Key key;
    Order order;
    uint32_t begin, end, bits;
  };
  const Range ranges[] = {{Key::u32, Order::ascending, 0, 16, 8},   {Key::u32, Order::ascending, 8, 24, 8},
                          {Key::u32, Order::ascending, 4, 12, 4},   {Key::u32, Order::descending, 0, 1, 8},
                          {Key::u32, Order::ascending, 31, 32, 2},  {Key::u32, Order::ascending, 3, 20, 8},
                          {Key::i32, Order::ascending, 16, 32, 8},  {Key::f32, Order::descending, 20, 32, 4},
                          {Key::u64, Order::ascending, 5, 37, 8},   {Key::u64, Order::ascending, 60, 64, 2},
                          {Key::i64, Order::descending, 0, 40, 8},  {Key::f64, Order::ascending, 30, 34, 8},
                          {Key::u64, Order::ascending, 0, 64, 8}};
  uint64_t seed = 300;
  for (const Range& r : ranges) {
    SortOptions o = radix(r.key, r.order, 4);
    o.begin_bit = r.begin;
    o.end_bit = r.end;
    o.tuning.radix_bits = r.bits;
    for (uint32_t workgroup : {0u, 4u}) {
      o.tuning.workgroup_size = workgroup;
      o.tuning.items_per_thread = workgroup ? 4 : 0;
      Sorter sorter(test::device(), o);
      for (uint64_t n : {uint64_t(1000), uint64_t(12345)}) {
        std::vector<std::byte> keys = workloads::generate_keys(r.key, {Distribution::uniform, 0}, n, seed++);
        std::vector<std::byte> expected = keys;
        std::vector<uint32_t> expected_values = workloads::generate_values(n);
        reference_bit_range(r.key, r.order, r.begin, r.end, expected, expected_values);
        Sorted got = gpu_sort(test::device(), sorter, keys);
        INFO(to_string(r.key), " ", to_string(r.order), " [", r.begin, ", ", r.end, ") bits ", r.bits, " n ", n,
             " workgroup ", workgroup);
        CHECK(workloads::first_difference(r.key, expected, got.keys, expected_values, got.values) == "");
        CHECK(got.stats.fact("passes_recorded") == (r.end - r.begin + r.bits - 1) / r.bits);
      }
    }
  }
}

TEST_CASE("radix sort gives the same bytes on every run") {
  for (Key key : {Key::f32, Key::i64}) {
    Sorter sorter(test::device(), radix(key, Order::descending, 4));
    const std::vector<std::byte> keys =
        workloads::generate_keys(key, workloads::default_spec(Distribution::few_unique), 65537, 11);
    Sorted a = gpu_sort(test::device(), sorter, keys), b = gpu_sort(test::device(), sorter, keys);
    CHECK(a.keys == b.keys);
    CHECK(a.values == b.values);
  }
}

TEST_CASE("radix sort reports its facts and per-phase GPU times") {
  // One pass (8 bits of the key): every phase is named.
  SortOptions o = radix(Key::u32, Order::ascending, 4);
  o.end_bit = 8;
  o.tuning.radix_bits = 8;
  Sorter sorter(test::device(), o);
  CHECK(sorter.algorithm() == Algorithm::radix);
  SortStats stats;
  std::vector<uint32_t> keys(50000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = (uint32_t(i) * 2654435761u) >> 24;
  CHECK(check_keys(sorter, to_bytes(keys), &stats) == "");
  CHECK(stats.fact("radix_bits") == 8);
  CHECK(stats.fact("tile") == sorter.tile_size());
  CHECK(stats.fact("passes_recorded") == 1);
  CHECK(stats.fact("passes_run") == 1);
  REQUIRE(test::device().info().timestamps);
  CHECK(stats.timed());
  std::vector<std::string> names;
  double sum = 0;
  for (const auto& [name, ms] : stats.phases_ms) {
    names.push_back(name);
    CHECK(ms >= 0.0);
    sum += ms;
  }
  CHECK(names == std::vector<std::string>{"count", "scan", "scatter", "finish"});
  // The phases partition the first-to-last timestamp interval (Timestamps::phases_ms).
  CHECK(sum == doctest::Approx(stats.gpu_ms).epsilon(1e-6));
}

// Each workgroup of the count and the scatter takes a contiguous range of tiles, so the spine holds
// workgroups x radix counts and one workgroup scans it. Tiny tiles (16 keys) make a workgroup take many
// tiles at small n, and make the loop budget (loop_budget.hpp) call for more workgroups than the device
// wants: 6251 tiles at n = 100003. Inversions that only a pair across two workgroups' tiles shows, and
// only the last workgroup's, must still stop the early exit.
TEST_CASE("radix sort spreads tiles over few workgroups: many tiles per workgroup, many workgroups") {
  for (RadixRanking ranking : {RadixRanking::splits, RadixRanking::columns}) {
    for (Key key : {Key::u32, Key::i64}) {
      for (uint32_t value_bytes : {0u, 4u}) {
        if (key == Key::i64 && value_bytes) continue;  // the item layouts: 1, 2 (twice) words
        INFO(to_string(ranking), " ", to_string(key), " values ", value_bytes);
        SortOptions o = radix(key, Order::ascending, value_bytes);
        o.tuning = {.workgroup_size = 4, .items_per_thread = 4, .radix_ranking = ranking, .radix_scan = RadixScan::reduce_then_scan};
        Sorter sorter(test::device(), o);
        REQUIRE(sorter.tile_size() == 16);
        uint64_t seed = 90;
        for (uint64_t n : {uint64_t(5000), uint64_t(100003)}) {
          for (Distribution d : {Distribution::uniform, Distribution::few_unique}) {
            SortStats stats;
            test::check_case(sorter, {workloads::default_spec(d), n, seed++}, &stats);
            const double tiles = double((n + 15) / 16), groups = *stats.fact("groups"), per = *stats.fact("tiles_per_group");
            CHECK(groups * per >= tiles);
            CHECK((groups - 1) * per < tiles);  // no workgroup without a tile
            CHECK(stats.fact("dispatches") == 2 + 3 * *stats.fact("passes_recorded"));
            CHECK(stats.fact("global_barriers") == *stats.fact("dispatches") - 1);
            if (n > 5000) {
              CHECK(groups >= 16);
              CHECK(per >= 4);
            }
          }
        }
      }
    }
    // u32 keys 3i: sorted, then with one pair swapped across the first workgroup boundary, and with
    // the last pair swapped.
    SortOptions o = radix(Key::u32);
    o.tuning = {.workgroup_size = 4, .items_per_thread = 4, .radix_ranking = ranking, .radix_scan = RadixScan::reduce_then_scan};
    Sorter sorter(test::device(), o);
    std::vector<uint32_t> keys(100003);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = uint32_t(3 * i);
    SortStats stats;
    CHECK(check_keys(sorter, to_bytes(keys), &stats) == "");
    CHECK(stats.fact("sorted_on_entry") == 1);
    CHECK(stats.fact("passes_run") == 0);
    REQUIRE(stats.fact("groups") > 1);
    const size_t boundary = size_t(*stats.fact("tiles_per_group")) * 16;
    for (size_t i : {boundary - 1, keys.size() - 2}) {
      CAPTURE(i);
      std::vector<uint32_t> swapped = keys;
      std::swap(swapped[i], swapped[i + 1]);
      CHECK(check_keys(sorter, to_bytes(swapped), &stats) == "");
      CHECK(stats.fact("sorted_on_entry") == 0);
      CHECK(stats.fact("passes_run") >= 1);
    }
  }
}

// Run by ctest with LP_NUM_THREADS 1, 2 and 8: lavapipe runs the workgroups of a dispatch on that many
// threads, in any order.
TEST_CASE("radix sort with any number of driver threads") {
  for (RadixRanking ranking : {RadixRanking::splits, RadixRanking::columns}) {
    INFO(to_string(ranking));
    SortOptions o = radix(Key::u32, Order::descending, 4);
    o.tuning.radix_ranking = ranking;
    Sorter device_tiles(test::device(), o);
    test::check_case(device_tiles, {{Distribution::uniform, 0}, 40 * uint64_t(device_tiles.tile_size()) + 5, 31});
    o.tuning = {.workgroup_size = 4, .items_per_thread = 4, .radix_ranking = ranking, .radix_scan = RadixScan::reduce_then_scan};
    Sorter tiny_tiles(test::device(), o);
    test::check_case(tiny_tiles, {{Distribution::uniform, 0}, 30011, 32});
  }
}

TEST_CASE("radix sort options: automatic picks radix; invalid digit widths and bit ranges are refused") {
  Device& gpu = test::device();
  CHECK(Sorter(gpu, SortOptions{}).algorithm() == Algorithm::radix);
  CHECK(Sorter(gpu, SortOptions{.algorithm = Algorithm::brick}).algorithm() == Algorithm::brick);
  CHECK(Sorter(gpu, SortOptions{.algorithm = Algorithm::sample}).algorithm() == Algorithm::sample);
  SortOptions bits = radix(Key::u32);
  bits.tuning.radix_bits = 3;
  CHECK_THROWS_WITH_AS(Sorter(gpu, bits), doctest::Contains("radix_bits must be 2, 4 or 8"), Error);
  SortOptions range = radix(Key::u32);
  range.begin_bit = 8;
  range.end_bit = 8;
  CHECK_THROWS_WITH_AS(Sorter(gpu, range), doctest::Contains("must be non-empty"), Error);
  range.end_bit = 33;
  CHECK_THROWS_WITH_AS(Sorter(gpu, range), doctest::Contains("32-bit key"), Error);
  range.key = Key::u64;  // [8, 33) is fine for 64-bit keys
  CHECK_NOTHROW(Sorter(gpu, range));
  range.algorithm = Algorithm::brick;
  CHECK_THROWS_WITH_AS(Sorter(gpu, range), doctest::Contains("radix sort only"), Error);
  // Counter columns need at least as many digits as invocations.
  SortOptions columns = radix(Key::u32);
  columns.tuning = {.workgroup_size = 8, .radix_bits = 2, .radix_ranking = RadixRanking::columns};
  CHECK_THROWS_WITH_AS(Sorter(gpu, columns), doctest::Contains("counter columns needs radix (4) >= workgroup size (8)"), Error);
  columns.tuning.radix_ranking = RadixRanking::automatic;
  Sorter automatic_ranking(gpu, columns);  // falls back to splits
  CHECK_FALSE(ranks_by_columns(automatic_ranking));
}

TEST_CASE("radix sort on a pretend-small device: 3-D grids past maxComputeWorkGroupCount, little shared memory") {
  DeviceOptions small = test::options_like_device();
  small.pretend = {.max_shared_memory = 4096, .max_workgroup_invocations = 32, .max_workgroup_count = 7};
  Device gpu(small);
  // The same limits on a device posing as a GPU, which wants 1024 workgroups busy: an H200 recorded 626
  // tiles of 32 keys in as many workgroups, past 7^3 (session 26); they share the grid there.
  DeviceOptions small_gpu = small;
  small_gpu.pretend.gpu = true;
  Device posing(small_gpu);
  for (Device* d : {&gpu, &posing}) {
    for (Key key : {Key::u32, Key::f64}) {
      for (uint32_t bits : {0u, 8u}) {
        SortOptions o = radix(key, Order::ascending, 4);
        o.tuning.radix_bits = bits;
        Sorter sorter(*d, o);
        CHECK(sorter.tile_size() >= 16);
        uint64_t seed = 50;
        // Up to 626 tiles: grids become 2-D (> 7) and 3-D (> 49), within the 7^3 groups a dispatch has.
        for (uint64_t n : {uint64_t(1000), uint64_t(4099), uint64_t(20011)}) {
          std::vector<std::byte> keys = workloads::generate_keys(key, {Distribution::uniform, 0}, n, seed++);
          INFO(d->info().type, " ", to_string(key), " bits ", bits, " n ", n, " tile ", sorter.tile_size());
          SortStats stats;
          CHECK(check_keys(sorter, keys, &stats, d) == "");
          CHECK(stats.fact("groups") <= 343);
        }
      }
    }
  }
  // Tiny tiles, ranked by splits of 8-bit digits, many per workgroup: the loop budget calls for more
  // than 7 x 7 workgroups of count, scatter and finish (3-D grids), and the finish copy's 6251 tiles
  // are more than one workgroup each could have.
  SortOptions tiny = radix(Key::u64, Order::descending, 4);
  tiny.tuning = {.workgroup_size = 4, .items_per_thread = 4, .radix_bits = 8, .radix_ranking = RadixRanking::splits,
                 .radix_scan = RadixScan::reduce_then_scan};
  Sorter tiny_tiles(gpu, tiny);
  // One byte the same in every key: 7 of 8 passes run, so the data ends in scratch and the finish copy
  // brings it home.
  std::vector<std::byte> keys = workloads::generate_keys(Key::u64, {Distribution::uniform, 0}, 100003, 60);
  for (size_t i = 3; i < keys.size(); i += 8) keys[i] = std::byte{0x5a};
  SortStats stats;
  CHECK(check_keys(tiny_tiles, keys, &stats, &gpu) == "");
  CHECK(stats.fact("groups") > 49);
  CHECK(stats.fact("passes_run") == 7);
  // An explicit block that does not fit is refused, naming the limit.
  SortOptions big = radix(Key::f64, Order::ascending, 4);
  big.tuning = {.workgroup_size = 32, .items_per_thread = 64};
  CHECK_THROWS_WITH_AS(Sorter(gpu, big), doctest::Contains("maxComputeSharedMemorySize = 4096"), Error);
}

TEST_CASE("radix sort records into a caller's command buffer: two sorts share one scratch") {
  test::check_two_recorded_sorts(radix(Key::f32, Order::descending, 4));
}

// Run by ctest three times, with lavapipe's SIMD width (and so its subgroup size) at 4, 8 and 16.
TEST_CASE("radix sort across subgroup sizes") {
  for (Key key : {Key::u32, Key::f64}) {
    for (uint32_t workgroup : {0u, 4u}) {
      SortOptions o = radix(key, Order::descending, 4);
      o.tuning = {.workgroup_size = workgroup, .items_per_thread = workgroup ? 8u : 0u, .radix_scan = RadixScan::reduce_then_scan};
      Sorter sorter(test::device(), o);
      uint64_t seed = 70;
      for (uint64_t n : {uint64_t(5), uint64_t(1001), uint64_t(65537)})
        for (Distribution d : {Distribution::uniform, Distribution::special, Distribution::few_unique})
          test::check_case(sorter, {workloads::default_spec(d), n, seed++});
    }
  }
}

// The diagnostic VKSORT_RADIX_PLAIN_SCANS (for GPU runs: which kernel's subgroup variant goes wrong)
// builds each listed kernel with the shared-memory scan, "none" none (overriding NVIDIA's workaround):
// the sorts stay right, the splits' count and scatter report it (fact subgroup_scans), and a list
// naming anything else is refused.
TEST_CASE("radix sort with VKSORT_RADIX_PLAIN_SCANS: listed kernels scan without subgroups") {
  const bool subgroups = test::device().info().subgroup_arithmetic;
  uint64_t seed = 90;
  for (const char* list : {"count", "spine", "scatter", "count,spine,scatter", "none"}) {
    INFO("VKSORT_RADIX_PLAIN_SCANS=", list);
    const test::ScopedEnv env("VKSORT_RADIX_PLAIN_SCANS", std::string(list));
    SortOptions o = radix(Key::u64, Order::ascending, 4);
    o.tuning.radix_ranking = RadixRanking::splits;
    Sorter sorter(test::device(), o);
    const bool splits_plain = std::string(list) != "spine" && std::string(list) != "none";
    const SortStats stats = small_sort_stats(sorter);
    CHECK(stats.fact("subgroup_scans") == (subgroups && !splits_plain ? 1.0 : 0.0));
    CHECK(stats.fact("plain_scans_workaround") == 0.0);  // the list decides, on any device
    for (uint64_t n : {uint64_t(1000), uint64_t(3 * sorter.tile_size() + 5)})
      test::check_case(sorter, {{Distribution::uniform, 0}, n, seed++});
  }
  const test::ScopedEnv bad("VKSORT_RADIX_PLAIN_SCANS", std::string("count,warp"));
  CHECK_THROWS_WITH_AS(Sorter(test::device(), radix(Key::u32)),
                       doctest::Contains("VKSORT_RADIX_PLAIN_SCANS is \"count,warp\"; it takes a comma-separated list"), Error);
}

// Not a test: `test_radix --test-case='radix sort benchmark' --no-skip` prints GPU times (median of 5
// after a warm-up) of radix sort at each digit width on uniform u32 keys, and of brick sort at 2^20
// (once: brick sort's rounds grow with n / tile, so it takes seconds there and minutes at 2^22).
TEST_CASE("radix sort benchmark" * doctest::skip()) {
  auto time_ms = [](Sorter& sorter, uint64_t n, bool values, int runs) {
    std::vector<std::byte> keys = workloads::generate_keys(Key::u32, {Distribution::uniform, 0}, n, 42);
    std::vector<uint32_t> vals = workloads::generate_values(n);
    Buffer kb(test::device(), keys.size(), "keys"), vb(test::device(), n * 4, "values");
    std::vector<double> ms;
    for (int run = 0; run <= runs; ++run) {
      kb.upload(keys);
      if (values) vb.upload(std::as_bytes(std::span(vals)));
      const SortStats s = sorter.sort(kb, values ? &vb : nullptr, run == 0 ? std::min<uint64_t>(n, 65536) : n);
      if (run > 0) ms.push_back(s.gpu_ms);  // run 0 (small) compiles the pipelines
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  std::printf("%s, median GPU ms of uniform u32 keys\n", test::device().info().name.c_str());
  for (uint64_t n : {uint64_t(1) << 20, uint64_t(1) << 22}) {
    for (bool values : {false, true}) {
      std::printf("n=2^%d %s", n == (uint64_t(1) << 20) ? 20 : 22, values ? "+values" : "keys   ");
      for (uint32_t bits : {2u, 4u, 8u}) {
        SortOptions o = radix(Key::u32, Order::ascending, values ? 4 : 0);
        o.tuning.radix_bits = bits;
        Sorter sorter(test::device(), o);
        std::printf("  radix%u %7.1f", bits, time_ms(sorter, n, values, 5));
        std::fflush(stdout);
      }
      if (n == (uint64_t(1) << 20)) {
        Sorter brick(test::device(), SortOptions{.algorithm = Algorithm::brick, .value_bytes = values ? 4u : 0u});
        std::printf("  brick %7.1f", time_ms(brick, n, values, 1));
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
}
