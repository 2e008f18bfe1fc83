// SPDX-License-Identifier: MIT
// libFuzzer target for the option structs (issue 15): any bit pattern in any field of SortOptions or
// BucketOptions goes into the Sorter, BucketLists, host segmented sort, argsort or recorded
// (record_indirect) sort on the default device (lavapipe in CI), as it is or posing as a GPU (device()),
// and the result must be a vksort::Error (the caller's data unchanged) or a correct result: a sort
// equal byte for byte to a CPU reference (stable, by bits [begin_bit, end_bit) of the encoded key, per
// segment), or bucket lists that hold every in-range element in its bucket with build() refusing
// out-of-range ids. Never a crash, a hang, a sanitizer report, a validation message or a wrong result.
// The devices have a pretend memory budget, so huge options fail as a full device would instead of
// exhausting the fuzzing machine.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "api/internals.hpp"
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

// The poses a device takes (DeviceOptions::pretend), one Device each, made on first use: lavapipe as
// it is (CPU shapes and choices), and as a GPU, so that the paths vksort takes on GPUs (ballot ranking,
// the single pass, GPU tile shapes) meet the same inputs; among those, one whose pipelines cannot
// require full subgroups and whose look-back finds half its predecessors unpublished (the fallback),
// and one without subgroup operations. The GPU poses hand out dirty memory, as GPU drivers recycle it,
// and their kernels start with dirty workgroup memory, as a GPU's holds what the last workgroup left.
enum Pose : uint8_t { as_is, gpu_pose, gpu_partial_stalls, gpu_no_subgroups, poses };

std::unique_ptr<Device> make_device(Pose pose) {
  DeviceOptions o;
  o.validation = validation_layer_available() ? 1 : 0;
  o.pretend.device_memory = uint64_t(256) << 20;
  o.auto_profile = "builtin";
  o.pretend.gpu = pose != as_is;
  o.pretend.dirty_memory = pose != as_is;
  o.pretend.dirty_shared_memory = pose != as_is;
  o.pretend.no_full_subgroups = pose == gpu_partial_stalls;
  o.pretend.lookback_stall_percent = pose == gpu_partial_stalls ? 50 : 0;
  o.pretend.no_subgroups = pose == gpu_no_subgroups;
  return std::make_unique<Device>(o);
}

// Each pose's Device is a static of its own, initialised by creating it: its destruction at exit is
// then registered after the Vulkan loader and layers it loaded, so it runs before theirs. (One static
// array filled later would be destroyed after the validation layer's own statics, inside a torn-down
// layer.)
Device& device(Pose pose) {
  switch (pose) {
    case gpu_pose: {
      static const std::unique_ptr<Device> d = make_device(gpu_pose);
      return *d;
    }
    case gpu_partial_stalls: {
      static const std::unique_ptr<Device> d = make_device(gpu_partial_stalls);
      return *d;
    }
    case gpu_no_subgroups: {
      static const std::unique_ptr<Device> d = make_device(gpu_no_subgroups);
      return *d;
    }
    default: {
      static const std::unique_ptr<Device> d = make_device(as_is);
      return *d;
    }
  }
}

// Half the inputs take the device as it is, the rest one of the GPU poses.
Pose pick_pose(FuzzedDataProvider& in) {
  const uint8_t r = in.ConsumeIntegralInRange<uint8_t>(0, 5);
  return r < 3 ? as_is : Pose(r - 2);
}

// Mostly a valid value in [0, valid], often one in [0, wild] (valid or just beyond), sometimes any 32
// bits: so that most inputs reach a sort, and every field is also tried far out of range.
uint32_t field(FuzzedDataProvider& in, uint32_t valid, uint32_t wild) {
  const uint8_t r = in.ConsumeIntegralInRange<uint8_t>(0, 15);
  if (r == 0) return in.ConsumeIntegral<uint32_t>();
  return in.ConsumeIntegralInRange<uint32_t>(0, r <= 3 ? wild : valid);
}

// The options of a sort: every field mostly valid, sometimes far out of range.
SortOptions sort_options(FuzzedDataProvider& in) {
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
  return o;
}

