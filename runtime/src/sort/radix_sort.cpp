// SPDX-License-Identifier: MIT
#include "sort/radix_sort.hpp"

#include <algorithm>
#include <bit>

#include "sort/key_spec.hpp"
#include "sort/loop_budget.hpp"
#include "sort/radix_plain_scans.hpp"
#include "sort/subgroup_scan.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::RadixInitPush;
using shader::RadixPush;
using shader::RadixSpinePush;
static_assert(sizeof(RadixPush) == 88 && sizeof(RadixSpinePush) == 32 && sizeof(RadixInitPush) == 40,
              "push constants must match the GLSL std430 layout");

namespace {

// Invocations per workgroup. GPUs want many. CPU drivers (lavapipe) run a workgroup as SIMD lanes on
// one thread: every barrier switches between all groups of lanes, and every shared-memory access loops
// over the lanes, so one group of lanes holding many keys each is fastest there (lavapipe, 2^20 u32
// keys, CPU time: 8 x 256 keys 173 ms, 16 x 128 183 ms, 32 x 64 195 ms, 64 x 32 240 ms).
uint32_t preferred_workgroup(const DeviceInfo& info) {
  return info.type == "cpu" ? std::max(8u, info.subgroup_size) : 128;
}
constexpr uint32_t max_block = 2048;
// Workgroups of the count and the scatter, each looping over a contiguous range of tiles: enough to keep
// the device busy, few enough that the spine (RADIX counts per group) stays one workgroup's work. CPU
// drivers run a workgroup per thread: 16 keep up to 16 threads busy (LP_NUM_THREADS) while tiles are
// many per group. GPUs: a few per multiprocessor on large GPUs (unmeasured; no GPU yet).
uint32_t target_groups(const DeviceInfo& info) {
  return uint32_t(std::min<uint64_t>(info.type == "cpu" ? 16 : 1024, gpu::grid_capacity(info)));
}
// The spine: one workgroup.
uint32_t spine_workgroup(const DeviceInfo& info) { return std::bit_floor(std::min(256u, info.max_workgroup_invocations)); }
// Keys per block when ranking by counter columns (they need no shared memory per key). Larger blocks
// spread each block's RADIX x workgroup counters over more keys. Measured on lavapipe, 2^20 uniform
// u32 keys, 8 invocations, CPU time (the machine shared, so relative): blocks of 2048 keys 1.0,
// 8192 0.72, 16384 0.66, 32768 0.66. Since the tile loops have no barrier (a group's tiles cost only
// their own work), GPU time of 2^20 keys: 16384 keys 42 ms, 32768 40 ms, 65536 40 ms; and of 2^18 keys
// 12.4, 11.1, 10.6 ms on 2 threads. 32768 leaves 8 groups at 2^18 for machines with more threads.
// That holds for 4-byte items: a block's keys and values are best kept to about 128 KiB (a tile's
// sources stay in the CPU's caches while its keys scatter). Session 16, lavapipe, 2^20 uniform keys,
// median GPU ms over alternating runs, blocks of 16384 / 32768 keys: u32 pairs 26.8 / 29.1 (scatter
// 18.8 / 22.0), u64 keys 64.3 / 67.0, u32 keys 17.3 / 16.9; u64 pairs, 8192 / 16384 / 32768: 79.9 /
// 83.5 / 89.1.
uint32_t columns_block(const SortOptions& options) {
  const uint32_t item_bytes = key_bytes(options.key) + options.value_bytes;
  return std::clamp(std::bit_floor((128u << 10) / item_bytes), 2048u, 32768u);
}
// Shared memory of the column kernels: a 32-bit counter per digit and invocation, the count's
// workgroup scan (two words per invocation) and a little slack.
uint64_t columns_shared_bytes(uint32_t radix, uint32_t workgroup) { return uint64_t(radix) * workgroup * 4 + 8 * workgroup + 64; }
// The scatter packs four 16-bit counters per invocation (shaders/radix/scatter.comp).
constexpr uint32_t max_block_keys = 1u << 15;
// The count keeps one 8-bit counter per digit and invocation.
constexpr uint32_t max_count_items = 255;

uint32_t default_radix_bits(const DeviceInfo& info) {
  // Splits do the same block-local work per key at any width (one four-way split per 2 bits) and
  // columns the same per key too, so wider digits save passes: count, scan and scatter reads.
  // Measured on lavapipe, 2^20 uniform u32 keys: splits 8 bits 91 ms, 4 bits 115 ms, 2 bits 174 ms;
  // columns (CPU time) 8 bits 1.0, 4 bits 1.8. 8-bit counting needs 280 bytes of shared memory per
  // count invocation and 1 KiB of digit offsets per scatter workgroup, so small devices take 4 bits.
  return info.max_shared_memory >= 16384 ? 8 : 4;
}

}  // namespace

