// SPDX-License-Identifier: MIT
#include "sort/sample_sort.hpp"

#include <algorithm>
#include <bit>

#include "sort/key_spec.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::SamplePush;
static_assert(sizeof(SamplePush) == 112, "push constants must match the GLSL std430 layout");

namespace {

// Invocations per workgroup: as for the radix sort (radix_sort.cpp), CPU drivers run a workgroup as
// SIMD lanes on one thread and are fastest with one group of lanes holding many keys; GPUs want many.
uint32_t preferred_workgroup(const DeviceInfo& info) {
  return info.type == "cpu" ? std::max(8u, info.subgroup_size) : 256;
}
constexpr uint32_t max_tile = 4096;
constexpr uint32_t fixed_shared = 64;

// s. More samples make smaller buckets (step 9 sorts segments of 2n/s slots, so fewer bitonic stages
// run in global memory) but a larger sample sort (step 4: s samples per sublist) and more searches
// (step 6). Measured on lavapipe, 2^20 uniform u64 keys, sublists of 2048, total time relative to the
// (s-independent) sublist sort: s = 16: 3.4, 32: 3.1, 64: 2.9-3.1, 128: 3.0, 256: 3.1, 1024 (every
// bucket fits one tile): 4.5, the sample sort then being as large as half the input. 64 sits in the
// flat middle and is Dehne & Zaboli's choice too. What matters is the share of the input that step 4
// sorts, s / TILE: so the default keeps it at 1/32 on every device (64 for lavapipe's 2048-key
// sublists, 128 where shared memory holds 4096 keys, fewer on small devices).
uint32_t default_samples(uint32_t tile) { return std::max(2u, tile / 32); }

}  // namespace

SampleSort::SampleSort(gpu::Context& ctx, const SortOptions& options) : ctx_(ctx), options_(options), scan_(ctx) {
  // Shared memory per key: the bitonic tile's encoded key and index (values never enter shared memory).
  shape_ = choose_tile_shape(ctx.info, options.tuning, key_bytes(options.key) + 4, fixed_shared,
                             preferred_workgroup(ctx.info), max_tile, "sample sort");
  if (shape_.tile() < 2)
    throw Error("sample sort: a sublist needs at least 2 keys (workgroup " + std::to_string(shape_.workgroup_size) +
                ", items per thread " + std::to_string(shape_.items_per_thread) + ")");
  samples_ = options.tuning.samples ? options.tuning.samples : default_samples(tile());
  if (!std::has_single_bit(samples_) || samples_ < 2 || samples_ > tile())
    throw Error("sample sort: Tuning::samples must be a power of two from 2 to the sublist size " +
                std::to_string(tile()) + " (got " + std::to_string(samples_) + ")");

  const std::initializer_list<gpu::SpecValue> spec = {{SPEC_KEY_KIND, key_kind(options.key)},
                                                      {SPEC_DESCENDING, options.order == Order::descending},
                                                      {SPEC_HAS_VALUES, options.value_bytes == 4},
                                                      {SPEC_ITEMS_PER_THREAD, shape_.items_per_thread}};
  const uint32_t wg = shape_.workgroup_size;
  auto kernel = [&](const char* name) {
    return gpu::Kernel(ctx, keyed_shader(name, options.key), wg, spec, sizeof(SamplePush));
  };
  sublist_sort_ = kernel("sample_sublist_sort");
  bitonic_local_ = kernel("sample_bitonic_local");
  bitonic_global_ = kernel("sample_bitonic_global");
  global_samples_ = kernel("sample_global_samples");
  locate_ = kernel("sample_locate");
  relocate_ = kernel("sample_relocate");
}

uint32_t SampleSort::control_words() const { return SAMPLE_CONTROL_WORDS; }