// Mostly a tile or two; one input in eight up to many tiles of a GPU's shapes, where the single pass
// looks back (and, posing without forward progress, falls back) across tiles. Not for the element-wise
// brick sort, whose n / 2 rounds take a minute at that size under the sanitizers.
uint64_t key_count(FuzzedDataProvider& in, const SortOptions& o) {
  const bool many = in.ConsumeIntegralInRange<uint8_t>(0, 7) == 0 && o.brick_variant != BrickVariant::pairs;
  return in.ConsumeIntegralInRange<uint32_t>(0, many ? 40000 : 700);
}

// What a case sorts, for the failure message (and, with VKSORT_FUZZ_VERBOSE=1, for every input: to
// replay a finding by hand).
std::string describe(const char* kind, const SortOptions& o, uint64_t n, Pose pose, const std::string& more = "") {
  const std::string what =
      std::string(kind) + " key " + std::string(to_string(o.key)) + " order " + std::string(to_string(o.order)) +
      " algorithm " + std::string(to_string(o.algorithm)) + " value_bytes " + std::to_string(o.value_bytes) +
      " brick variant " + std::to_string(uint32_t(o.brick_variant)) + " bits [" + std::to_string(o.begin_bit) + ", " +
      std::to_string(o.end_bit) + ") workgroup " + std::to_string(o.tuning.workgroup_size) + " items " +
      std::to_string(o.tuning.items_per_thread) + " radix bits " + std::to_string(o.tuning.radix_bits) + " ranking " +
      std::string(to_string(o.tuning.radix_ranking)) + " scan " + std::string(to_string(o.tuning.radix_scan)) + " n " +
      std::to_string(n) + " pose " + std::to_string(unsigned(pose)) + more;
  if (const char* v = std::getenv("VKSORT_FUZZ_VERBOSE"); v && std::string(v) == "1")
    std::fprintf(stderr, "fuzz_options: %s\n", what.c_str());
  return what;
}

// n keys of kb bytes: the input's bytes, then (past its end) bytes of a generator it seeds, so long
// inputs are not all zero; one input in four narrows those by a mask to a few values per byte (skewed
// keys, constant digits). An input that ends before the keys (most do: they are read last) gets the
// generator's full bytes.
std::vector<std::byte> some_keys(FuzzedDataProvider& in, uint64_t n, uint32_t kb) {
  std::vector<std::byte> keys(n * kb);
  uint32_t state = in.ConsumeIntegral<uint32_t>() | 1u;
  const bool narrow = in.ConsumeIntegralInRange<uint8_t>(0, 3) == 3;
  const uint8_t mask = narrow ? in.ConsumeIntegral<uint8_t>() : 0xff;
  for (auto& b : keys) {
    if (in.remaining_bytes()) {
      b = std::byte(in.ConsumeIntegral<uint8_t>());
    } else {
      state ^= state << 13, state ^= state >> 17, state ^= state << 5;
      b = std::byte(uint8_t(state >> 24) & mask);
    }
  }
  return keys;
}

// Values: every 4-byte word names its element and word, so any misplaced byte shows.
std::vector<uint32_t> numbered_values(uint64_t n, uint32_t value_bytes) {
  std::vector<uint32_t> values(n * value_bytes / 4);
  for (size_t w = 0; w < values.size(); ++w) values[w] = uint32_t(w) * 2654435761u + 1;
  return values;
}

// The reference: within each segment [offsets[s], offsets[s + 1]) (one segment of all n keys when
// offsets is empty), element order stably by bits [begin, end) of the encoded key.
std::vector<uint32_t> reference_order(const SortOptions& o, const std::vector<std::byte>& keys, uint64_t n,
                                      const std::vector<uint32_t>& offsets = {}) {
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
  const std::vector<uint32_t> whole = {0, uint32_t(n)};
  const std::vector<uint32_t>& cuts = offsets.empty() ? whole : offsets;
  for (size_t s = 0; s + 1 < cuts.size(); ++s)
    std::stable_sort(order.begin() + cuts[s], order.begin() + cuts[s + 1],
                     [&](uint32_t a, uint32_t b) { return digit[a] < digit[b]; });
  return order;
}

