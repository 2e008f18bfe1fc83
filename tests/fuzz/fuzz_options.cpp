// SPDX-License-Identifier: MIT
// libFuzzer target for the option structs (issue 15): any bit pattern in any field of SortOptions or
// BucketOptions goes into the Sorter or BucketLists constructor on the default device (lavapipe in CI),
// and the result must be a vksort::Error or a correct result: a sort equal byte for byte to a CPU
// reference (stable, by bits [begin_bit, end_bit) of the encoded key), or bucket lists that hold every
// in-range element in its bucket with build() refusing out-of-range ids. Never a crash, a hang, a
// sanitizer report, a validation message or a wrong result. The device has a pretend memory budget, so
// huge options fail as a full device would instead of exhausting the fuzzing machine.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bucket_workloads.hpp"
#include "gpu/context.hpp"
#include "host_keys.hpp"
#include "vksort/vksort.hpp"

namespace {

using namespace vksort;

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz_options: %s\n", what.c_str());
  std::abort();
}

Device& device() {
  static std::unique_ptr<Device> d = [] {
    DeviceOptions o;
    o.validation = validation_layer_available() ? 1 : 0;
    o.pretend.device_memory = uint64_t(256) << 20;
    o.auto_profile = "builtin";
    return std::make_unique<Device>(o);
  }();
  return *d;
}

// Mostly a valid value in [0, valid], often one in [0, wild] (valid or just beyond), sometimes any 32
// bits: so that most inputs reach a sort, and every field is also tried far out of range.
uint32_t field(FuzzedDataProvider& in, uint32_t valid, uint32_t wild) {
  const uint8_t r = in.ConsumeIntegralInRange<uint8_t>(0, 15);
  if (r == 0) return in.ConsumeIntegral<uint32_t>();
  return in.ConsumeIntegralInRange<uint32_t>(0, r <= 3 ? wild : valid);
}

// The reference: element order stably by bits [begin, end) of the encoded key.
std::vector<uint32_t> reference_order(const SortOptions& o, const std::vector<std::byte>& keys, uint64_t n) {
  const uint32_t width = key_bytes(o.key) * 8;
  const uint32_t end = o.end_bit ? o.end_bit : width;
  std::vector<uint64_t> digit(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t e;
    if (width == 32) {
      uint32_t k;
      std::memcpy(&k, keys.data() + i * 4, 4);
      e = workloads::KeyCodec<uint32_t>::make(o.key, o.order).encode(k);
    } else {
      uint64_t k;
      std::memcpy(&k, keys.data() + i * 8, 8);
      e = workloads::KeyCodec<uint64_t>::make(o.key, o.order).encode(k);
    }
    const uint32_t bits = end - o.begin_bit;
    digit[i] = (e >> o.begin_bit) & (bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1);
  }
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return digit[a] < digit[b]; });
  return order;
}

void fuzz_sort(FuzzedDataProvider& in) {
  SortOptions o;
  constexpr uint32_t value_sizes[] = {0, 4, 8, 12, 16, 36, 256};
  o.key = Key(field(in, 5, 7));
  o.order = Order(field(in, 1, 3));
  o.algorithm = Algorithm(field(in, 3, 5));
  o.value_bytes = value_sizes[in.ConsumeIntegralInRange<uint32_t>(0, std::size(value_sizes) - 1)];
  if (in.ConsumeIntegralInRange<uint8_t>(0, 7) == 0) o.value_bytes = field(in, 264, 264);
  o.brick_variant = BrickVariant(field(in, 1, 3));
  // Tuning: mostly the device's choice (0), else anything.
  o.tuning.workgroup_size = field(in, 0, 1100);
  o.tuning.items_per_thread = field(in, 0, 40);
  o.tuning.radix_bits = field(in, 0, 10);
  o.tuning.samples = field(in, 0, 1100);
  o.tuning.radix_ranking = RadixRanking(field(in, 4, 6));
  o.tuning.radix_scan = RadixScan(field(in, 2, 4));
  o.begin_bit = field(in, 0, 70);
  o.end_bit = field(in, 0, 70);
  const uint64_t n = in.ConsumeIntegralInRange<uint32_t>(0, 700);
  std::unique_ptr<Sorter> sorter;
  try {
    sorter = std::make_unique<Sorter>(device(), o);
  } catch (const Error&) {
    return;  // refused: fine, if it said why (checked by never crashing on to_string etc.)
  }
  const uint32_t kb = key_bytes(o.key);
  std::vector<std::byte> keys(n * kb);
  for (auto& b : keys) b = std::byte(in.ConsumeIntegral<uint8_t>());  // zeros once the input runs out
  // Values: every 4-byte word names its element and word, so any misplaced byte shows.
  const uint32_t vb = o.value_bytes;
  std::vector<uint32_t> values(n * vb / 4);
  for (size_t w = 0; w < values.size(); ++w) values[w] = uint32_t(w) * 2654435761u + 1;
  std::vector<std::byte> got_keys = keys;
  std::vector<uint32_t> got_values = values;
  try {
    Buffer kbuf(device(), std::max<uint64_t>(keys.size(), 4), "fuzz keys");
    kbuf.upload(keys);
    std::unique_ptr<Buffer> vbuf;
    if (vb) {
      vbuf = std::make_unique<Buffer>(device(), std::max<uint64_t>(values.size() * 4, 4), "fuzz values");
      vbuf->upload(std::as_bytes(std::span(values)));
    }
    sorter->sort(kbuf, vbuf.get(), n);
    kbuf.download(got_keys);
    if (vb) vbuf->download(std::as_writable_bytes(std::span(got_values)));
  } catch (const Error& e) {
    if (gpu::validation_message_count()) broken(std::string("a validation message: ") + e.what());
    return;  // e.g. the pretend memory budget, or a size the chosen algorithm refuses
  }
  const std::vector<uint32_t> order = reference_order(o, keys, n);
  const std::string what = "SortOptions key " + std::string(to_string(o.key)) + " order " +
                           std::string(to_string(o.order)) + " algorithm " + std::string(to_string(o.algorithm)) +
                           " value_bytes " + std::to_string(vb) + " bits [" + std::to_string(o.begin_bit) + ", " +
                           std::to_string(o.end_bit) + ") n " + std::to_string(n);
  for (uint64_t i = 0; i < n; ++i) {
    if (std::memcmp(got_keys.data() + i * kb, keys.data() + uint64_t(order[i]) * kb, kb) != 0)
      broken(what + ": key " + std::to_string(i) + " differs from the reference");
    if (vb && std::memcmp(got_values.data() + i * vb / 4, values.data() + uint64_t(order[i]) * vb / 4, vb) != 0)
      broken(what + ": value " + std::to_string(i) + " differs from the reference");
  }
}

