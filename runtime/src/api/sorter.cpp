// SPDX-License-Identifier: MIT
// vksort::Sorter: argument checks, the recording path and the submit-and-wait convenience path.
#include "vksort/sorter.hpp"

#include "api/call_checks.hpp"
#include "api/composed_sort.hpp"
#include "api/host_sorters.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
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
  api::check_value_bytes("SortOptions::value_bytes", o.value_bytes);
}
static_assert(api::max_value_bytes == algo::RecordGather::max_record_bytes, "records are what the gather moves");

// An unset key (Key::element) reaches an untyped entry point: it sorts u32, as it always has. The
// algorithms and every message see a real key kind.
SortOptions with_key(SortOptions o) {
  if (o.key == Key::element) o.key = Key::u32;
  return o;
}
constexpr uint64_t max_keys = max_sort_keys;
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
    // One copy of the device's profile (set_auto_profile may replace it meanwhile on another thread).
    profile = detail::Internals::auto_profile(d);
    // Radix sort's digit width, where the options leave it to the device: the device's profile says.
    SortOptions radix_options = o;
    const AutoCrossovers& tuned = profile.of(o.key, o.value_bytes != 0);
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

  // The sort record_indirect() uses; throws Error when there is none or no count buffer.
  const algo::AnySort& indirect_sort(BufferRef count) const {
    const std::string what = "Sorter::record_indirect";
    const algo::AnySort* radix = radix_sort();
    if (!radix)
      throw Error(what + ": a GPU-side count needs radix sort (or automatic, which then uses radix sort); this Sorter is for " +
                  std::string(to_string(sorts.front().first)) + " sort");
    if (count.buffer == VK_NULL_HANDLE) throw Error(what + ": no count buffer");
    return *radix;
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
    t.keys_buffer = b.keys.buffer;
    t.keys_offset = b.keys.offset;
    if (options.value_bytes) t.values_buffer = b.values.buffer, t.values_offset = b.values.offset;
    if (records) {
      const auto l = records->layout(std::visit([&](const auto& s) { return s.scratch_bytes(n); }, sort), n);
      p.records = {.records = t.values, .index = t.scratch_address + l.index, .copy = t.scratch_address + l.copy,
                   .count = 0, .n = t.n};
      t.values = p.records.index;  // the algorithm carries the index as its 32-bit value
      t.values_buffer = b.scratch.buffer, t.values_offset = b.scratch.offset + l.index;
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

const SortOptions& Sorter::options() const {
  api::check_not_moved(impl_.get(), "Sorter::options");
  return impl_->options;
}
Algorithm Sorter::algorithm() const {
  api::check_not_moved(impl_.get(), "Sorter::algorithm");
  return impl_->algorithm_for(max_keys);
}
Algorithm Sorter::algorithm_for(uint64_t n) const {
  api::check_not_moved(impl_.get(), "Sorter::algorithm_for");
  return impl_->algorithm_for(n);
}
uint32_t Sorter::tile_size() const {
  api::check_not_moved(impl_.get(), "Sorter::tile_size");
  return impl_->visit(max_keys, [](const auto& s) { return s.tile(); });
}
VkDeviceSize Sorter::scratch_bytes(uint64_t n) const {
  api::check_not_moved(impl_.get(), "Sorter::scratch_bytes");
  if (n > max_keys) return std::numeric_limits<VkDeviceSize>::max();  // the layouts' arithmetic would wrap
  return impl_->scratch_bytes(n);
}

VkDeviceSize Sorter::scratch_bytes_indirect(uint64_t max_n) const {
  api::check_not_moved(impl_.get(), "Sorter::scratch_bytes_indirect");
  const algo::AnySort* radix = impl_->radix_sort();
  if (radix && max_n > max_keys) return std::numeric_limits<VkDeviceSize>::max();
  return radix ? impl_->scratch_bytes(max_n, *radix) : 0;
}

Status Sorter::record_indirect(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef count, uint64_t max_n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "Sorter::record_indirect");
    if (cmd == VK_NULL_HANDLE) throw Error("Sorter::record_indirect: no command buffer");
    const algo::AnySort& radix = impl_->indirect_sort(count);
    Impl::Plan p = impl_->target(buffers, max_n, radix, count);
    impl_->set_count(p, gpu::buffer_address(detail::context_of(impl_->device), count.buffer, count.offset));
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->record(rec, radix, p);
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

Status Sorter::record(VkCommandBuffer cmd, const SortBuffers& buffers, uint64_t n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "Sorter::record");
    if (cmd == VK_NULL_HANDLE) throw Error("Sorter::record: no command buffer");
    const Impl::Plan p = impl_->target(buffers, n);
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->record(rec, impl_->sort_for(n), p);
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

void api::check_nested(Sorter& sorter, const SortBuffers& buffers, uint64_t n, BufferRef count) {
  const Sorter::Impl& impl = detail::Internals::impl(sorter);
  if (count.empty()) impl.check(buffers, n, impl.sort_for(n), true);
  else impl.check(buffers, n, impl.indirect_sort(count), true, count);
}

namespace {

// A copy of `bytes` from one whole buffer to another, ordered after every earlier write to either and
// before later shaders and copies (within one command buffer).
void record_copy(gpu::Context& ctx, VkCommandBuffer cmd, VkBuffer from, VkBuffer to, VkDeviceSize bytes) {
  if (bytes == 0) return;  // n = 0: nothing to copy (a copy of 0 bytes is invalid usage, VUID-VkBufferCopy-size-01988)
  gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  const VkBufferCopy region{0, 0, bytes};
  ctx.vk.vkCmdCopyBuffer(cmd, from, to, 1, &region);
}

// sort() and sort_back_to_back(): `runs` sorts in one submission; `around(cmd, k, before)` records
// what goes before and after sort k (nothing where it is empty).
std::vector<SortStats> sort_runs(Sorter::Impl& impl, Buffer& keys, Buffer* values, uint64_t n, uint32_t runs,
                                 const std::function<void(VkCommandBuffer, uint32_t, bool)>& around) {
  gpu::Context& ctx = detail::context_of(impl.device);
  const SortOptions& o = impl.options;
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
  impl.check(b, n, impl.sort_for(n), false);  // the rest but scratch, also before allocating it
  const VkDeviceSize need = impl.scratch_bytes(n);
  if (!impl.scratch || impl.scratch->size() < need)
    impl.scratch.emplace(ctx, need, gpu::MemoryKind::device_local, "sort scratch");
  const uint32_t control_words = impl.visit(n, [](const auto& s) { return s.control_words(); });
  const VkDeviceSize control_bytes = VkDeviceSize(control_words) * 4;
  if (!impl.readback || impl.readback->size() < control_bytes * runs)
    impl.readback.emplace(ctx, control_bytes * runs, gpu::MemoryKind::staging, "sort statistics");
  b.scratch = {impl.scratch->buffer(), 0, impl.scratch->size()};
  const Sorter::Impl::Plan p = impl.target(b, n);
  const algo::SortTarget& t = p.sort;

  // Per sort: room for the phases of the longest sort (64-bit keys in 2-bit digits: 3 marks x 32
  // passes + 1) plus the two marks of this function; then the two of record sorting ("stage", "gather").
  std::vector<std::unique_ptr<gpu::Timestamps>> timestamps;
  for (uint32_t k = 0; k < runs; ++k) timestamps.push_back(std::make_unique<gpu::Timestamps>(ctx, 256 + 2));
  std::string what = "sorting " + std::to_string(n) + " " + std::string(to_string(impl.options.key)) + " keys";
  if (runs > 1) what.append(", ").append(std::to_string(runs)).append(" times");
  gpu::submit_and_wait(ctx, what, [&](VkCommandBuffer cmd) {
    for (uint32_t k = 0; k < runs; ++k) {
      if (around) around(cmd, k, true);
      gpu::Recorder rec(ctx, cmd, timestamps[k].get());
      timestamps[k]->reset(cmd);
      // Uploads, copies and earlier sorts on these buffers finish before this sort touches them.
      gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                              VK_ACCESS_TRANSFER_WRITE_BIT);
      rec.phase("start");
      impl.record(rec, impl.sort_for(n), p);
      rec.phase("end");
      // The control words (rounds run) come back with the same submission, one set per sort.
      gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT);
      const VkBufferCopy region{0, control_bytes * k, control_bytes};
      ctx.vk.vkCmdCopyBuffer(cmd, impl.scratch->buffer(), impl.readback->buffer(), 1, &region);
      if (around) around(cmd, k, false);
    }
    gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
  });

  std::vector<SortStats> all(runs);
  for (uint32_t k = 0; k < runs; ++k) {
    SortStats& stats = all[k];
    stats.phases_ms = timestamps[k]->phases_ms(&stats.gpu_ms);
    std::vector<uint32_t> control(control_words);
    std::memcpy(control.data(), static_cast<const std::byte*>(impl.readback->mapped()) + control_bytes * k, control_bytes);
    stats.facts = impl.visit(n, [&](const auto& s) { return s.facts(control.data(), t.n); });
    // Records: the facts of the whole recording, the staging and gather around the sort included.
    if (impl.records) impl.records->add_facts(stats.facts, t.n);
  }
  return all;
}

}  // namespace