// Keys and values as sorted against the input's in the reference order.
void check_sorted(const std::string& what, const std::vector<uint32_t>& order, uint32_t kb, uint32_t vb,
                  const std::vector<std::byte>& keys, const std::vector<uint32_t>& values,
                  const std::vector<std::byte>& got_keys, const std::vector<uint32_t>& got_values) {
  for (uint64_t i = 0; i < order.size(); ++i) {
    if (std::memcmp(got_keys.data() + i * kb, keys.data() + uint64_t(order[i]) * kb, kb) != 0)
      broken(what + ": key " + std::to_string(i) + " differs from the reference");
    if (vb && std::memcmp(got_values.data() + i * vb / 4, values.data() + uint64_t(order[i]) * vb / 4, vb) != 0)
      broken(what + ": value " + std::to_string(i) + " differs from the reference");
  }
}

void fuzz_sort(FuzzedDataProvider& in) {
  const Pose pose = pick_pose(in);
  Device& dev = device(pose);
  const SortOptions o = sort_options(in);
  const uint64_t n = key_count(in, o);
  std::unique_ptr<Sorter> sorter;
  try {
    sorter = std::make_unique<Sorter>(dev, o);
  } catch (const Error&) {
    return;  // refused: fine, if it said why (checked by never crashing on to_string etc.)
  }
  const std::string what = describe("SortOptions", o, n, pose);
  const uint32_t kb = key_bytes(o.key), vb = o.value_bytes;
  const std::vector<std::byte> keys = some_keys(in, n, kb);
  const std::vector<uint32_t> values = numbered_values(n, vb);
  std::vector<std::byte> got_keys = keys;
  std::vector<uint32_t> got_values = values;
  try {
    Buffer kbuf(dev, std::max<uint64_t>(keys.size(), 4), "fuzz keys");
    kbuf.upload(keys);
    std::unique_ptr<Buffer> vbuf;
    if (vb) {
      vbuf = std::make_unique<Buffer>(dev, std::max<uint64_t>(values.size() * 4, 4), "fuzz values");
      vbuf->upload(std::as_bytes(std::span(values)));
    }
    sorter->sort(kbuf, vbuf.get(), n);
    kbuf.download(got_keys);
    if (vb) vbuf->download(std::as_writable_bytes(std::span(got_values)));
  } catch (const Error& e) {
    if (gpu::validation_message_count()) broken(std::string("a validation message: ") + e.what());
    return;  // e.g. the pretend memory budget, or a size the chosen algorithm refuses
  }
  check_sorted(what, reference_order(o, keys, n), kb, vb, keys, values, got_keys, got_values);
}

// Segmented sort on the host path (segmented_sort_host, which picks its path from the segment sizes
// unless told): random cut points, now and then offsets that are not a valid segmentation, which it
// must refuse with the keys and values left as they were.
void fuzz_segmented(FuzzedDataProvider& in) {
  const Pose pose = pick_pose(in);
  Device& dev = device(pose);
  const SortOptions o = sort_options(in);
  const uint64_t n = key_count(in, o);
  const auto path = SegmentedPath(field(in, 2, 4));
  const uint32_t segments = 1 + field(in, 40, 300) % 4096;  // the offsets are allocated here
  std::vector<uint32_t> offsets(segments + 1, 0);
  // Mostly short segments (the small-segment kernels), sometimes any cut points.
  const bool short_ones = in.ConsumeBool();
  for (uint32_t s = 1; s < segments; ++s)
    offsets[s] = short_ones ? std::min<uint32_t>(uint32_t(n), offsets[s - 1] + in.ConsumeIntegralInRange<uint32_t>(0, 64))
                            : in.ConsumeIntegralInRange<uint32_t>(0, uint32_t(n));
  offsets[segments] = uint32_t(n);
  std::sort(offsets.begin(), offsets.end());
  bool bad = false;
  if (in.ConsumeIntegralInRange<uint8_t>(0, 15) == 0) {
    // One entry anywhere: off by one, or any value (valid by chance now and then).
    const uint32_t at = in.ConsumeIntegralInRange<uint32_t>(0, segments);
    offsets[at] = in.ConsumeBool() ? offsets[at] + 1 : in.ConsumeIntegral<uint32_t>();
    bad = offsets.front() != 0 || offsets.back() != n || !std::is_sorted(offsets.begin(), offsets.end());
  }
  const std::string what = describe("segmented", o, n, pose,
                                    " segments " + std::to_string(segments) + " path " + std::to_string(uint32_t(path)) +
                                        (bad ? " (bad offsets)" : ""));
  // Nothing has checked the options yet: value_bytes may be anything, and only 0, 4 and multiples of
  // 4 up to 256 may be accepted. The values hold at most 264 bytes per key, so a value size accepted
  // beyond that reads past them (a sanitizer report) instead of allocating gigabytes here.
  const uint32_t kb = key_bytes(o.key), vb = o.value_bytes;
  const bool valid_values = vb == 0 || (vb % 4 == 0 && vb <= 256);
  const std::vector<std::byte> keys = some_keys(in, n, kb);
  const std::vector<uint32_t> values = numbered_values(n, std::min(vb, 264u));
  std::vector<std::byte> got_keys = keys;
  std::vector<uint32_t> got_values = values;
  try {
    segmented_sort_host(dev, got_keys.data(), n, vb ? got_values.data() : nullptr, vb, offsets.data(), segments, o, path);
  } catch (const Error& e) {
    if (gpu::validation_message_count()) broken(std::string("a validation message: ") + e.what());
    if (got_keys != keys || got_values != values) broken(what + ": refused (" + e.what() + ") but changed the data");
    return;  // bad offsets, options the path refuses, a device limit
  }
  if (bad || !valid_values) broken(what + ": accepted");
  check_sorted(what, reference_order(o, keys, n, offsets), kb, vb, keys, values, got_keys, got_values);
}