SampleSort::Layout SampleSort::layout(uint64_t n) const {
  auto align = [](VkDeviceSize v) { return (v + 15) / 16 * 16; };
  const uint32_t kb = key_bytes(options_.key);
  Layout l;
  l.sublists = uint32_t((n + tile() - 1) / tile());
  l.padded = uint64_t(l.sublists) * tile();
  l.sample_slots = uint32_t(std::max<uint64_t>(std::bit_ceil(uint64_t(samples_) * l.sublists), tile()));
  l.segment = uint32_t(std::bit_ceil(uint64_t(2 * l.padded / samples_)));
  l.segment_slots = uint64_t(samples_) * l.segment;
  const uint32_t count_words = samples_ * l.sublists;
  l.scan = scan_.plan(count_words);
  l.sub_keys = align(SAMPLE_CONTROL_WORDS * 4);
  l.sub_idx = align(l.sub_keys + l.padded * kb);
  l.smp_keys = align(l.sub_idx + l.padded * 4);
  l.smp_idx = align(l.smp_keys + uint64_t(l.sample_slots) * kb);
  l.spl_keys = align(l.smp_idx + uint64_t(l.sample_slots) * 4);
  l.spl_idx = align(l.spl_keys + uint64_t(samples_) * kb);
  l.counts = align(l.spl_idx + uint64_t(samples_) * 4);
  l.starts = align(l.counts + uint64_t(count_words) * 4);
  l.sums = align(l.starts + uint64_t(count_words) * 4);
  l.seg_keys = align(l.sums + l.scan.sums_bytes);
  l.seg_idx = align(l.seg_keys + l.segment_slots * kb);
  l.values = align(l.seg_idx + l.segment_slots * 4);
  l.bytes = l.values + n * options_.value_bytes;
  return l;
}

VkDeviceSize SampleSort::scratch_bytes(uint64_t n) const {
  return n < 2 ? SAMPLE_CONTROL_WORDS * 4 : layout(n).bytes;
}

void SampleSort::check_size(uint64_t n) const {
  if (n < 2) return;
  const uint64_t sublists = (n + tile() - 1) / tile();
  const uint64_t padded = sublists * tile();
  // Indices and segment slots are 32-bit in the shaders; all-ones is the fill padding's index.
  const uint64_t segment_slots = samples_ * std::bit_ceil(uint64_t(2 * padded / samples_));
  if (padded >= 0xffffffffull || segment_slots > 0xffffffffull)
    throw Error("sample sort: " + std::to_string(n) + " keys need " + std::to_string(segment_slots) +
                " bucket slots, more than its 32-bit indices address (at most about 2^31 keys)");
}

void SampleSort::record_bitonic(gpu::Recorder& rec, SamplePush push, VkDeviceAddress keys, VkDeviceAddress idx,
                                uint64_t count, uint32_t segment, bool final) const {
  const uint32_t t = tile();
  push.a_keys = keys;
  push.a_idx = idx;
  push.segment = segment;
  push.group_count = uint32_t(count / t);
  // Stages up to the tile (or the whole segment) in shared memory.
  const uint32_t buckets = final ? SAMPLE_BUCKETS : 0u;
  push.flags = SAMPLE_FULL | buckets | (final && segment <= t ? SAMPLE_FINAL : 0u);
  rec.dispatch(bitonic_local_, push, push.group_count);
  rec.compute_barrier();
  for (uint64_t size = 2ull * t; size <= segment; size *= 2) {
    push.size = uint32_t(size);
    // The mirror step alone, then the half-cleaners at distances >= the tile up to three per pass.
    // A pass of k steps gives each workgroup TILE / 2^k units of 2^k elements, so k <= log2(TILE):
    // tiles of 2 and 4 keys take one and two steps a pass (more would leave every group no units).
    const uint32_t max_steps = std::min<uint32_t>(3, std::countr_zero(t));
    uint64_t stride = size / 2;
    for (uint32_t steps = 1; stride >= t; stride >>= steps) {
      steps = stride == size / 2 ? 1 : std::min<uint32_t>(max_steps, std::countr_zero(stride / t) + 1);
      push.stride = uint32_t(stride);
      push.flags = buckets | (steps << SAMPLE_STEPS_SHIFT);
      rec.dispatch(bitonic_global_, push, push.group_count);
      rec.compute_barrier();
    }
    push.flags = buckets | (final && size == segment ? SAMPLE_FINAL : 0u);
    rec.dispatch(bitonic_local_, push, push.group_count);
    rec.compute_barrier();
  }
}

