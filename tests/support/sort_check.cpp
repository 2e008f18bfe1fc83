// SPDX-License-Identifier: MIT
#include "support/sort_check.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "reference_sort.hpp"
#include "support/test_device.hpp"

namespace vksort::test {

std::vector<uint64_t> awkward_sizes(uint32_t workgroup, uint32_t tile, uint64_t largest) {
  std::vector<uint64_t> sizes = {0, 1, 2, 3, workgroup - 1, workgroup, workgroup + 1, tile - 1, tile, tile + 1,
                                 2 * tile - 1, 2 * tile + 1, 3 * tile + 7};
  for (uint64_t w : {64, 256}) sizes.insert(sizes.end(), {w - 1, w, w + 1});
  for (uint64_t k = 4; (uint64_t(1) << k) + 1 <= largest; k += 3) {
    sizes.push_back((uint64_t(1) << k) - 1);
    sizes.push_back((uint64_t(1) << k) + 1);
  }
  for (uint64_t p : {13, 251, 1021, 7919, 40009, 99991}) sizes.push_back(p);
  std::erase_if(sizes, [&](uint64_t s) { return s > largest; });
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string describe(const Sorter& sorter, const SortCase& c) {
  const SortOptions& o = sorter.options();
  std::string carried = o.value_bytes == 4 ? " +values" : "";
  if (o.value_bytes > 4) carried.append(" +").append(std::to_string(o.value_bytes)).append("B records");
  return std::string(to_string(o.key)) + " " + std::string(to_string(o.order)) + carried +
         " n=" + std::to_string(c.n) + " " + workloads::to_string(c.input) + " seed=" + std::to_string(c.seed) +
         " tile=" + std::to_string(sorter.tile_size()) +
         (o.brick_variant == BrickVariant::pairs ? " pairs" : "");
}

namespace {

// check_sort for records (value_bytes > 4): word w of the input records is w, so every word is
// unique; the reference moves the records by the permutation a stable sort of the keys makes.
std::string check_records(Sorter& sorter, const SortCase& c, SortStats* stats) {
  const SortOptions& o = sorter.options();
  const uint32_t rb = o.value_bytes;
  std::vector<std::byte> keys = workloads::generate_keys(o.key, c.input, c.n, c.seed);
  const std::vector<uint32_t> words = workloads::generate_values(c.n * (rb / 4));
  std::vector<std::byte> records(words.size() * 4);
  if (!records.empty()) std::memcpy(records.data(), words.data(), records.size());
  std::vector<std::byte> expected = keys, expected_records(records.size());
  std::vector<uint32_t> from = workloads::generate_values(c.n);
  workloads::reference_sort(o.key, o.order, expected, from);
  for (uint64_t i = 0; i < c.n; ++i) std::memcpy(&expected_records[i * rb], &records[uint64_t(from[i]) * rb], rb);

  Device& gpu = device();
  Buffer key_buffer(gpu, std::max<size_t>(keys.size(), 8), "test keys");
  Buffer record_buffer(gpu, std::max<size_t>(records.size(), 8), "test records");
  key_buffer.upload(keys);
  record_buffer.upload(records);
  SortStats s = sorter.sort(key_buffer, &record_buffer, c.n);
  if (stats) *stats = s;
  key_buffer.download(keys);
  record_buffer.download(records);
  std::string diff = workloads::first_difference(o.key, expected, keys);
  for (uint64_t b = 0; diff.empty() && b < records.size(); b += 4)
    if (std::memcmp(&expected_records[b], &records[b], 4) != 0)
      diff = "record " + std::to_string(b / rb) + " differs from the reference at byte " + std::to_string(b % rb);
  return diff.empty() ? diff : describe(sorter, c) + ": " + diff;
}

}  // namespace

std::string check_sort(Sorter& sorter, const SortCase& c, SortStats* stats) {
  const SortOptions& o = sorter.options();
  if (o.value_bytes > 4) return check_records(sorter, c, stats);
  std::vector<std::byte> keys = workloads::generate_keys(o.key, c.input, c.n, c.seed);
  std::vector<uint32_t> values = o.value_bytes ? workloads::generate_values(c.n) : std::vector<uint32_t>{};
  std::vector<std::byte> expected = keys;
  std::vector<uint32_t> expected_values = values;
  workloads::reference_sort(o.key, o.order, expected, expected_values);

  Device& gpu = device();
  Buffer key_buffer(gpu, keys.size(), "test keys");
  key_buffer.upload(keys);
  std::optional<Buffer> value_buffer;
  if (o.value_bytes) {
    value_buffer.emplace(gpu, values.size() * 4, "test values");
    value_buffer->upload(std::as_bytes(std::span(values)));
  }
  SortStats s = sorter.sort(key_buffer, value_buffer ? &*value_buffer : nullptr, c.n);
  if (stats) *stats = s;
  key_buffer.download(keys);
  if (value_buffer) value_buffer->download(std::as_writable_bytes(std::span(values)));
  std::string diff = workloads::first_difference(o.key, expected, keys, expected_values, values);
  return diff.empty() ? diff : describe(sorter, c) + ": " + diff;
}

void check_case(Sorter& sorter, const SortCase& c, SortStats* stats) {
  const std::string diff = check_sort(sorter, c, stats);
  INFO(describe(sorter, c));
  CHECK_MESSAGE(diff.empty(), diff);
}

std::string check_on(Device& gpu, Sorter& sorter, std::vector<std::byte> keys, SortStats* stats) {
  const SortOptions& o = sorter.options();
  const uint64_t n = keys.size() / key_bytes(o.key);
  std::vector<uint32_t> values = workloads::generate_values(n);
  Buffer kb(gpu, std::max<size_t>(keys.size(), 8), "keys"), vb(gpu, std::max<size_t>(n * 4, 8), "values");
  kb.upload(keys);
  vb.upload(std::as_bytes(std::span(values)));
  const SortStats s = sorter.sort(kb, o.value_bytes ? &vb : nullptr, n);
  if (stats) *stats = s;
  std::vector<std::byte> got(keys.size());
  std::vector<uint32_t> got_values(n);
  kb.download(got);
  if (o.value_bytes) vb.download(std::as_writable_bytes(std::span(got_values)));
  if (!o.value_bytes) values.clear(), got_values.clear();
  workloads::reference_sort(o.key, o.order, keys, values, o.begin_bit, o.end_bit);
  return workloads::first_difference(o.key, keys, got, values, got_values);
}

}  // namespace vksort::test
