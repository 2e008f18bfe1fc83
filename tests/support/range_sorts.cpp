// SPDX-License-Identifier: MIT
#include "support/range_sorts.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "bucket_workloads.hpp"
#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"

namespace vksort::test {
namespace {

using workloads::Distribution;

// Records with `record` into a new command buffer, submits and waits: "" or the refusal.
std::string record_and_run(Device& gpu, const std::function<Status(VkCommandBuffer)>& record) {
  AppCommands app(gpu);
  const Status status = record(app.cmd());
  if (!status.ok()) return "record: " + status.message;
  app.submit_and_wait();
  return "";
}

// n values of vb bytes whose 32-bit words are all distinct.
std::vector<std::byte> distinct_values(uint64_t n, uint32_t vb) {
  const std::vector<uint32_t> words = workloads::generate_values(n * (vb / 4));
  std::vector<std::byte> values(words.size() * 4);
  if (!values.empty()) std::memcpy(values.data(), words.data(), values.size());
  return values;
}

// The reference: keys sorted stably, values of vb bytes (or none) moved with them. Returns the
// original index of each place.
std::vector<uint32_t> reference(const SortOptions& o, std::span<std::byte> keys, std::span<std::byte> values) {
  std::vector<uint32_t> from = workloads::generate_values(keys.size() / key_bytes(o.key));  // 0, 1, ...
  workloads::reference_sort(o.key, o.order, keys, from);
  const uint32_t vb = o.value_bytes;
  if (vb) {
    const std::vector<std::byte> before(values.begin(), values.end());
    for (size_t i = 0; i < from.size(); ++i) std::memcpy(&values[i * vb], &before[size_t(from[i]) * vb], vb);
  }
  return from;
}

std::string compare(const SortOptions& o, std::span<const std::byte> expected, std::span<const std::byte> got,
                    const std::vector<std::byte>& expected_values, const std::vector<std::byte>& got_values) {
  const std::string keys_differ = workloads::first_difference(o.key, expected, got);
  if (!keys_differ.empty()) return "keys: " + keys_differ;
  return got_values == expected_values ? "" : "values differ";
}

std::string describe(const SortOptions& o, const std::string& what, uint64_t n) {
  std::string s = std::string(to_string(o.key)) + " " + what;
  if (o.value_bytes) s.append(" +").append(std::to_string(o.value_bytes)).append("B values");
  if (o.tuning.radix_scan != RadixScan::automatic) s.append(" ").append(to_string(o.tuning.radix_scan));
  if (o.tuning.radix_ranking != RadixRanking::automatic) s.append(" ").append(to_string(o.tuning.radix_ranking));
  return s.append(" n=").append(std::to_string(n));
}

// Fresh keys (uniform, from seed) and values uploaded to ranges 0 and 1 at `at`, and the SortBuffers
// of ranges 0-2 (keys, values if any, scratch).
struct Input {
  std::vector<std::byte> keys, values;  // as uploaded
  SortBuffers buffers;
};
Input upload_input(const RangeStore& store, const SortOptions& o, uint64_t n, const std::vector<VkDeviceSize>& at,
                   const std::vector<VkDeviceSize>& bytes, uint64_t seed) {
  Input in{workloads::generate_keys(o.key, {Distribution::uniform, 0}, n, seed), distinct_values(n, o.value_bytes), {}};
  store.upload(in.keys, at[0]);
  if (o.value_bytes) store.upload(in.values, at[1]);
  const VkBuffer b = store.buffer;
  in.buffers = {{b, at[0], bytes[0]}, o.value_bytes ? BufferRef{b, at[1], bytes[1]} : BufferRef{}, {b, at[2], bytes[2]}};
  return in;
}

// Downloads ranges 0 and 1 (keys, values) and compares them with the expected ones.
std::string check_result(const RangeStore& store, const SortOptions& o, const std::vector<VkDeviceSize>& at,
                         const std::vector<std::byte>& expected, const std::vector<std::byte>& expected_values) {
  std::vector<std::byte> keys(expected.size()), values(expected_values.size());
  store.download(keys, at[0]);
  if (!values.empty()) store.download(values, at[1]);
  return compare(o, expected, keys, expected_values, values);
}

}  // namespace

RangeStore store_of(Buffer& buffer) {
  return {buffer.vk_buffer(), [&buffer](std::span<const std::byte> data, VkDeviceSize offset) { buffer.upload(data, offset); },
          [&buffer](std::span<std::byte> data, VkDeviceSize offset) { buffer.download(data, offset); }};
}

RangeSort sort_on_ranges(Device& gpu, Sorter& sorter, uint64_t n) {
  const SortOptions& o = sorter.options();
  RangeSort r;
  r.name = describe(o, std::string(to_string(sorter.algorithm())), n) + " tile=" + std::to_string(sorter.tile_size());
  r.ranges = {"keys", "values", "scratch"};
  r.bytes = {n * key_bytes(o.key), n * o.value_bytes, sorter.scratch_bytes(n)};
  r.scratch = 2;
  r.run = [&gpu, &sorter, n, bytes = r.bytes](const RangeStore& store, const std::vector<VkDeviceSize>& at, uint64_t seed) {
    const SortOptions& o = sorter.options();
    const Input in = upload_input(store, o, n, at, bytes, seed);
    if (std::string refused = record_and_run(gpu, [&](VkCommandBuffer cmd) { return sorter.record(cmd, in.buffers, n); });
        !refused.empty())
      return refused;
    std::vector<std::byte> expected = in.keys, expected_values = in.values;
    reference(o, expected, expected_values);
    return check_result(store, o, at, expected, expected_values);
  };
  return r;
}

RangeSort sort_indirect_on_ranges(Device& gpu, Sorter& sorter, uint64_t max_n, uint32_t count) {
  const SortOptions& o = sorter.options();
  RangeSort r;
  r.name = describe(o, "radix (GPU-side count " + std::to_string(count) + ")", max_n);
  r.ranges = {"keys", "values", "scratch", "count"};
  r.bytes = {max_n * key_bytes(o.key), max_n * o.value_bytes, sorter.scratch_bytes_indirect(max_n), 4};
  r.scratch = 2;
  r.run = [&gpu, &sorter, max_n, count, bytes = r.bytes](const RangeStore& store, const std::vector<VkDeviceSize>& at, uint64_t seed) {
    const SortOptions& o = sorter.options();
    const Input in = upload_input(store, o, max_n, at, bytes, seed);
    store.upload(std::as_bytes(std::span(&count, 1)), at[3]);
    const BufferRef count_ref{store.buffer, at[3], 4};
    if (std::string refused = record_and_run(
            gpu, [&](VkCommandBuffer cmd) { return sorter.record_indirect(cmd, in.buffers, count_ref, max_n); });
        !refused.empty())
      return refused;
    const uint64_t sorted = std::min<uint64_t>(count, max_n);
    std::vector<std::byte> expected = in.keys, expected_values = in.values;
    reference(o, std::span(expected).first(sorted * key_bytes(o.key)), std::span(expected_values).first(sorted * o.value_bytes));
    return check_result(store, o, at, expected, expected_values);
  };
  return r;
}

RangeSort argsort_on_ranges(Device& gpu, ArgSorter& argsorter, uint64_t n) {
  const SortOptions& o = argsorter.options();
  RangeSort r;
  r.name = describe(o, "argsort", n) + " indices of " + std::to_string(argsorter.index_bytes()) + " bytes";
  r.ranges = {"keys", "indices", "scratch"};
  r.bytes = {n * key_bytes(o.key), n * argsorter.index_bytes(), argsorter.scratch_bytes(n)};
  r.scratch = 2;
  r.run = [&gpu, &argsorter, n, bytes = r.bytes](const RangeStore& store, const std::vector<VkDeviceSize>& at, uint64_t seed) {
    const SortOptions& o = argsorter.options();
    std::vector<std::byte> keys = workloads::generate_keys(o.key, workloads::default_spec(Distribution::few_unique), n, seed);
    store.upload(keys, at[0]);
    const VkBuffer b = store.buffer;
    const ArgsortBuffers buffers{{b, at[0], bytes[0]}, {b, at[1], bytes[1]}, {b, at[2], bytes[2]}};
    if (std::string refused = record_and_run(gpu, [&](VkCommandBuffer cmd) { return argsorter.record(cmd, buffers, n); });
        !refused.empty())
      return refused;
    std::vector<std::byte> raw(bytes[1]);
    store.download(raw, at[1]);
    const std::vector<uint32_t> from = reference(o, keys, {});
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t got = 0;
      std::memcpy(&got, &raw[i * argsorter.index_bytes()], argsorter.index_bytes());
      if (got != from[i]) return "index " + std::to_string(i) + ": " + std::to_string(got) + ", expected " + std::to_string(from[i]);
    }
    return std::string();
  };
  return r;
}