void SampleSort::record(gpu::Recorder& rec, const SortTarget& t) const {
  if (t.n < 2) return;
  const Layout l = layout(t.n);
  const VkDeviceAddress at = t.scratch_address;

  SamplePush push{};
  push.keys = t.keys;
  push.values = t.values;
  push.saved_values = t.values ? at + l.values : 0;
  push.counts = at + l.counts;
  push.starts = at + l.starts;
  push.control = at;
  push.n = t.n;
  push.sublists = l.sublists;
  push.samples = samples_;
  push.segment = l.segment;

  // Padding: all-ones pairs sort after every element (interface.h).
  rec.fill(t.scratch, t.scratch_offset, SAMPLE_CONTROL_WORDS * 4, 0);
  rec.fill(t.scratch, t.scratch_offset + l.smp_keys, l.spl_keys - l.smp_keys, 0xffffffffu);
  rec.fill(t.scratch, t.scratch_offset + l.seg_keys, l.values - l.seg_keys, 0xffffffffu);

  rec.phase("sublist_sort");  // steps 1-3
  push.a_keys = at + l.sub_keys, push.a_idx = at + l.sub_idx;
  push.b_keys = at + l.smp_keys, push.b_idx = at + l.smp_idx;
  push.group_count = l.sublists;
  rec.dispatch(sublist_sort_, push, l.sublists);
  rec.compute_barrier();

  rec.phase("sample_sort");  // step 4
  record_bitonic(rec, push, at + l.smp_keys, at + l.smp_idx, l.sample_slots, l.sample_slots, false);

  rec.phase("global_samples");  // step 5
  push.a_keys = at + l.smp_keys, push.a_idx = at + l.smp_idx;
  push.b_keys = at + l.spl_keys, push.b_idx = at + l.spl_idx;
  push.group_count = 1;
  rec.dispatch(global_samples_, push, 1);
  rec.compute_barrier();

  rec.phase("locate");  // step 6
  push.a_keys = at + l.sub_keys, push.a_idx = at + l.sub_idx;
  push.group_count = l.sublists;
  rec.dispatch(locate_, push, l.sublists);
  rec.compute_barrier();

  rec.phase("prefix_sum");  // step 7
  scan_.record(rec, l.scan, at + l.counts, at + l.sums);

  rec.phase("relocate");  // step 8
  push.b_keys = at + l.seg_keys, push.b_idx = at + l.seg_idx;
  rec.dispatch(relocate_, push, l.sublists);
  rec.compute_barrier();

  rec.phase("bucket_sort");  // step 9
  record_bitonic(rec, push, at + l.seg_keys, at + l.seg_idx, l.segment_slots, l.segment, true);
}

std::vector<std::pair<std::string, double>> SampleSort::facts(const uint32_t* control, uint32_t n) const {
  const bool ran = n >= 2;  // below 2 keys nothing is recorded and the control words are not written
  const Layout l = layout(std::max(n, 2u));
  return {{"tile", double(tile())},
          {"samples", double(samples_)},
          {"sublists", ran ? double(l.sublists) : 0.0},
          {"bucket_bound", ran ? double(2 * l.padded / samples_) : 0.0},
          {"bucket_segment", ran ? double(l.segment) : 0.0},
          {"largest_bucket", ran ? double(control[SAMPLE_CONTROL_LARGEST]) : double(n)},
          {"bucket_overflow", ran ? double(control[SAMPLE_CONTROL_OVERFLOW]) : 0.0}};
}

}  // namespace vksort::algo