SortStats Sorter::sort(Buffer& keys, Buffer* values, uint64_t n) {
  api::check_not_moved(impl_.get(), "Sorter::sort");
  return std::move(sort_runs(*impl_, keys, values, n, 1, {}).front());
}

std::vector<SortStats> Sorter::sort_back_to_back(Buffer& keys, Buffer* values, uint64_t n, const Buffer& input_keys,
                                                 const Buffer* input_values, std::span<const RunResult> results) {
  api::check_not_moved(impl_.get(), "Sorter::sort_back_to_back");
  gpu::Context& ctx = detail::context_of(impl_->device);
  const SortOptions& o = impl_->options;
  const std::string what = "Sorter::sort_back_to_back of " + std::to_string(n) + " " + std::string(to_string(o.key)) + " keys";
  if (results.empty()) throw Error(what + ": no results to keep (results.size() is the number of sorts)");
  const bool with_values = values != nullptr;
  if ((input_values != nullptr) != with_values)
    throw Error(what + ": values and input_values are given together or not at all");
  const VkDeviceSize key_size = n * key_bytes(o.key), value_size = n * o.value_bytes;
  auto holds = [&](const Buffer* b, const std::string& name, VkDeviceSize bytes) {
    if (!b) throw Error(what + ": " + name + " is missing");
    api::check_buffer_device(ctx, detail::Internals::context(*b), what, name.c_str());
    if (b->size() < bytes)
      throw Error(what + ": " + name + " holds " + std::to_string(b->size()) + " bytes, fewer than the " + std::to_string(bytes) +
                  " of n keys or values");
  };
  holds(&input_keys, "input_keys", key_size);
  if (with_values) holds(input_values, "input_values", value_size);
  // Every buffer a copy reads or writes is its own: a result aliasing the sorted buffers or the input
  // would be overwritten or would overwrite them.
  std::vector<const Buffer*> seen = {&keys, &input_keys};
  if (with_values) seen.insert(seen.end(), {values, input_values});
  for (size_t k = 0; k < results.size(); ++k) {
    const std::string which = "results[" + std::to_string(k) + "]";
    holds(results[k].keys, which + ".keys", key_size);
    if (with_values) holds(results[k].values, which + ".values", value_size);
    else if (results[k].values) throw Error(what + ": " + which + ".values is given without values to sort");
    for (const Buffer* b : {results[k].keys, results[k].values}) {
      if (!b) continue;
      if (std::find(seen.begin(), seen.end(), b) != seen.end())
        throw Error(what + ": " + which + " names a buffer used elsewhere in the call (each result needs buffers of its own)");
      seen.push_back(b);
    }
  }
  // (keys and values as one buffer: the sorts' own check below names their overlap.)
  const bool input_sorted = &input_keys == &keys || (with_values && (&input_keys == values || input_values == &keys ||
                                                                      input_values == values));
  if (input_sorted) throw Error(what + ": the input buffers must not be the ones sorted");
  const auto raw = [](const Buffer& b) { return b.vk_buffer(); };
  return sort_runs(*impl_, keys, values, n, uint32_t(results.size()), [&](VkCommandBuffer cmd, uint32_t k, bool before) {
    if (before) {
      record_copy(ctx, cmd, raw(input_keys), raw(keys), key_size);
      if (with_values) record_copy(ctx, cmd, raw(*input_values), raw(*values), value_size);
    } else {
      record_copy(ctx, cmd, raw(keys), raw(*results[k].keys), key_size);
      if (with_values) record_copy(ctx, cmd, raw(*values), raw(*results[k].values), value_size);
    }
  });
}