RadixSort::RadixSort(gpu::Context& ctx, const SortOptions& options, TileShape single_pass_shape)
    : ctx_(ctx), options_(options) {
  // The passes carry a 4-byte value or none: wider records travel through them as a 4-byte index
  // (Sorter, RecordGather), so every value term below (layout, kernels, facts) is 0 or 4 bytes.
  if (options.value_bytes != 0 && options.value_bytes != 4)
    throw Error("internal: radix sort built for " + std::to_string(options.value_bytes) +
                "-byte values; it carries 4-byte values or none (records travel as their 4-byte index)");
  const uint32_t width = key_bytes(options.key) * 8;
  begin_bit_ = options.begin_bit;
  end_bit_ = options.end_bit ? options.end_bit : width;
  if (end_bit_ > width || begin_bit_ >= end_bit_)
    throw Error("radix sort: the key bit range [" + std::to_string(begin_bit_) + ", " + std::to_string(end_bit_) +
                ") must be non-empty and within the " + std::to_string(width) + "-bit key (SortOptions::begin_bit, end_bit)");

  radix_bits_ = options.tuning.radix_bits ? options.tuning.radix_bits : default_radix_bits(ctx.info);
  if (radix_bits_ != 2 && radix_bits_ != 4 && radix_bits_ != 8)
    throw Error("radix sort: Tuning::radix_bits must be 2, 4 or 8 (got " + std::to_string(radix_bits_) + ")");
  const uint32_t radix = 1u << radix_bits_;

  // Which paths to build. The single pass wherever the ranking allows it; reduce-then-scan where asked
  // for, for the splits, and where an array may hold more keys than the single pass counts.
  const RadixScan scan = options.tuning.radix_scan;
  const RadixRanking ranking = options.tuning.radix_ranking;
  // Ballot and match rank for the single pass only.
  const bool subgroup_ranking = ranking == RadixRanking::ballot || ranking == RadixRanking::match;
  if (scan == RadixScan::single_pass && ranking == RadixRanking::splits)
    throw Error("radix sort: the four-way splits rank for reduce-then-scan only (Tuning::radix_scan single_pass "
                "takes RadixRanking columns, ballot or match)");
  if (scan == RadixScan::reduce_then_scan && subgroup_ranking)
    throw Error("radix sort: " + std::string(to_string(ranking)) + " ranking is the single pass's (Tuning::radix_scan "
                "reduce_then_scan takes RadixRanking splits or columns)");
  // A staging asked for is the single pass's too (its ballot and match rankings: RadixOnesweep checks).
  const bool staging_asked = options.tuning.radix_staging != RadixStaging::automatic;
  if (staging_asked && (scan == RadixScan::reduce_then_scan || ranking == RadixRanking::splits))
    throw Error("radix sort: Tuning::radix_staging " + std::string(to_string(options.tuning.radix_staging)) +
                " is the single pass's (ballot and match rankings); reduce-then-scan and the splits stage as they rank "
                "(use RadixStaging automatic)");
  // automatic: the single pass, except on CPU drivers that cannot bind its buffers (no push
  // descriptors, a borrowed device, VKSORT_BOUND_BUFFERS=0, phase clocks: RadixOnesweep::binds_buffers),
  // where reduce-then-scan with counter columns is the faster. On lavapipe, 2^16-2^22 keys, the single
  // pass through bindings took 0.42-0.63 of 0ac75e4's radix sort's time and reduce-then-scan 0.74-1.12
  // (bench/results/lavapipe-llvm15-2core_bound-buffers-vs-0ac75e4); through device addresses the single
  // pass took 1.33-1.52 (bench/results/lavapipe-llvm15-2core_clean-shader-cache-vs-0ac75e4): there
  // every access through an address is a loop over the lanes per component, each lane's 64-bit address
  // reloaded from a spill (docs/algorithms.md). Beyond one binding (maxStorageBufferRange) CPU drivers
  // take reduce-then-scan again: 2^25 + 16 u32 keys, single pass 2449 ms, reduce-then-scan 1742.
  // Input already in order was the exception there until session 56 (the single pass's upfront
  // histogram counted every digit before the order was known; 2^20 u32 sorted 6.9 against 4.3 ms, u64
  // 19 against 8): its blocks now defer their later reads until the order is known (onesweep_histogram.comp),
  // sorted u32 4.1 against reduce-then-scan's 5.8 ms, u64 5.2 against 9.2
  // (bench/results/lavapipe-llvm15-2core_sorted-input-vs-5092b82).
  const bool cpu = ctx.info.type == "cpu";
  const bool single_pass_here = !cpu || RadixOnesweep::binds_buffers(ctx, RadixRanking::columns);  // CPU drivers' ranking
  const bool want_single_pass = scan == RadixScan::single_pass ||
                                (scan == RadixScan::automatic && ranking != RadixRanking::splits &&
                                 (single_pass_here || subgroup_ranking || staging_asked));
  if (want_single_pass) {
    const RadixRanking r = ranking == RadixRanking::automatic ? RadixOnesweep::default_ranking(ctx.info) : ranking;
    // The profile's shape, where it applies: a cache, so a shape this device refuses is passed over.
    if (single_pass_shape.tile() && !options.tuning.workgroup_size && !options.tuning.items_per_thread &&
        (r == RadixRanking::ballot || r == RadixRanking::match)) {
      SortOptions shaped = options;
      shaped.tuning.workgroup_size = single_pass_shape.workgroup_size;
      shaped.tuning.items_per_thread = single_pass_shape.items_per_thread;
      try {
        single_pass_ = std::make_unique<RadixOnesweep>(ctx, shaped, radix_bits_, begin_bit_, end_bit_, r);
        shape_from_profile_ = true;
      } catch (const Error&) {
      }
    }
    if (!single_pass_) {
      // On CPU drivers automatic prefers the single pass where the options allow it, and takes
      // reduce-then-scan, their default until session 54, where they do not (a tuning made for it:
      // e.g. counter columns of 2-bit digits in 8 invocations, which the single pass refuses).
      const bool preferred_only = cpu && scan == RadixScan::automatic && !subgroup_ranking && !staging_asked;
      try {
        single_pass_ = std::make_unique<RadixOnesweep>(ctx, options, radix_bits_, begin_bit_, end_bit_, r);
      } catch (const Error& e) {
        const bool refused = e.code() == Status::Code::invalid_argument || e.code() == Status::Code::unsupported;
        if (!preferred_only || !refused) throw;
      }
    }
  }
  // Reduce-then-scan beside it where the device holds more keys than the single pass takes (on CPU
  // drivers, automatic: more than one binding holds).
  const bool beside_possible = scan == RadixScan::automatic && !subgroup_ranking && !staging_asked;
  uint64_t single_pass_most = single_pass_ ? single_pass_->max_keys() : 0;
  if (single_pass_ && cpu && beside_possible)
    single_pass_most = std::min<uint64_t>(single_pass_most, ctx.info.max_storage_buffer_range / key_bytes(options.key));
  const bool beyond_single_pass = single_pass_ && ctx.info.max_allocation_size / key_bytes(options.key) > single_pass_most;
  reduce_then_scan_ = !single_pass_ || (beside_possible && beyond_single_pass);
  single_pass_most_ = reduce_then_scan_ ? single_pass_most : single_pass_ ? single_pass_->max_keys() : 0;
  if (!reduce_then_scan_) return;
  // The single pass's ballot and match rankings take any shape; reduce-then-scan's blocks only powers
  // of two. Say which path wants them where automatic builds both.
  const Tuning& tune = options.tuning;
  if (single_pass_ && ((tune.workgroup_size && !std::has_single_bit(tune.workgroup_size)) ||
                       (tune.items_per_thread && !std::has_single_bit(tune.items_per_thread))))
    throw Error("radix sort: " +
                (tune.workgroup_size && tune.items_per_thread
                     ? "a workgroup of " + std::to_string(tune.workgroup_size) + " invocations x " + std::to_string(tune.items_per_thread) + " keys per invocation"
                 : tune.workgroup_size ? "a workgroup of " + std::to_string(tune.workgroup_size) + " invocations"
                                       : std::to_string(tune.items_per_thread) + " keys per invocation") +
                " suits the single pass only, but here radix sort "
                "builds reduce-then-scan beside it (for arrays of more than " + std::to_string(single_pass_most_) +
                " keys), whose blocks take powers of two; use Tuning::radix_scan single_pass, or powers of two");

  // Ranking and block shape. Counter columns keep RADIX counters per invocation and no keys in shared
  // memory; they pay when each invocation holds many keys: small workgroups (CPU drivers, whose
  // workgroup runs on one thread), where a block of columns_block keys gives every invocation at
  // least RADIX of them. Four-way splits hold two copies of the block's items in shared memory.
  uint32_t preferred = preferred_workgroup(ctx.info);
  auto columns_fit = [&](uint32_t workgroup) {
    return radix >= workgroup && columns_shared_bytes(radix, workgroup) <= ctx.info.max_shared_memory;
  };
  // Columns asked for by name on a device whose preferred workgroup's columns do not fit (GPUs: 128
  // invocations of 256 counters are 132 KiB): the largest workgroup whose columns do.
  if (options.tuning.radix_ranking == RadixRanking::columns && !options.tuning.workgroup_size)
    while (preferred > 1 && !columns_fit(std::bit_floor(std::min(preferred, ctx.info.max_workgroup_invocations)))) preferred /= 2;
  const uint32_t wg_guess = options.tuning.workgroup_size
                                ? options.tuning.workgroup_size
                                : std::bit_floor(std::max(1u, std::min(preferred, ctx.info.max_workgroup_invocations)));
  const uint64_t column_bytes_total = columns_shared_bytes(radix, wg_guess);
  auto refuse_columns = [&](uint32_t workgroup) {
    // radix < workgroup is the caller's choice; shared memory the device's limit.
    throw Error(workgroup > radix ? Status::Code::invalid_argument : Status::Code::unsupported, "radix sort: ranking by counter columns needs radix (" + std::to_string(radix) +
                ") >= workgroup size (" + std::to_string(workgroup) + ") and " +
                std::to_string(columns_shared_bytes(radix, workgroup)) + " bytes of shared memory (device: " +
                std::to_string(ctx.info.max_shared_memory) +
                "); use Tuning::radix_ranking splits, more radix bits or a smaller workgroup");
  };
  switch (options.tuning.radix_ranking) {
    case RadixRanking::automatic:
    case RadixRanking::ballot:  // never here: ballot and match build no reduce-then-scan path
    case RadixRanking::match:
      columns_ = columns_fit(wg_guess) && uint64_t(radix) * wg_guess <= columns_block(options);
      break;
    case RadixRanking::splits: columns_ = false; break;
    case RadixRanking::columns:
      if (!columns_fit(wg_guess)) refuse_columns(wg_guess);
      columns_ = true;
      break;
  }
  if (columns_) {
    shape_ = choose_tile_shape(ctx.info, options.tuning, 0, uint32_t(column_bytes_total), preferred, columns_block(options),
                               "radix sort");
  } else {
    // Two buffers of a block of items (key, then value, padded to 1, 2 or 4 words), plus per
    // invocation two uvec2 of the scan and per digit its run in the tile, then its output offset.
    const uint32_t item_words = key_bytes(options.key) / 4 + options.value_bytes / 4;
    const uint32_t item_bytes = 4 * (item_words == 3 ? 4 : item_words);
    const uint32_t wg_bound = std::max(options.tuning.workgroup_size, preferred);
    shape_ = choose_tile_shape(ctx.info, options.tuning, 2 * item_bytes, 16 * wg_bound + 4 * radix + 256, preferred,
                               max_block, "radix sort");
  }
  // Invocations move items 16 bytes at a time, and the count reads chunks of 4 keys (32-bit) or 2: at
  // least 4 keys per invocation. A small tile chosen for a small device gets fewer invocations.
  if (shape_.items_per_thread < 4 && !options.tuning.items_per_thread && !options.tuning.workgroup_size &&
      shape_.tile() >= 4)
    shape_ = {shape_.tile() / 4, 4};
  if (shape_.items_per_thread < 4)
    throw Error("radix sort: blocks need at least 4 keys per invocation (workgroup " +
                std::to_string(shape_.workgroup_size) + ", items per thread " + std::to_string(shape_.items_per_thread) + ")");
  // An invocation's key loops run up to items_per_thread times per tile, which must fit the loop budget
  // (loop_budget.hpp; a tile of 65536 keys per invocation lost keys on lavapipe, whose limiter cut its
  // loops short, and one of 2^18 skipped the sort as "sorted on entry"). Portable: refused everywhere.
  if (shape_.items_per_thread > loop_budget)
    throw Error("radix sort: " + std::to_string(shape_.items_per_thread) + " keys per invocation are more than " +
                std::to_string(loop_budget) + " (Tuning::items_per_thread; an invocation's loops over its keys must stay "
                "within what every driver runs)");
  if (columns_ && !columns_fit(shape_.workgroup_size)) refuse_columns(shape_.workgroup_size);
  if (!columns_ && shape_.tile() > max_block_keys)
    throw Error("radix sort: a block of " + std::to_string(shape_.tile()) + " keys is more than the " +
                std::to_string(max_block_keys) + " its 16-bit block counters hold");

  // Count: the same block. With columns, the scatter's shape and 32-bit counter columns (the
  // scatter's memory, checked above). Otherwise each invocation a column of 8-bit counters (so at
  // most 255 keys each) in an odd number of 16-byte words, plus the scan's two words.
  if (columns_) {
    count_shape_ = shape_;
  } else {
    const uint32_t column_bytes = (((radix / 4 + 3) / 4) | 1) * 16 + 8;
    const uint32_t fit = std::bit_floor(std::max(1u, std::max(64u, ctx.info.max_shared_memory - 64) / column_bytes));
    const uint32_t most = std::min({fit, shape_.tile() / 4, ctx.info.max_workgroup_invocations});
    const uint32_t least = std::bit_ceil((shape_.tile() + max_count_items - 1) / max_count_items);
    const uint32_t count_wg = std::max(least, std::min(shape_.workgroup_size, most));
    if (count_wg > most || uint64_t(count_wg) * column_bytes + 64 > ctx.info.max_shared_memory)
      throw Error(Status::Code::unsupported, "radix sort: counting " + std::to_string(radix_bits_) + "-bit digits in blocks of " +
                  std::to_string(shape_.tile()) + " keys needs " + std::to_string(uint64_t(least) * column_bytes + 64) +
                  " bytes of shared memory and " + std::to_string(least) + " invocations; \"" + ctx.info.name +
                  "\" offers maxComputeSharedMemorySize = " + std::to_string(ctx.info.max_shared_memory) +
                  " (use fewer radix bits or a smaller tile)");
    count_shape_ = {count_wg, shape_.tile() / count_wg};
  }

  const uint32_t kind = key_kind(options.key);
  const bool descending = options.order == Order::descending, values = options.value_bytes == 4;
  init_ = gpu::Kernel(ctx, "radix_init", 1, {}, sizeof(RadixInitPush));
  // The spine and the splits' kernels scan across the workgroup (the splits several times per block):
  // subgroup scans where the device has them. The column kernels scan once per block (the count's
  // inversions) and need none.
  // (Except where the driver needs them without: radix_plain_scans.hpp.)
  plain_scans_ = radix_plain_scans(ctx.info, options.key);
  auto variant = [&](bool plain) { return plain ? "" : scan_variant(ctx.info); };
  spine_ = gpu::Kernel(ctx, "radix_spine" + variant(plain_scans_.spine), spine_workgroup(ctx.info), {{SPEC_RADIX_BITS, radix_bits_}},
                       sizeof(RadixSpinePush));
  const std::string sg = columns_ ? "" : variant(plain_scans_.count);
  count_ = gpu::Kernel(ctx, keyed_shader(columns_ ? "radix_count_columns" : "radix_count", options.key) + sg,
                       count_shape_.workgroup_size,
                       {{SPEC_KEY_KIND, kind},
                        {SPEC_DESCENDING, descending},
                        {SPEC_ITEMS_PER_THREAD, count_shape_.items_per_thread},
                        {SPEC_RADIX_BITS, radix_bits_}},
                       sizeof(RadixPush));
  scatter_ = gpu::Kernel(ctx, keyed_shader(columns_ ? "radix_scatter_columns" : "radix_scatter", options.key) + (values ? "_v" : "") +
                             (columns_ ? "" : variant(plain_scans_.scatter)),
                         shape_.workgroup_size,
                         {{SPEC_KEY_KIND, kind},
                          {SPEC_DESCENDING, descending},
                          {SPEC_ITEMS_PER_THREAD, shape_.items_per_thread},
                          {SPEC_RADIX_BITS, radix_bits_}},
                         sizeof(RadixPush));
  finish_ = gpu::Kernel(ctx, keyed_shader("radix_finish", options.key), shape_.workgroup_size,
                        {{SPEC_KEY_KIND, kind},
                         {SPEC_DESCENDING, descending},
                         {SPEC_HAS_VALUES, values},
                         {SPEC_ITEMS_PER_THREAD, shape_.items_per_thread}},
                        sizeof(RadixPush));
  target_groups_ = target_groups(ctx.info);
  // Outside the tile loop a group loops over its share of the digits and scans once.
  const uint32_t per_group = 1024 + radix;
  most_tiles_per_group_ = std::max(1u, (loop_budget - per_group) / loops_per_tile());
}

