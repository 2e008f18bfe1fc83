// SPDX-License-Identifier: MIT
// vksort::Sorter: argument checks, the recording path and the submit-and-wait convenience path.
#include "vksort/sorter.hpp"

#include "api/host_sorters.hpp"

#include <cstring>
#include <optional>

#include "api/internals.hpp"
#include "api/option_checks.hpp"
#include "api/ranges.hpp"
#include "api/status_of.hpp"
#include "gpu/memory.hpp"
#include "gpu/recorder.hpp"
#include "gpu/submit.hpp"
#include "gpu/timestamps.hpp"
#include "sort/any_sort.hpp"
#include "sort/record_gather.hpp"
#include "vksort/auto_profile.hpp"

namespace vksort {

namespace {
// The one place where SortOptions enter the library: every Sorter is made here, and sort_host and the
// typed sort() make one. So every enum is range-checked once, and no later code (tables indexed by
// them, switches with a default) ever sees a value outside it.
void check_options(const SortOptions& o) {
  using api::check_enum;
  if (o.key != Key::element) check_enum("SortOptions", "key", o.key, Key::f64, "Key");
  check_enum("SortOptions", "order", o.order, Order::descending, "Order");
  check_enum("SortOptions", "algorithm", o.algorithm, Algorithm::brick, "Algorithm");
  check_enum("SortOptions", "brick_variant", o.brick_variant, BrickVariant::pairs, "BrickVariant");
  api::check_tuning("SortOptions", o.tuning);
  if (o.value_bytes % 4 || o.value_bytes > algo::RecordGather::max_record_bytes)
    throw Error("SortOptions::value_bytes must be 0 (keys only), 4 (one 32-bit value) or a multiple of 4 up to " +
                std::to_string(algo::RecordGather::max_record_bytes) + " (records); got " + std::to_string(o.value_bytes));
}

// An unset key (Key::element) reaches an untyped entry point: it sorts u32, as it always has. The
// algorithms and every message see a real key kind.
SortOptions with_key(SortOptions o) {
  if (o.key == Key::element) o.key = Key::u32;
  return o;
}

// Keys are indexed with 32-bit integers in the shaders, and signed extension of an index is not
// ruled out on every driver: stay below 2^31 keys.
constexpr uint64_t max_keys = (uint64_t(1) << 31) - 1;
}  // namespace

struct Sorter::Impl {
  Device device;
  SortOptions options;
  // What the algorithms are built for: `options`, but records (value_bytes > 4) travel as a 32-bit
  // index through the sort and move once afterwards (RecordGather), so the algorithms carry 4 bytes.
  SortOptions inner;
  std::optional<algo::RecordGather> records;
  // Automatic: chosen per n from the device's profile, among the candidates constructed here.
  bool automatic = false;
  AutoProfile profile;
  uint32_t brick_tile = 0;
  std::vector<std::pair<Algorithm, algo::AnySort>> sorts;  // one, or automatic's candidates
  // Convenience path only: scratch grown on demand, and staging for the control words it reads back.
  std::optional<gpu::DeviceBuffer> scratch;
  std::optional<gpu::DeviceBuffer> readback;