void fuzz_buckets(FuzzedDataProvider& in) {
  BucketOptions o;
  o.buckets = 1 + field(in, 3000, 3000);
  o.capacity = 1 + field(in, 3000, 3000);
  o.mode = BucketMode(field(in, 1, 3));
  o.deterministic = in.ConsumeBool();
  o.max_iterations = 1 + field(in, 64, 100);
  o.parts = field(in, 16, 100);
  o.admit_below = field(in, 0, 3000);
  o.rebuild_above = in.ConsumeIntegralInRange<uint8_t>(0, 7) == 0 ? in.ConsumeFloatingPoint<double>()
                                                                  : in.ConsumeIntegralInRange<int>(-10, 110) / 100.0;
  o.tuning.workgroup_size = field(in, 0, 1100);
  o.tuning.items_per_thread = field(in, 0, 40);
  o.tuning.radix_ranking = RadixRanking(field(in, 4, 6));
  o.tuning.radix_scan = RadixScan(field(in, 2, 4));
  o.subgroups = in.ConsumeBool();
  std::unique_ptr<BucketLists> lists;
  try {
    lists = std::make_unique<BucketLists>(device(), o);
  } catch (const Error&) {
    if (gpu::validation_message_count()) broken("a validation message while creating BucketLists");
    return;
  }
  const uint32_t n = in.ConsumeIntegralInRange<uint32_t>(0, std::min<uint32_t>(o.capacity, 2000));
  // Ids mostly in range, some just beyond it or anywhere.
  auto some_ids = [&] {
    std::vector<uint32_t> ids(n);
    for (auto& id : ids)
      id = in.ConsumeIntegralInRange<uint8_t>(0, 31) == 0 ? in.ConsumeIntegral<uint32_t>()
                                                          : in.ConsumeIntegralInRange<uint32_t>(0, o.buckets - 1);
    return ids;
  };
  for (int round = 0; round < 2 && n > 0; ++round) {
    const std::vector<uint32_t> ids = some_ids();
    const bool bad = std::any_of(ids.begin(), ids.end(), [&](uint32_t id) { return id >= o.buckets; });
    bool refused = false;
    try {
      if (round == 0) lists->build(ids);
      else lists->resort(ids);
    } catch (const Error& e) {
      if (gpu::validation_message_count()) broken(std::string("a validation message: ") + e.what());
      if (!bad) return;  // a device limit (the pretend budget), not a wrong result
      refused = true;
    }
    if (bad && !refused) broken("out-of-range bucket ids were accepted");
    const std::string diff =
        workloads::check_bucket_lists(lists->download_head(), lists->download_next(), ids, o.buckets);
    if (!diff.empty())
      broken("BucketOptions buckets " + std::to_string(o.buckets) + " capacity " + std::to_string(o.capacity) +
             " mode " + std::to_string(uint32_t(o.mode)) + " parts " + std::to_string(o.parts) + " n " +
             std::to_string(n) + (round ? " (resort): " : " (build): ") + diff);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) fuzz_buckets(in);
  else fuzz_sort(in);
  if (gpu::validation_message_count()) broken("a validation message: " + gpu::last_validation_message());
  return 0;
}