RangeSort segmented_on_ranges(Device& gpu, SegmentedSorter& sorter, uint64_t n) {
  const SortOptions& o = sorter.options();
  std::vector<uint32_t> offsets = {0};
  for (uint64_t at = 0; at < n;) offsets.push_back(uint32_t(at = std::min<uint64_t>(n, at + 1 + (at * 7919) % 3001)));
  const uint64_t segments = offsets.size() - 1;
  RangeSort r;
  r.name = describe(o, sorter.path() == SegmentedPath::composed_keys ? "segmented (composed keys)" : "segmented (by size)", n) +
           " in " + std::to_string(segments) + " segments";
  r.ranges = {"keys", "values", "scratch", "offsets"};
  r.bytes = {n * key_bytes(o.key), n * o.value_bytes, sorter.scratch_bytes(n, segments), offsets.size() * 4};
  r.scratch = 2;
  r.run = [&gpu, &sorter, n, offsets, bytes = r.bytes](const RangeStore& store, const std::vector<VkDeviceSize>& at, uint64_t seed) {
    const SortOptions& o = sorter.options();
    const uint32_t kb = key_bytes(o.key), vb = o.value_bytes;
    const Input in = upload_input(store, o, n, at, bytes, seed);
    store.upload(std::as_bytes(std::span(offsets)), at[3]);
    const BufferRef offsets_ref{store.buffer, at[3], bytes[3]};
    const uint64_t segments = offsets.size() - 1;
    if (std::string refused = record_and_run(
            gpu, [&](VkCommandBuffer cmd) { return sorter.record(cmd, in.buffers, offsets_ref, segments, n); });
        !refused.empty())
      return refused;
    std::vector<std::byte> expected = in.keys, expected_values = in.values;
    for (uint64_t g = 0; g < segments; ++g) {
      const uint64_t first = offsets[g], count = offsets[g + 1] - first;
      reference(o, std::span(expected).subspan(first * kb, count * kb), std::span(expected_values).subspan(first * vb, count * vb));
    }
    return check_result(store, o, at, expected, expected_values);
  };
  return r;
}