  Impl(Device& d, const SortOptions& options_in) : device(d), options(options_in), inner(options_in) {
    if (options.value_bytes > 4) {
      inner.value_bytes = 4;
      records.emplace(detail::context_of(d), options.value_bytes);
    }
    const SortOptions& o = inner;
    // Radix sort's digit width, where the options leave it to the device: the device's profile says.
    SortOptions radix_options = o;
    const AutoCrossovers& tuned = d.auto_profile().of(o.key, o.value_bytes != 0);
    if (!o.tuning.radix_bits) radix_options.tuning.radix_bits = tuned.radix_bits;
    // ... and the single pass's shape (RadixSort applies it where it fits).
    const algo::TileShape single_pass_shape{tuned.single_pass_workgroup, tuned.single_pass_items};
    const Algorithm resolved = algo::resolve_algorithm(o);
    // A bit range is radix sort's alone, so automatic with one is radix sort.
    automatic = o.algorithm == Algorithm::automatic && o.begin_bit == 0 && o.end_bit == 0;
    if (!automatic) {
      sorts.emplace_back(resolved, resolved == Algorithm::radix
                                       ? algo::make_sort(detail::context_of(d), radix_options, resolved, single_pass_shape)
                                       : algo::make_sort(detail::context_of(d), o, resolved));
      return;
    }
    profile = d.auto_profile();
    const AutoCrossovers& c = profile.of(o.key, o.value_bytes != 0);
    sorts.emplace_back(Algorithm::radix, algo::make_sort(detail::context_of(d), radix_options, Algorithm::radix, single_pass_shape));
    if (c.brick_up_to) {
      sorts.emplace_back(Algorithm::brick, algo::make_sort(detail::context_of(d), o, Algorithm::brick));
      brick_tile = std::get<algo::BrickSort>(sorts.back().second).tile();
    }
    if (c.sample_from) sorts.emplace_back(Algorithm::sample, algo::make_sort(detail::context_of(d), o, Algorithm::sample));
  }

  Algorithm algorithm_for(uint64_t n) const {
    return automatic ? profile.choose(options.key, options.value_bytes != 0, n, brick_tile) : sorts.front().first;
  }
  const algo::AnySort& sort_for(uint64_t n) const {
    const Algorithm a = algorithm_for(n);
    for (const auto& [algorithm, sort] : sorts)
      if (algorithm == a) return sort;
    throw Error("internal: automatic chose " + std::string(to_string(a)) + " sort without constructing it");
  }

  // The radix sort among the candidates (the one algorithm with a GPU-side count), or null.
  const algo::AnySort* radix_sort() const {
    for (const auto& [algorithm, sort] : sorts)
      if (algorithm == Algorithm::radix) return &sort;
    return nullptr;
  }

  template <class F>
  decltype(auto) visit(uint64_t n, F&& f) const { return std::visit(std::forward<F>(f), sort_for(n)); }
  VkDeviceSize scratch_bytes(uint64_t n) const { return scratch_bytes(n, sort_for(n)); }
  // The algorithm's scratch at offset 0 (where its control words are read back), then for records
  // the index and the record copy.
  VkDeviceSize scratch_bytes(uint64_t n, const algo::AnySort& sort) const {
    const VkDeviceSize bytes = std::visit([&](const auto& s) { return s.scratch_bytes(n); }, sort);
    return records ? records->layout(bytes, n).bytes : bytes;
  }

  // What one recording works on: the algorithm's target and, for records, the gather's.
  struct Plan {
    algo::SortTarget sort;
    algo::RecordGather::Target records;
  };

  // Checks everything record() relies on; throws Error naming the offending argument. Without scratch
  // (Sorter::sort before it allocates one) only keys and values.
  void check(const SortBuffers& b, uint64_t n, const algo::AnySort& sort, bool with_scratch, BufferRef count = {}) const {
    const std::string what = "sorting " + std::to_string(n) + " " + std::string(to_string(options.key)) + " keys";
    if (!options.value_bytes && !b.values.empty())
      throw Error(what + ": a values buffer was given but SortOptions::value_bytes is 0");
    // Keys and values first: n beyond them is the likelier mistake than n beyond what any sort takes.
    std::vector<api::RangeUse> uses = {{"keys", b.keys, api::bytes_for(n, key_bytes(options.key))}};
    if (options.value_bytes) uses.push_back({"values", b.values, api::bytes_for(n, options.value_bytes)});
    api::check_ranges(detail::context_of(device), what, uses);
    if (n > max_keys) throw Error(what + ": more than 2^31 - 1 keys are not supported");
    std::visit([&](const auto& s) { s.check_size(n); }, sort);
    if (!with_scratch) return;
    uses.push_back({"scratch", b.scratch, scratch_bytes(n, sort)});
    // The count is read again after the sort began (records' gather): it must survive the sort.
    if (!count.empty()) uses.push_back({"count", count, 4, 4});
    api::check_ranges(detail::context_of(device), what, uses);
  }