uint32_t RadixSort::loops_per_tile() const {
  const uint32_t radix = 1u << radix_bits_, wg = shape_.workgroup_size, items = shape_.items_per_thread;
  if (columns_)  // count: its keys, write and clear its column, its rows' scan; scatter: its column, its keys
    return 2 * radix + items + radix / wg + 8;
  // count: clear a column, its keys, sum the quads it owns
  const uint32_t quads = std::max(1u, radix / 16);
  const uint32_t count = quads + count_shape_.items_per_thread + (quads + count_shape_.workgroup_size - 1) /
                                                                     count_shape_.workgroup_size * (count_shape_.workgroup_size + 4);
  // scatter: load (with encoding) at most 3 * items; per 2-bit split two walks over its items of at most
  // 2 iterations per key and a workgroup scan; run bounds and write-out items each; its digits thrice.
  const uint32_t splits = radix_bits_ / 2;
  const uint32_t scatter = 5 * items + splits * (4 * items + wg + 16) + 3 * std::max(1u, radix / wg);
  return std::max(count, scatter);
}

uint32_t RadixSort::spine_loops(uint64_t groups) const {
  const uint64_t wg = spine_workgroup(ctx_.info), words = (uint64_t(1) << radix_bits_) * groups;
  // read and scan its words, sum its inversions, check its digits, the workgroup scan's steps
  return uint32_t(std::min<uint64_t>(~0u, 2 * ((words + wg - 1) / wg) + (groups + wg - 1) / wg + 64));
}