RangeSort buckets_on_ranges(Device& gpu, BucketLists& lists, uint32_t n) {
  RangeSort r;
  const BucketOptions& o = lists.options();
  r.name = std::string("bucket lists by ") + (o.mode == BucketMode::sort ? "sort" : "scatter") + " of n=" + std::to_string(n) +
           " in " + std::to_string(o.buckets) + " buckets";
  r.ranges = {"ids"};
  r.bytes = {uint64_t(n) * 4};
  r.scratch = 1;  // none: the lists own theirs
  r.run = [&gpu, &lists, n, bytes = r.bytes](const RangeStore& store, const std::vector<VkDeviceSize>& at, uint64_t seed) {
    const uint32_t m = lists.options().buckets;
    const std::vector<uint32_t> ids = workloads::uniform_bucket_ids(n, m, uint32_t(seed));
    store.upload(std::as_bytes(std::span(ids)), at[0]);
    if (std::string refused = record_and_run(gpu, [&](VkCommandBuffer cmd) { return lists.record_build(cmd, {store.buffer, at[0], bytes[0]}, n); });
        !refused.empty())
      return refused;
    std::vector<uint32_t> after(n);
    store.download(std::as_writable_bytes(std::span(after)), at[0]);
    if (after != ids) return std::string("the ids changed");
    return workloads::check_bucket_lists(lists.download_head(), lists.download_next(), ids, m);
  };
  return r;
}