SortStats sort_host(Device& device, void* keys, uint64_t n, uint32_t* values, const SortOptions& options) {
  return sort_host(device, keys, n, values, values ? 4 : 0, options);
}

VkDeviceSize detail::sorter_held_bytes(Sorter& sorter) {
  const Sorter::Impl& impl = detail::Internals::impl(sorter);
  return (impl.scratch ? impl.scratch->size() : 0) + (impl.readback ? impl.readback->size() : 0);
}

namespace {
// Sorts host data through `e`'s Sorter and buffers (grown as needed); marks the lease completed (the
// cache measures what the entry then holds when it comes back: HostSorters::held_bytes).
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
  // Keys and values come back together or not at all (a lost device between two downloads left the
  // keys sorted beside unsorted values).
  api::download_together(detail::context_of(device), {{&e.keys, keys, key_size}, {&e.values, values, value_size}});
  lease.completed = true;
  return stats;
}
}  // namespace

SortStats sort_host(Device& device, void* keys, uint64_t n, void* values, uint32_t value_bytes, const SortOptions& options) {
  SortOptions o = with_key(options);
  if (values && value_bytes == 0) throw Error("sort_host: values were given with value_bytes 0");
  // Checked also where there are no values (nullptr: keys only), as the contract says.
  api::check_value_bytes("sort_host: value_bytes", value_bytes);
  if (n > 0 && !keys) throw Error("sort_host: keys is a null pointer (with n = " + std::to_string(n) + ")");
  if (n > max_keys) throw Error("sort_host: " + std::to_string(n) + " keys: more than 2^31 - 1 keys are not supported");
  api::check_host_disjoint("sort_host", {{"keys", keys, n * key_bytes(o.key)}, {"values", values, n * value_bytes}});
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