uint32_t RadixSort::passes_for(uint64_t n) const {
  return n < 2 ? 0 : (end_bit_ - begin_bit_ + radix_bits_ - 1) / radix_bits_;
}

uint32_t RadixSort::control_words() const { return single_pass_ ? ONESWEEP_CONTROL_WORDS : RADIX_CONTROL_WORDS; }

RadixSort::Layout RadixSort::layout(uint64_t n) const {
  auto align = [](VkDeviceSize v) { return (v + 15) / 16 * 16; };
  Layout l;
  const uint64_t tiles = (n + shape_.tile() - 1) / shape_.tile();
  l.blocks = uint32_t(tiles);
  // As many groups as the device wants, or more where a group would loop past the budget; then tiles
  // shared out evenly, and no group left without one.
  const uint64_t groups = std::max<uint64_t>(std::min<uint64_t>(target_groups_, tiles),
                                             (tiles + most_tiles_per_group_ - 1) / std::max(1u, most_tiles_per_group_));
  const uint64_t per = std::max<uint64_t>(1, (tiles + groups - 1) / std::max<uint64_t>(1, groups));
  l.tiles_per_group = uint32_t(per);
  l.groups = uint32_t((tiles + per - 1) / per);
  l.count_words = uint32_t(((uint64_t(1) << radix_bits_) + 1) * l.groups);
  l.counts = align(RADIX_CONTROL_WORDS * 4);
  l.alt_keys = align(l.counts + uint64_t(l.count_words) * 4);
  l.alt_values = align(l.alt_keys + n * key_bytes(options_.key));
  l.columns = align(l.alt_values + n * options_.value_bytes);
  l.bytes = l.columns + (columns_ ? uint64_t(l.blocks) * column_words_per_block() * 4 : 0);
  return l;
}