  Plan target(const SortBuffers& b, uint64_t n) const { return target(b, n, sort_for(n)); }
  Plan target(const SortBuffers& b, uint64_t n, const algo::AnySort& sort, BufferRef count = {}) const {
    gpu::Context& ctx = detail::context_of(device);
    check(b, n, sort, true, count);
    Plan p;
    algo::SortTarget& t = p.sort;
    t.n = uint32_t(n);
    t.keys = gpu::buffer_address(ctx, b.keys.buffer, b.keys.offset);
    t.values = options.value_bytes ? gpu::buffer_address(ctx, b.values.buffer, b.values.offset) : 0;
    t.scratch = b.scratch.buffer;
    t.scratch_offset = b.scratch.offset;
    t.scratch_address = gpu::buffer_address(ctx, b.scratch.buffer, b.scratch.offset);
    if (records) {
      const auto l = records->layout(std::visit([&](const auto& s) { return s.scratch_bytes(n); }, sort), n);
      p.records = {.records = t.values, .index = t.scratch_address + l.index, .copy = t.scratch_address + l.copy,
                   .count = 0, .n = t.n};
      t.values = p.records.index;  // the algorithm carries the index as its 32-bit value
    }
    return p;
  }
  void set_count(Plan& p, VkDeviceAddress count) const { p.sort.count = p.records.count = count; }