DeviceOptions gpu_shapes_options() {
  DeviceOptions o = options_like_device();
  o.pretend.gpu = true;
  return o;
}

DeviceOptions small_device_options() {
  DeviceOptions o = options_like_device();
  o.pretend = {.max_shared_memory = 8192, .max_workgroup_invocations = 32, .max_workgroup_count = 31};
  return o;
}

void for_each_range_sort(Device& gpu, const std::function<std::vector<uint64_t>(uint64_t tile)>& sizes,
                         const std::function<void(const RangeSort&)>& each) {
  auto options = [](Key key, uint32_t value_bytes, Algorithm algorithm) {
    return SortOptions{.key = key, .order = value_bytes == 4 ? Order::descending : Order::ascending, .algorithm = algorithm,
                       .value_bytes = value_bytes};
  };
  std::vector<SortOptions> sorts;
  for (Key key : {Key::u32, Key::i64})
    for (uint32_t vb : {0u, 4u, 12u}) {
      for (RadixScan scan : {RadixScan::single_pass, RadixScan::reduce_then_scan}) {
        SortOptions o = options(key, vb, Algorithm::radix);
        o.tuning.radix_scan = scan;
        sorts.push_back(o);
      }
      for (Algorithm algorithm : {Algorithm::brick, Algorithm::sample}) sorts.push_back(options(key, vb, algorithm));
    }
  SortOptions columns = options(Key::f32, 4, Algorithm::radix);
  columns.tuning.radix_scan = RadixScan::single_pass;
  columns.tuning.radix_ranking = RadixRanking::columns;
  sorts.push_back(columns);
  for (const SortOptions& o : sorts) {
    Sorter sorter(gpu, o);
    for (uint64_t n : sizes(sorter.tile_size())) each(sort_on_ranges(gpu, sorter, n));
  }
  // Nothing past the count moves either.
  Sorter radix(gpu, options(Key::u32, 4, Algorithm::radix));
  for (uint32_t count : {0u, 999u, 5000u, 6000u}) each(sort_indirect_on_ranges(gpu, radix, 5000, count));
  for (uint32_t index_bytes : {4u, 8u}) {
    ArgSorter argsorter(gpu, options(Key::f64, 0, Algorithm::automatic), index_bytes);
    for (uint64_t n : sizes(1024)) each(argsort_on_ranges(gpu, argsorter, n));
  }
  for (SegmentedPath path : {SegmentedPath::composed_keys, SegmentedPath::by_size}) {
    SegmentedSorter segmented(gpu, options(Key::u32, 4, Algorithm::automatic), 0, path);
    for (uint64_t n : sizes(1024)) each(segmented_on_ranges(gpu, segmented, n));
  }
  const std::vector<uint64_t> bucket_sizes = sizes(1024);
  const uint32_t capacity = uint32_t(*std::max_element(bucket_sizes.begin(), bucket_sizes.end()));
  for (BucketMode mode : {BucketMode::scatter, BucketMode::sort}) {
    BucketLists lists(gpu, {.buckets = 4099, .capacity = capacity, .mode = mode});
    for (uint64_t n : bucket_sizes) each(buckets_on_ranges(gpu, lists, uint32_t(n)));
  }
}

}  // namespace vksort::test