VkDeviceSize RadixSort::scratch_bytes(uint64_t n) const {
  if (n < 2) return control_words() * 4;
  return uses_single_pass(n) ? single_pass_->scratch_bytes(n) : layout(n).bytes;
}

void RadixSort::check_size(uint64_t n) const {
  if (n < 2 || uses_single_pass(n)) return;
  if (!reduce_then_scan_)
    throw Error("radix sort: " + std::to_string(n) + " keys are more than the single pass takes on this device (" +
                std::to_string(single_pass_->max_keys()) + ": tile counts, and its grids of a workgroup per tile); use "
                "Tuning::radix_scan automatic or reduce_then_scan");
  const uint64_t tiles = (n + shape_.tile() - 1) / shape_.tile();
  const uint64_t groups = (tiles + most_tiles_per_group_ - 1) / most_tiles_per_group_;
  if (groups > gpu::grid_capacity(ctx_.info))
    throw Error("radix sort: " + std::to_string(n) + " keys in tiles of " + std::to_string(shape_.tile()) + " need " +
                std::to_string(groups) + " workgroups, more than a dispatch has on \"" + ctx_.info.name +
                "\" (maxComputeWorkGroupCount); use a larger tile");
  // The spine is one workgroup, within the loop budget; shaders index the columns with 32-bit integers.
  if (spine_loops(groups) > loop_budget || (columns_ && tiles * column_words_per_block() >= (uint64_t(1) << 32)))
    throw Error("radix sort: " + std::to_string(n) + " keys in tiles of " + std::to_string(shape_.tile()) + " need " +
                std::to_string(groups) + " workgroups, more than one workgroup's spine scan covers; use a larger "
                "tile or fewer radix bits");
}