  // Records the sort: for records, index and copy first, the algorithm on (key, index), then the
  // gather; the phases are named so that the gather's share of the time shows in SortStats.
  void record(gpu::Recorder& rec, const algo::AnySort& sort, const Plan& p) const {
    if (!records) {
      std::visit([&](const auto& s) { s.record(rec, p.sort); }, sort);
      return;
    }
    if (p.sort.n < 2) return;  // nothing to move, whatever a GPU-side count says
    rec.phase("stage");
    records->record_stage(rec, p.records);
    std::visit([&](const auto& s) { s.record(rec, p.sort); }, sort);
    rec.phase("gather");
    records->record_gather(rec, p.records);
  }
};

Result<Sorter> Sorter::create(Device& device, const SortOptions& options) noexcept {
  return api::result_of<Sorter>([&] {
    check_options(options);
    return Sorter(std::make_unique<Impl>(device, with_key(options)));
  });
}
Sorter::Sorter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Sorter::Sorter(Device& device, const SortOptions& options) : Sorter(api::value_or_throw(create(device, options))) {}
Sorter::~Sorter() = default;
Sorter::Sorter(Sorter&&) noexcept = default;
Sorter& Sorter::operator=(Sorter&&) noexcept = default;

const SortOptions& Sorter::options() const { return impl_->options; }
Algorithm Sorter::algorithm() const { return impl_->algorithm_for(max_keys); }
Algorithm Sorter::algorithm_for(uint64_t n) const { return impl_->algorithm_for(n); }
uint32_t Sorter::tile_size() const { return impl_->visit(max_keys, [](const auto& s) { return s.tile(); }); }
VkDeviceSize Sorter::scratch_bytes(uint64_t n) const { return impl_->scratch_bytes(n); }

VkDeviceSize Sorter::scratch_bytes_indirect(uint64_t max_n) const {
  const algo::AnySort* radix = impl_->radix_sort();
  return radix ? impl_->scratch_bytes(max_n, *radix) : 0;
}

Status Sorter::record_indirect(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef count, uint64_t max_n) noexcept {
  return api::status_of([&] {
    const std::string what = "Sorter::record_indirect";
    if (cmd == VK_NULL_HANDLE) throw Error(what + ": no command buffer");
    const algo::AnySort* radix = impl_->radix_sort();
    if (!radix)
      throw Error(what + ": a GPU-side count needs radix sort (or automatic, which then uses radix sort); this Sorter is for " +
                  std::string(to_string(impl_->sorts.front().first)) + " sort");
    if (count.buffer == VK_NULL_HANDLE) throw Error(what + ": no count buffer");
    Impl::Plan p = impl_->target(buffers, max_n, *radix, count);
    impl_->set_count(p, gpu::buffer_address(detail::context_of(impl_->device), count.buffer, count.offset));
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->record(rec, *radix, p);
  });
}

Status Sorter::record(VkCommandBuffer cmd, const SortBuffers& buffers, uint64_t n) noexcept {
  return api::status_of([&] {
    if (cmd == VK_NULL_HANDLE) throw Error("Sorter::record: no command buffer");
    const Impl::Plan p = impl_->target(buffers, n);
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->record(rec, impl_->sort_for(n), p);
  });
}

SortStats Sorter::sort(Buffer& keys, Buffer* values, uint64_t n) {
  gpu::Context& ctx = detail::context_of(impl_->device);
  const SortOptions& o = impl_->options;
  {
    // Before scratch for n keys is allocated: n beyond the Buffers would otherwise surface as a
    // failed (or wasted) allocation of that scratch.
    const std::string what = "Sorter::sort of " + std::to_string(n) + " " + std::string(to_string(o.key)) + " keys";
    auto holds = [&](const Buffer& b, const char* name, uint64_t each) {
      api::check_buffer_device(ctx, detail::Internals::context(b), what, name);
      if (b.size() / each < n)
        throw Error(what + ": n exceeds the " + std::string(name) + " Buffer (" + std::to_string(b.size()) +
                    " bytes hold " + std::to_string(b.size() / each) + ")");
    };
    holds(keys, "keys", key_bytes(o.key));
    if (values && o.value_bytes) holds(*values, "values", o.value_bytes);
  }
  SortBuffers b;
  b.keys = keys.ref();
  if (values) b.values = values->ref();
  impl_->check(b, n, impl_->sort_for(n), false);  // the rest but scratch, also before allocating it
  const VkDeviceSize need = impl_->scratch_bytes(n);
  if (!impl_->scratch || impl_->scratch->size() < need)
    impl_->scratch.emplace(ctx, need, gpu::MemoryKind::device_local, "sort scratch");
  const uint32_t control_words = impl_->visit(n, [](const auto& s) { return s.control_words(); });
  if (!impl_->readback || impl_->readback->size() < control_words * 4)
    impl_->readback.emplace(ctx, control_words * 4, gpu::MemoryKind::staging, "sort statistics");
  b.scratch = {impl_->scratch->buffer(), 0, impl_->scratch->size()};
  const Impl::Plan p = impl_->target(b, n);
  const algo::SortTarget& t = p.sort;

  // Room for per-pass phases of the longest sort (64-bit keys in 2-bit digits: 3 marks x 32 passes + 1)
  // plus the two marks of this function; then the two of record sorting ("stage", "gather").
  gpu::Timestamps timestamps(ctx, 256 + 2);
  const std::string what = "sorting " + std::to_string(n) + " " + std::string(to_string(impl_->options.key)) + " keys";
  gpu::submit_and_wait(ctx, what, [&](VkCommandBuffer cmd) {
    gpu::Recorder rec(ctx, cmd, &timestamps);
    timestamps.reset(cmd);
    // Uploads and earlier sorts on these buffers finish before this sort touches them.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    rec.phase("start");
    impl_->record(rec, impl_->sort_for(n), p);
    rec.phase("end");
    // The control words (rounds run) come back with the same submission.
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferCopy region{0, 0, control_words * 4};
    ctx.vk.vkCmdCopyBuffer(cmd, impl_->scratch->buffer(), impl_->readback->buffer(), 1, &region);
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
  });

  SortStats stats;
  stats.phases_ms = timestamps.phases_ms(&stats.gpu_ms);
  // "start" only anchors the first real phase; drop it when it measured nothing but the barrier.
  std::erase_if(stats.phases_ms, [](const auto& p) { return p.first == "start"; });
  std::vector<uint32_t> control(control_words);
  std::memcpy(control.data(), impl_->readback->mapped(), control_words * 4);
  stats.facts = impl_->visit(n, [&](const auto& s) { return s.facts(control.data(), t.n); });
  return stats;
}

SortStats sort_host(Device& device, void* keys, uint64_t n, uint32_t* values, const SortOptions& options) {
  return sort_host(device, keys, n, values, values ? 4 : 0, options);
}

namespace {
// Sorts host data through `e`'s Sorter and buffers (grown as needed); sets how much memory the entry
// then holds.
SortStats sort_through(detail::HostSorters::Lease& lease, const Device& plain, void* keys, uint64_t n, void* values) {
  detail::HostSorters::Entry& e = *lease;
  const SortOptions& o = e.sorter.options();
  const VkDeviceSize key_size = n * key_bytes(o.key), value_size = values ? n * o.value_bytes : 0;
  const std::string count = std::to_string(n) + " " + std::string(to_string(o.key));
  Device device = plain;
  if (e.keys.size() < std::max<VkDeviceSize>(key_size, 8)) e.keys = Buffer(device, std::max<VkDeviceSize>(key_size, 8), count + " keys");
  // At least 8 bytes each: a Buffer of 0 bytes is empty, and n = 0 with values is a valid call.
  if (values && e.values.size() < std::max<VkDeviceSize>(value_size, 8))
    e.values = Buffer(device, std::max<VkDeviceSize>(value_size, 8), count + " keys' values");
  e.keys.upload({static_cast<const std::byte*>(keys), key_size});
  if (values) e.values.upload({static_cast<const std::byte*>(values), value_size});
  SortStats stats = e.sorter.sort(e.keys, values ? &e.values : nullptr, n);
  e.keys.download({static_cast<std::byte*>(keys), key_size});
  if (values) e.values.download({static_cast<std::byte*>(values), value_size});
  lease.bytes_held = e.keys.size() + e.values.size() + e.sorter.scratch_bytes(n);
  return stats;
}
}  // namespace

SortStats sort_host(Device& device, void* keys, uint64_t n, void* values, uint32_t value_bytes, const SortOptions& options) {
  SortOptions o = with_key(options);
  if (values && value_bytes == 0) throw Error("sort_host: values were given with value_bytes 0");
  if (n > 0 && !keys) throw Error("sort_host: keys is a null pointer (with n = " + std::to_string(n) + ")");
  if (n > max_keys) throw Error("sort_host: " + std::to_string(n) + " keys: more than 2^31 - 1 keys are not supported");
  o.value_bytes = values ? value_bytes : 0;
  detail::HostSorters* cache = detail::Internals::host_sorters(device);
  if (!cache) throw Error("sort_host: internal: this Device copy has no Sorter cache");
  const Device plain = detail::Internals::without_host_sorters(device);
  try {
    detail::HostSorters::Lease lease = cache->take(plain, o);
    return sort_through(lease, plain, keys, n, values);  // an entry whose sort threw is not kept
  } catch (const Error& e) {
    if (e.result() != VK_ERROR_OUT_OF_DEVICE_MEMORY) throw;
  }
  // Out of device memory: give back what the cache holds and try once more (the input is untouched:
  // nothing is downloaded into it unless the sort completed).
  cache->clear();
  detail::HostSorters::Lease lease = cache->take(plain, o);
  return sort_through(lease, plain, keys, n, values);
}

}  // namespace vksort