// Argsort on the host path: the stable sorting permutation, indices of 4 or 8 bytes (sometimes any
// width, which it must refuse), values never (value_bytes is for sorts; argsort refuses it).
void fuzz_argsort(FuzzedDataProvider& in) {
  const Pose pose = pick_pose(in);
  Device& dev = device(pose);
  SortOptions o = sort_options(in);
  if (in.ConsumeIntegralInRange<uint8_t>(0, 7) != 0) o.value_bytes = 0;
  const uint32_t index_bytes = in.ConsumeIntegralInRange<uint8_t>(0, 15) == 0 ? field(in, 9, 9) : in.ConsumeBool() ? 8 : 4;
  const uint64_t n = key_count(in, o);
  const std::string what = describe("argsort", o, n, pose, " index bytes " + std::to_string(index_bytes));
  const uint32_t kb = key_bytes(o.key);
  const std::vector<std::byte> keys = some_keys(in, n, kb);
  std::vector<std::byte> indices(n * 8, std::byte(0xA5));
  const std::vector<std::byte> untouched = indices;
  try {
    argsort_host(dev, keys.data(), n, indices.data(), index_bytes, o);
  } catch (const Error& e) {
    if (gpu::validation_message_count()) broken(std::string("a validation message: ") + e.what());
    if (indices != untouched) broken(what + ": refused (" + e.what() + ") but wrote indices");
    return;
  }
  if ((index_bytes != 4 && index_bytes != 8) || o.value_bytes) broken(what + ": accepted");
  const std::vector<uint32_t> order = reference_order(o, keys, n);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t got = 0;
    std::memcpy(&got, indices.data() + i * index_bytes, index_bytes);
    if (got != order[i]) broken(what + ": index " + std::to_string(i) + " differs from the reference");
  }
  for (uint64_t b = n * index_bytes; b < indices.size(); ++b)
    if (indices[b] != std::byte(0xA5)) broken(what + ": wrote past the indices");
}

// The application's side of Sorter::record: its own command pool and buffer, ended and submitted on the
// device's queue (shared with vksort's own submissions, hence its lock).
class Recording {
 public:
  explicit Recording(Device& device) : ctx_(detail::context_of(device)) {
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = device.info().queue_family;
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (ctx_.vk.vkCreateCommandPool(ctx_.device, &pool_info, nullptr, &pool_) != VK_SUCCESS) broken("command pool");
    alloc.commandPool = pool_;
    if (ctx_.vk.vkAllocateCommandBuffers(ctx_.device, &alloc, &cmd_) != VK_SUCCESS ||
        ctx_.vk.vkBeginCommandBuffer(cmd_, &begin) != VK_SUCCESS)
      broken("command buffer");
  }
  ~Recording() { ctx_.vk.vkDestroyCommandPool(ctx_.device, pool_, nullptr); }
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;
  VkCommandBuffer cmd() const { return cmd_; }
  void submit_and_wait() {
    if (ctx_.vk.vkEndCommandBuffer(cmd_) != VK_SUCCESS) broken("ending the command buffer");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    std::lock_guard lock(ctx_.submit_mutex);
    if (ctx_.vk.vkQueueSubmit(ctx_.queue, 1, &submit, VK_NULL_HANDLE) != VK_SUCCESS ||
        ctx_.vk.vkQueueWaitIdle(ctx_.queue) != VK_SUCCESS)
      broken("submitting the recording");
  }