void RadixSort::record(gpu::Recorder& rec, const SortTarget& t, uint32_t mark_budget) const {
  if (t.n < 2) return;
  if (uses_single_pass(t.n))
    single_pass_->record(rec, t, timestamp_marks(t.n) <= mark_budget);
  else
    record_reduce_then_scan(rec, t, mark_budget);
}

void RadixSort::record_reduce_then_scan(gpu::Recorder& rec, const SortTarget& t, uint32_t mark_budget) const {
  const Layout l = layout(t.n);
  const uint32_t passes = passes_for(t.n);
  const bool detailed = timestamp_marks(t.n) <= mark_budget;
  auto phase = [&](const char* name) {
    if (detailed) rec.phase(name);
  };
  auto offset_of = [&](uint32_t word) { return t.scratch_offset + VkDeviceSize(word) * 4; };

  RadixInitPush init{};
  init.control = t.scratch_address;
  init.count = t.count;
  init.n = t.n;
  init.slots = RADIX_MAX_SLOTS;
  auto set_grid = [&](uint32_t slot, uint64_t groups) {
    const gpu::Grid g = gpu::grid_for(ctx_, groups);
    init.grids[3 * slot + 0] = g.x, init.grids[3 * slot + 1] = g.y, init.grids[3 * slot + 2] = g.z;
  };
  set_grid(RADIX_SLOT_PASSES, l.groups);

  RadixPush push{};
  push.keys = t.keys;
  push.values = t.values;
  push.alt_keys = t.scratch_address + l.alt_keys;
  push.alt_values = t.values ? t.scratch_address + l.alt_values : 0;
  push.columns = columns_ ? t.scratch_address + l.columns : 0;
  push.control = t.scratch_address;
  const VkDeviceAddress counts = t.scratch_address + l.counts;
  push.counts = counts;
  push.n = t.n;
  push.blocks = l.blocks;
  push.groups = l.groups;
  push.tiles_per_group = l.tiles_per_group;
  // The ordered bits as a 64-bit mask, split into the two words of the push constants.
  const uint64_t range = (end_bit_ == 64 ? ~uint64_t(0) : (uint64_t(1) << end_bit_) - 1) & ~((uint64_t(1) << begin_bit_) - 1);
  push.range_lo = uint32_t(range);
  push.range_hi = uint32_t(range >> 32);

  RadixSpinePush spine{};
  spine.control = t.scratch_address;
  spine.counts = counts;
  spine.groups = l.groups;

  rec.phase(detailed ? "count" : "passes");
  rec.dispatch(init_, init, 1);
  rec.compute_barrier();
  for (uint32_t p = 0; p < passes; ++p) {
    push.shift = begin_bit_ + p * radix_bits_;
    push.bits = std::min(radix_bits_, end_bit_ - push.shift);
    if (p > 0) phase("count");
    rec.dispatch_indirect(count_, push, t.scratch, offset_of(RADIX_CONTROL_SLOT_ARGS + 4 * RADIX_SLOT_PASSES));
    rec.compute_barrier();
    phase("scan");
    spine.digits = 1u << push.bits;
    spine.flags = p == 0 ? RADIX_SPINE_FIRST : 0u;
    rec.dispatch(spine_, spine, 1);
    rec.compute_barrier();
    phase("scatter");
    rec.dispatch_indirect(scatter_, push, t.scratch, offset_of(RADIX_CONTROL_SCATTER_ARGS));
    rec.compute_barrier();
  }
  phase("finish");
  rec.dispatch_indirect(finish_, push, t.scratch, offset_of(RADIX_CONTROL_FINISH_ARGS));
}

std::vector<std::pair<std::string, double>> RadixSort::facts(const uint32_t* control, uint32_t n) const {
  if (!uses_single_pass(n)) return reduce_then_scan_facts(control, n);
  auto facts = single_pass_->facts(control, n);
  facts.emplace_back("shape_from_profile", shape_from_profile_ ? 1.0 : 0.0);
  return facts;
}

std::vector<std::pair<std::string, double>> RadixSort::reduce_then_scan_facts(const uint32_t* control, uint32_t n) const {
  const bool ran = n >= 2;  // below 2 keys nothing is recorded and the control words are not written
  const uint32_t p = ran ? passes_for(n) : 0;
  const Layout l = ran ? layout(n) : Layout{};
  // Recorded: init, per pass count + spine + scatter, finish; a barrier after each but the last.
  // Bytes per key by design: per pass the count's read, the scatter's read and write of key and value,
  // the counts (written by the count, read and written by the spine, read by the scatter) and with
  // column ranking the columns (written by the count, read and written by its scan, read by the
  // scatter). The value is 4 bytes or none (the constructor's check); records wider than 4 bytes
  // travel here as their 4-byte index, and the Sorter adds their staging and gather to these three
  // facts (RecordGather::add_facts).
  const uint32_t dispatches = ran ? 2 + 3 * p : 0;
  const double key = key_bytes(options_.key), value = options_.value_bytes;
  const double spine = ran ? 4.0 * 4.0 * l.count_words / n : 0.0;
  const double columns = ran && columns_ ? 4.0 * 4.0 * l.blocks * column_words_per_block() / n : 0.0;
  return {{"single_pass", 0.0},
          {"ranking_ballot", 0.0},
          {"ranking_match", 0.0},
          {"staged", 0.0},
          {"lookback_fallbacks", 0.0},
          {"dispatches", double(dispatches)},
          {"global_barriers", ran ? double(dispatches - 1) : 0.0},
          {"bytes_per_key", p * (3 * key + 2 * value + spine + columns)},
          {"groups", double(l.groups)},
          {"tiles_per_group", double(l.tiles_per_group)},
          {"workgroup", double(shape_.workgroup_size)},
          {"radix_bits", double(radix_bits_)},
          {"ranking_columns", columns_ ? 1.0 : 0.0},
          // The splits' count and scatter as built (VKSORT_RADIX_PLAIN_SCANS or a driver workaround may
          // take either off subgroups: radix_plain_scans.hpp).
          {"subgroup_scans", !columns_ && count_.name().ends_with("_sg") && scatter_.name().ends_with("_sg") ? 1.0 : 0.0},
          {"plain_scans_workaround", plain_scans_.workaround ? 1.0 : 0.0},
          {"tile", double(shape_.tile())},
          {"passes_recorded", double(passes_for(n))},
          {"passes_run", ran ? double(control[RADIX_CONTROL_PASSES_RUN]) : 0.0},
          {"passes_skipped", ran ? double(control[RADIX_CONTROL_PASSES_SKIPPED]) : 0.0},
          {"order_checks", ran ? double(control[RADIX_CONTROL_CHECKS]) : 0.0},
          {"sorted_on_entry", ran ? double(control[RADIX_CONTROL_SORTED_ON_ENTRY]) : 1.0}};
}

}  // namespace vksort::algo