 private:
  gpu::Context& ctx_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

// Sorter::record_indirect into the application's command buffer, with a count the GPU reads (any
// value, also beyond max_n: the first min(count, max_n) keys are sorted, the rest left alone); Sorters
// without radix sort must refuse it with a Status and are recorded with Sorter::record instead.
void fuzz_recorded(FuzzedDataProvider& in) {
  const Pose pose = pick_pose(in);
  Device& dev = device(pose);
  const SortOptions o = sort_options(in);
  const uint64_t max_n = key_count(in, o);
  const uint32_t count = in.ConsumeIntegralInRange<uint8_t>(0, 7) == 0 ? in.ConsumeIntegral<uint32_t>()
                                                                       : in.ConsumeIntegralInRange<uint32_t>(0, uint32_t(max_n));
  std::unique_ptr<Sorter> sorter;
  try {
    sorter = std::make_unique<Sorter>(dev, o);
  } catch (const Error&) {
    return;
  }
  const std::string what = describe("recorded", o, max_n, pose, " count " + std::to_string(count));
  const uint32_t kb = key_bytes(o.key), vb = o.value_bytes;
  const std::vector<std::byte> keys = some_keys(in, max_n, kb);
  const std::vector<uint32_t> values = numbered_values(max_n, vb);
  std::vector<std::byte> got_keys = keys;
  std::vector<uint32_t> got_values = values;
  uint64_t sorted = 0;
  try {
    Buffer kbuf(dev, std::max<uint64_t>(keys.size(), 4), "fuzz keys"), cbuf(dev, 4, "fuzz count");
    Buffer scratch(dev, std::max<VkDeviceSize>({sorter->scratch_bytes_indirect(max_n), sorter->scratch_bytes(max_n), 4}),
                   "fuzz scratch");
    kbuf.upload(keys);
    cbuf.upload(std::as_bytes(std::span(&count, 1)));
    std::unique_ptr<Buffer> vbuf;
    if (vb) {
      vbuf = std::make_unique<Buffer>(dev, std::max<uint64_t>(values.size() * 4, 4), "fuzz values");
      vbuf->upload(std::as_bytes(std::span(values)));
    }
    Recording app(dev);
    const SortBuffers b{kbuf.ref(), vbuf ? vbuf->ref() : BufferRef{}, scratch.ref()};
    Status st = sorter->record_indirect(app.cmd(), b, cbuf.ref(), max_n);
    sorted = std::min<uint64_t>(count, max_n);
    if (!st.ok()) {
      if (sorter->scratch_bytes_indirect(max_n) != 0) broken(what + ": record_indirect refused: " + st.message);
      st = sorter->record(app.cmd(), b, max_n);  // brick or sample sort: the host's count
      sorted = max_n;
      if (!st.ok()) broken(what + ": record refused: " + st.message);
    }
    app.submit_and_wait();
    kbuf.download(got_keys);
    if (vb) vbuf->download(std::as_writable_bytes(std::span(got_values)));
  } catch (const Error& e) {
    if (gpu::validation_message_count()) broken(std::string("a validation message: ") + e.what());
    return;  // the pretend memory budget
  }
  // The first `sorted` keys sorted among themselves, the rest where they were.
  std::vector<uint32_t> order = reference_order(o, keys, sorted);
  for (uint64_t i = sorted; i < max_n; ++i) order.push_back(uint32_t(i));
  check_sorted(what, order, kb, vb, keys, values, got_keys, got_values);
}

void fuzz_buckets(FuzzedDataProvider& in) {
  Device& dev = device(pick_pose(in));
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
    lists = std::make_unique<BucketLists>(dev, o);
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
  // One byte picks the case.
  switch (in.ConsumeIntegralInRange<uint8_t>(0, 4)) {
    case 0: fuzz_sort(in); break;
    case 1: fuzz_buckets(in); break;
    case 2: fuzz_segmented(in); break;
    case 3: fuzz_argsort(in); break;
    default: fuzz_recorded(in); break;
  }
  if (gpu::validation_message_count()) broken("a validation message: " + gpu::last_validation_message());
  return 0;
}
