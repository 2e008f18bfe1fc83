// SPDX-License-Identifier: MIT
#include "sort/radix_onesweep.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <string>

#include "sort/env_knobs.hpp"
#include "sort/key_spec.hpp"
#include "sort/loop_budget.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::OnesweepPush;
using shader::RadixPush;
static_assert(sizeof(OnesweepPush) == 128, "push constants must match the GLSL std430 layout (124 bytes, padded)");

namespace {

// Shared memory of the look-back (onesweep_lookback.glsl): four words per digit and six more.
uint64_t lookback_shared_bytes(uint32_t radix) { return uint64_t(radix) * 4 * 4 + 6 * 4; }
// Predecessors the look-back reads per round and digit (SPEC_ONESWEEP_WINDOW), kept in registers: on
// GPUs up to 8, fewer where an invocation owns several digits; 1 on CPU drivers, where each read is a
// loop over the lanes and workgroups rarely wait on each other.
uint32_t lookback_window(const DeviceInfo& info, uint32_t radix, uint32_t workgroup) {
  if (info.type == "cpu") return 1;
  const uint32_t digits = (radix + workgroup - 1) / workgroup;
  return std::clamp(16 / digits, 1u, 8u);
}
// Column ranking: a 32-bit counter per digit and invocation.
uint64_t columns_shared_bytes(uint32_t radix, uint32_t workgroup) {
  return uint64_t(radix) * workgroup * 4 + lookback_shared_bytes(radix);
}
// VKSORT_BALLOT_SUBGROUP_LANES, for tests: the live invocations per subgroup the ballot ranking counts
// on where its pipeline does not require full subgroups (1 to 128), instead of what vksort knows of the
// driver; counting on more than a driver runs makes the kernel refuse (onesweep_ballot.comp). 0: unset.
uint32_t forced_subgroup_lanes() {
  return env_count("VKSORT_BALLOT_SUBGROUP_LANES", 1, 128, "a count of invocations, 1 to 128").value_or(0);
}
// Whether the ballot kernel of `workgroup` invocations requires full subgroups: wherever it can.
bool ballot_full_subgroups(const DeviceInfo& info, uint32_t workgroup) { return gpu::can_require_full_subgroups(info, workgroup); }
// The live invocations per subgroup the ballot kernel's rows are sized for: all of them where the
// pipeline requires full subgroups (`full`), else the fewest the driver is known to run
// (gpu::partial_subgroup_lanes); a workgroup that has more subgroups than that makes refuses.
uint32_t ballot_subgroup_lanes(const DeviceInfo& info, bool full) {
  if (full) return std::max(1u, info.subgroup_size);
  const uint32_t forced = forced_subgroup_lanes();
  return forced ? forced : gpu::partial_subgroup_lanes(info);
}
// Ballot ranking: a histogram row per subgroup, for subgroups of at least `lanes` live invocations:
// on NVIDIA (48 KiB, subgroups of 32) without full subgroups 4 KiB more for 256 invocations than with,
// 6 KiB for 384.
uint32_t ballot_subgroups(uint32_t workgroup, uint32_t lanes) { return std::max(1u, (workgroup + lanes - 1) / lanes); }
// The histogram rows and the staged tile (`staged_bytes`, 0 if not staged): side by side where staged
// early, else in shared memory (the larger of the two; onesweep_ballot.comp). Then per subgroup its
// live count and its digits' keys, digit starts and the look-back's arrays.
// `row_bits`: the rows' counters, 16 (two to a word: the least memory) or 32.
uint64_t ballot_shared_bytes(uint32_t radix, uint32_t workgroup, uint32_t lanes, uint64_t staged_bytes = 0,
                             bool early = false, uint32_t row_bits = 16) {
  const uint32_t subgroups = ballot_subgroups(workgroup, lanes);
  const uint64_t hist = uint64_t(subgroups) * radix * (row_bits / 8);
  return (early ? hist + staged_bytes : std::max(hist, staged_bytes)) + subgroups * 2 * 4 + radix * 4 +
         lookback_shared_bytes(radix);
}
// Keys per tile with column ranking (CPU drivers): as reduce-then-scan's column blocks, measured there
// (radix_sort.cpp): larger tiles spread each tile's RADIX x workgroup counters over more keys.
constexpr uint32_t columns_tile = 16384;
// Keys per invocation with ballot ranking: kept in registers with their ranks. Onesweep's own choice
// is 15 32-bit keys per thread (CUB: 384 x 21 on sm80 and later). GPUs take 16 for every key kind;
// where the staged tile does not fit (64-bit keys with values on 48 KiB) the constructor halves it.
// More keys per invocation pay only while two workgroups still share an SM: the registers decide.
// Session 33's kernel (78 registers at 384 x 20) ran u32 keys at 384 x 20 in 2.097 ms against 2.271 at
// x 16 (an H200, 2^26 keys, bench/results/nvidia-h200_2026-11-29-session33), and 20 became the default
// for 32-bit keys alone; the kernel since (sessions 34-38, tuned on AMD's compiler: pairs and u64 keys
// 7-11% faster) takes 87 registers there, one workgroup per SM, and 384 x 20 fell to 2.710 ms against
// 384 x 16's 2.099 (75 registers) in one sweep (bench/results/nvidia-h200_2026-12-04-session53; 2^28 u32
// keys 1.31x slower than session 33's build in the same run). Sixteen leaves the registers' headroom
// that twenty lacked; pairs 256 x 16 3.010 ms against x 12 3.544, u64 keys 256 x 16 5.683 against x 12
// 6.621 and x 8 7.044 (the same run). CPU drivers run one subgroup per workgroup best, with as many keys
// per tile as the column ranking (lavapipe, 2^20 u32 keys, passes only: 8 invocations x 2048 keys
// 53 ms, x 1024 57 ms, x 256 92 ms; 64 x 16 166 ms).
uint32_t ballot_items(const DeviceInfo& info, uint32_t workgroup) {
  if (info.type == "cpu") return std::max(1u, columns_tile / workgroup);
  return 16;
}
// VKSORT_BALLOT_COUNT_AGGREGATE, an experiment for GPU runs (onesweep_ballot.comp, SPEC_BALLOT_COUNT_AGGREGATE):
// "1" counts the lanes of a round that share the first live lane's digit with one atomic; "0" or unset
// counts each lane by its own.
bool ballot_count_aggregate() { return env_switch("VKSORT_BALLOT_COUNT_AGGREGATE"); }
// VKSORT_BALLOT_ROUND_BARRIER, an experiment for GPU runs (onesweep_ballot.comp, SPEC_BALLOT_ROUND_BARRIER):
// "1" orders the ranking's rounds by one subgroup control barrier on shared memory; "0" or unset by a
// shared-memory fence and subgroupBarrier().
bool ballot_round_barrier() { return env_switch("VKSORT_BALLOT_ROUND_BARRIER"); }
// VKSORT_BALLOT_BUILTIN_LANES, an experiment for GPU runs (onesweep_ballot.comp, SPEC_BALLOT_BUILTIN_LANES):
// "1" takes full subgroups' live invocations from the subgroup builtins; "0" or unset counts them by ballot.
// Where the pipeline does not require full subgroups the kernel counts by ballot either way.
bool ballot_builtin_lanes() { return env_switch("VKSORT_BALLOT_BUILTIN_LANES"); }
// VKSORT_BALLOT_LEADER_ATOMIC, an experiment for GPU runs (onesweep_ballot.comp, SPEC_BALLOT_LEADER_ATOMIC):
// "1" moves the ranking's places on 32-bit rows by a shared atomic add; "0" or unset by a load and a store.
bool ballot_leader_atomic() { return env_switch("VKSORT_BALLOT_LEADER_ATOMIC"); }
// VKSORT_LOOKBACK_FIRST_WINDOW, an experiment for GPU runs (onesweep_lookback.glsl, SPEC_ONESWEEP_FIRST_WINDOW):
// "1" makes the per-digit look-back's first round read a whole window; "0" or unset the nearest
// predecessor alone. The lockstep walk (CPU drivers' narrow workgroups) reads one first either way.
bool lookback_first_window() { return env_switch("VKSORT_LOOKBACK_FIRST_WINDOW"); }
// VKSORT_BOUND_BUFFERS, for tests and comparisons: "0" keeps every ranking's histogram and passes on
// device addresses; "1" binds their buffers wherever the device and the buffers allow, the ballot
// ranking's too (an experiment for GPU runs: gpu-check's bound-buffers); unset binds the columns
// ranking's alone (onesweep_bound.glsl).
std::optional<uint32_t> bound_buffers_env() {
  return env_count("VKSORT_BOUND_BUFFERS", 0, 1, "0 (device addresses) or 1 (bindings where possible)");
}
// VKSORT_BALLOT_ROW_BITS, for tests and GPU sweeps: "16" or "32" forces the width of the ballot ranking's
// histogram counters (onesweep_ballot.comp), which the runtime otherwise picks by fit; unset or "" picks.
uint32_t forced_ballot_row_bits() { return env_choice("VKSORT_BALLOT_ROW_BITS", {16, 32}); }
// VKSORT_HISTOGRAM_REPLICAS, for tests and GPU runs: "1", "2", "4" or "8" forces the copies of each
// counter the histogram kernel adds into by atomics (onesweep_histogram.comp), which the runtime otherwise
// picks by fit; unset or "" picks.
uint32_t forced_histogram_replicas() { return env_choice("VKSORT_HISTOGRAM_REPLICAS", {1, 2, 4, 8}); }
// Ballot ranking's histogram rows count in 16 bits where memory is short: a tile holds at most 2^15 keys.
constexpr uint32_t ballot_most_tile = 1u << 15;

// `most_code`: what exceeding `most` is (unsupported where `most` is the device's limit).
void check_power_of_two(uint32_t v, const char* what, uint32_t most, Status::Code most_code = Status::Code::invalid_argument) {
  if (!std::has_single_bit(v) || v > most)
    throw Error(std::has_single_bit(v) ? most_code : Status::Code::invalid_argument, std::string("radix sort (single pass): ") + what + " " + std::to_string(v) +
                " must be a power of two no larger than " + std::to_string(most));
}

}  // namespace

// The ballot and match rankings' workgroup where Tuning leaves it to the device. CPU drivers: one
// subgroup (lavapipe, above). GPUs: 384 invocations for 32-bit keys alone where a tile of 384 x
// ballot_items stages early in shared memory, else 256 (halved until the histogram rows fit). Measured
// on an H200 (2^26 u32 keys, one sweep, bench/results/nvidia-h200_2026-11-27-session20): 384 x 16 keys
// 2.38 ms, 256 x 16 2.93, 256 x 21 2.60, 512 x 16 3.15, 384 x 21 6.93. Larger tiles pay each tile's
// fixed latency (take the tile, publish, look back) less often; 384 is CUB Onesweep's workgroup too.
// Pairs and 64-bit keys stay at 256, the fastest measured (an H200 at 2^26, bench/results/
// nvidia-h200_2026-11-29-session33: pairs 256 x 16 3.22 ms, 384 x 8 3.76; u64 256 x 16 6.33, 288 x 16 6.46).
uint32_t RadixOnesweep::default_ballot_workgroup(const DeviceInfo& info, Key key, bool values, uint32_t radix_bits) {
  const uint32_t sg = std::max(1u, info.subgroup_size);
  if (info.type == "cpu") return sg;
  const uint32_t radix = 1u << radix_bits;
  const auto shared = [&](uint32_t wg, uint64_t staged) {
    return ballot_shared_bytes(radix, wg, ballot_subgroup_lanes(info, ballot_full_subgroups(info, wg)), staged, staged != 0);
  };
  constexpr uint32_t wide = 384;
  const uint64_t wide_tile_bytes = uint64_t(wide) * default_ballot_items(info, wide) * key_bytes(key);
  if (key_bytes(key) == 4 && !values && wide % sg == 0 && wide <= info.max_workgroup_invocations &&
      shared(wide, wide_tile_bytes) <= info.max_shared_memory)
    return wide;
  uint32_t wg = std::bit_floor(std::min(256u, info.max_workgroup_invocations));
  while (wg > 1 && shared(wg, 0) > info.max_shared_memory) wg /= 2;
  return wg;
}

uint32_t RadixOnesweep::default_ballot_items(const DeviceInfo& info, uint32_t workgroup) {
  return ballot_items(info, workgroup);
}

// CPU drivers: columns, measured faster than ballot ranking on lavapipe (2^20 keys, passes of
// 5 sorts, two alternating rounds, columns/ballot: u32 keys 0.77 and 0.60, u32 pairs 0.94 and 0.52,
// u64 keys 0.97 and 0.67). There a ballot costs a loop over the lanes, and every key ranks in
// RADIX_BITS of them; a column's counter is one shared load and store.
RadixRanking RadixOnesweep::default_ranking(const DeviceInfo& info) {
  if (info.type == "cpu") return RadixRanking::columns;
  return info.subgroup_ballot && info.subgroup_shuffle && info.subgroup_size > 0 ? RadixRanking::ballot : RadixRanking::columns;
}

RadixOnesweep::RadixOnesweep(gpu::Context& ctx, const SortOptions& options, uint32_t radix_bits, uint32_t begin_bit,
                             uint32_t end_bit, RadixRanking ranking)
    : ctx_(ctx), options_(options), radix_bits_(radix_bits), begin_bit_(begin_bit), end_bit_(end_bit) {
  const DeviceInfo& info = ctx.info;
  const uint32_t radix = 1u << radix_bits;
  const Tuning& tune = options.tuning;
  columns_ = ranking == RadixRanking::columns;
  match_ = ranking == RadixRanking::match;
  if (columns_ && tune.radix_staging != RadixStaging::automatic)
    throw Error("radix sort (single pass): Tuning::radix_staging " + std::string(to_string(tune.radix_staging)) +
                " is for the ballot and match rankings; counter columns write each key directly (use RadixStaging "
                "automatic, or RadixRanking ballot or match)");
  values_ = options.value_bytes == 4;
  if (passes() > ONESWEEP_MAX_PASSES)
    throw Error("radix sort (single pass): " + std::to_string(passes()) + " passes, more than " +
                std::to_string(ONESWEEP_MAX_PASSES));
  // Counter columns split the digits evenly among invocations: powers of two. The ballot and match
  // rankings take any shape (CUB's Onesweep tiles are 384 x 21 keys on sm80 and later).
  if (columns_) {
    if (tune.workgroup_size) check_power_of_two(tune.workgroup_size, "workgroup size", info.max_workgroup_invocations, Status::Code::unsupported);
    // An invocation's key loops run up to items_per_thread times: within the loop budget (a loop of
    // 65536 iterations was cut short by lavapipe's limiter: keys lost).
    if (tune.items_per_thread) check_power_of_two(tune.items_per_thread, "items per thread", loop_budget);
  } else {
    if (tune.workgroup_size > info.max_workgroup_invocations)
      throw Error(Status::Code::unsupported, "radix sort (single pass): workgroup size " + std::to_string(tune.workgroup_size) +
                  " is more than maxComputeWorkGroupInvocations (" + std::to_string(info.max_workgroup_invocations) + ")");
    if (tune.items_per_thread > ballot_most_tile)
      throw Error("radix sort (single pass): " + std::to_string(tune.items_per_thread) + " items per thread are more than a tile's " +
                  std::to_string(ballot_most_tile) + " keys");
  }
  const std::string device = "\"" + info.name + "\" offers maxComputeSharedMemorySize = " + std::to_string(info.max_shared_memory);

  if (columns_) {
    // One column of RADIX counters per invocation, each owning whole digit rows: RADIX >= workgroup.
    uint32_t wg = tune.workgroup_size;
    if (!wg) {
      wg = std::bit_floor(std::min({radix, info.max_workgroup_invocations,
                                    info.type == "cpu" ? std::max(8u, info.subgroup_size) : radix}));
      while (wg > 1 && columns_shared_bytes(radix, wg) > info.max_shared_memory) wg /= 2;
    }
    if (wg > radix || columns_shared_bytes(radix, wg) > info.max_shared_memory)
      throw Error(wg > radix ? Status::Code::invalid_argument : Status::Code::unsupported, "radix sort (single pass): ranking by counter columns needs radix (" + std::to_string(radix) +
                  ") >= workgroup size (" + std::to_string(wg) + ") and " +
                  std::to_string(columns_shared_bytes(radix, wg)) + " bytes of shared memory; " + device);
    shape_ = {wg, tune.items_per_thread ? tune.items_per_thread : std::max(1u, columns_tile / wg)};
  } else {
    if (!info.subgroup_ballot || !info.subgroup_shuffle || info.subgroup_size == 0)
      throw Error(Status::Code::unsupported, "radix sort (single pass): ranking by subgroup ballots needs subgroup ballot and shuffle operations "
                  "in compute, which \"" + info.name + "\" does not offer; use RadixRanking::columns");
    if (match_ && !info.subgroup_partitioned)
      throw Error(Status::Code::unsupported, "radix sort (single pass): ranking by subgroup partitions (RadixRanking::match) needs "
                  "VK_NV_shader_subgroup_partitioned in compute, which \"" + info.name + "\" does not offer" +
                  (ctx.owns_device ? "" : " (or, on a borrowed device, vksort cannot tell whether it was enabled)") +
                  "; use RadixRanking::ballot");
    count_aggregate_ = ballot_count_aggregate();
    round_barrier_ = ballot_round_barrier();
    builtin_lanes_ = ballot_builtin_lanes();
    leader_atomic_ = ballot_leader_atomic();
    const uint32_t sg = info.subgroup_size;
    uint32_t wg = tune.workgroup_size;
    // Workgroups of several subgroups fill them all. A partial last subgroup among full ones sorted
    // wrong on lavapipe, whose gl_NumSubgroups leaves it out; counted in by the kernel, subgroups of
    // 4, 8 and 16 sorted right but "32" (LP_NATIVE_VECTOR_WIDTH=1024: 16 lanes) did not: untestable, so
    // refused. One subgroup alone may be partial (the tiny shapes' tests run that).
    if (wg > sg && wg % sg != 0)
      throw Error(Status::Code::unsupported, "radix sort (single pass): a workgroup of " + std::to_string(wg) + " invocations is no multiple of \"" +
                  info.name + "\"'s subgroup size " + std::to_string(sg) + " (ballot and match rankings take whole subgroups)");
    if (!wg) wg = default_ballot_workgroup(info, options.key, values_, radix_bits);
    full_subgroups_ = ballot_full_subgroups(info, wg);
    const uint32_t lanes = ballot_subgroup_lanes(info, full_subgroups_);
    if (ballot_shared_bytes(radix, wg, lanes) > info.max_shared_memory)
      throw Error(Status::Code::unsupported, "radix sort (single pass): ranking by subgroup ballots with " + std::to_string(wg) +
                  " invocations needs " + std::to_string(ballot_shared_bytes(radix, wg, lanes)) +
                  " bytes of shared memory; " + device);
    subgroups_ = ballot_subgroups(wg, lanes);
    // Stage the tile in shared memory for coalesced writes where it fits (RadixStaging); GPUs, and any
    // device asked to stage, take smaller tiles (down to 4 keys per invocation) to make it fit: late
    // (sharing the histograms' memory) unless early is asked for. Automatic then stages early where
    // that fits too.
    const RadixStaging staging = tune.radix_staging;
    const uint64_t item_bytes = key_bytes(options.key) + (values_ ? 4 : 0);
    auto staged_bytes = [&](uint32_t items, bool early) {
      return ballot_shared_bytes(radix, wg, lanes, uint64_t(wg) * items * item_bytes, early);
    };
    auto fits = [&](uint32_t items, bool early) { return staged_bytes(items, early) <= info.max_shared_memory; };
    uint32_t items = tune.items_per_thread ? tune.items_per_thread : ballot_items(info, wg);
    const bool asked = staging == RadixStaging::late || staging == RadixStaging::early;
    if (!tune.items_per_thread && (info.type != "cpu" || asked) && staging != RadixStaging::direct)
      while (items > 4 && !fits(items, staging == RadixStaging::early)) items /= 2;
    if (asked) {
      const bool early = staging == RadixStaging::early;
      if (!fits(items, early))
        throw Error(Status::Code::unsupported, "radix sort (single pass): staging " + std::string(to_string(staging)) + " a tile of " +
                    std::to_string(uint64_t(wg) * items) + " keys needs " + std::to_string(staged_bytes(items, early)) +
                    " bytes of shared memory; " + device + " (use fewer Tuning::items_per_thread, or RadixStaging automatic)");
      staged_ = true, early_ = early;
    } else if (staging == RadixStaging::automatic) {
      early_ = fits(items, true);
      staged_ = early_ || fits(items, false);
    }
    shape_ = {wg, items};
    // The shape and staging are chosen on 16-bit rows, the least memory; then 32-bit rows (a plain
    // load and store per ranking round instead of an atomic, onesweep_ballot.comp) where they fit too.
    const uint64_t tile_bytes = staged_ ? uint64_t(wg) * items * item_bytes : 0;
    auto fits_rows = [&](uint32_t bits) {
      return ballot_shared_bytes(radix, wg, lanes, tile_bytes, early_, bits) <= info.max_shared_memory;
    };
    const uint32_t forced_rows = forced_ballot_row_bits();
    if (forced_rows && !fits_rows(forced_rows))
      throw Error(Status::Code::unsupported, "radix sort (single pass): VKSORT_BALLOT_ROW_BITS=" + std::to_string(forced_rows) +
                  " needs " + std::to_string(ballot_shared_bytes(radix, wg, lanes, tile_bytes, early_, forced_rows)) +
                  " bytes of shared memory for this shape and staging; " + device);
    row_bits_ = forced_rows ? forced_rows : fits_rows(32) ? 32 : 16;
    // The histogram rows count in 16 bits where narrow (onesweep_ballot.comp): bounded for both widths.
    if (shape_.tile() > ballot_most_tile)
      throw Error("radix sort (single pass): ranking by subgroup ballots takes tiles of at most " + std::to_string(ballot_most_tile) +
                  " keys; " + std::to_string(wg) + " invocations x " + std::to_string(items) + " keys per invocation are " +
                  std::to_string(shape_.tile()) + " (use fewer Tuning::items_per_thread)");
  }
  if (uint64_t(shape_.tile()) > (uint64_t(1) << 24))
    throw Error("radix sort (single pass): a tile of " + std::to_string(shape_.tile()) + " keys is too large");

  const uint32_t kind = key_kind(options.key);
  const bool descending = options.order == Order::descending;
  init_ = gpu::Kernel(ctx, "radix_onesweep_init", 64, {{SPEC_RADIX_BITS, radix_bits_}}, sizeof(OnesweepPush));
  plan_ = gpu::Kernel(ctx, "radix_onesweep_plan", 64, {{SPEC_RADIX_BITS, radix_bits_}, {SPEC_ONESWEEP_TILE, shape_.tile()}},
                      sizeof(OnesweepPush));
  const uint32_t wg = shape_.workgroup_size, items = shape_.items_per_thread;
  // The histogram's blocks. Each adds passes * RADIX counts to the global histograms with atomics, so
  // GPUs take blocks of many keys (128 per invocation: 2^28 keys make 8192 blocks, not 65536 of a
  // tile each, on those few contended words). CPU drivers take at most a tile, and fewer keys per
  // invocation where its loops would run past lavapipe's 65535 iterations (onesweep_histogram.comp).
  const uint32_t within_budget = std::bit_floor(std::max(1u, loop_budget / (passes() + 1)));
  histogram_items_ = info.type == "cpu" ? std::min(items, within_budget) : std::min(std::max(items, 128u), within_budget);
  // CPU drivers count the histogram in per-invocation columns (onesweep_histogram.comp), where the
  // columns fit in shared memory beside the histograms of the key's most passes; else by atomics.
  const uint64_t most_passes = (key_bytes(options.key) * 8 + radix_bits_ - 1) / radix_bits_;
  // The words beside the columns: the histograms and two counters (s_inversions, s_padding).
  const uint64_t beside_columns = most_passes * radix + 2;
  const bool histogram_columns = info.type == "cpu" && (uint64_t(radix) * wg + beside_columns) * 4 <= info.max_shared_memory;
  // Columns of two passes, where they fit: one read of the keys counts both (lavapipe's histogram time
  // at 2^20: see bench/results/lavapipe-llvm15-2core_histogram-column-passes).
  histogram_column_passes_ = !histogram_columns ? 0 : (2 * uint64_t(radix) * wg + beside_columns) * 4 <= info.max_shared_memory ? 2 : 1;
  // Where the histogram adds by atomics (GPUs), copies of each counter spread a subgroup's lanes that
  // share a digit over several words (onesweep_histogram.comp): as many as fit in half the
  // workgroup's shared memory, up to 4 (8-bit digits: 4 for 32-bit keys, 16 KiB; 2 for 64-bit keys
  // on 48 KiB), so the histograms do not crowd out its workgroups. Columns (CPU drivers) take none.
  const uint32_t forced_replicas = forced_histogram_replicas();
  const uint64_t replica_bytes = most_passes * radix * 4;
  if (histogram_columns) {
    histogram_replicas_ = 1;
  } else if (forced_replicas) {
    if (forced_replicas * replica_bytes + 64 > info.max_shared_memory)
      throw Error(Status::Code::unsupported, "radix sort (single pass): VKSORT_HISTOGRAM_REPLICAS=" + std::to_string(forced_replicas) +
                                                 " needs " + std::to_string(forced_replicas * replica_bytes + 64) + " bytes of shared memory; \"" +
                                                 info.name + "\" offers " + std::to_string(info.max_shared_memory));
    histogram_replicas_ = forced_replicas;
  } else {
    histogram_replicas_ = 4;
    while (histogram_replicas_ > 1 && histogram_replicas_ * replica_bytes > info.max_shared_memory / 2) histogram_replicas_ /= 2;
  }
  const std::initializer_list<gpu::SpecValue> histogram_spec = {
      {SPEC_KEY_KIND, kind}, {SPEC_DESCENDING, descending},
      {SPEC_RADIX_BITS, radix_bits_}, {SPEC_CONSECUTIVE, histogram_columns},
      {SPEC_HISTOGRAM_REPLICAS, histogram_replicas_}, {SPEC_HISTOGRAM_BEGIN_BIT, begin_bit_},
      {SPEC_HISTOGRAM_COLUMN_PASSES, std::max(histogram_column_passes_, 1u)},
      {SPEC_HISTOGRAM_END_BIT, end_bit_}};
  histogram_ = gpu::Kernel(ctx, keyed_shader("radix_onesweep_histogram", options.key) + (ctx.phase_clocks ? "_clk" : ""), wg,
                           histogram_spec, sizeof(OnesweepPush));
  const char* ranking_shader = columns_ ? "radix_onesweep_columns" : match_ ? "radix_onesweep_match" : "radix_onesweep_ballot";
  const std::string pass = keyed_shader(ranking_shader, options.key) + (values_ ? "_v" : "") + (ctx.phase_clocks ? "_clk" : "");
  // (tune.lookback_window: at most Tuning::max_lookback_window, checked with the options.)
  window_ = tune.lookback_window ? tune.lookback_window : lookback_window(info, radix, wg);
  per_digit_ = radix <= wg;
  first_window_ = lookback_first_window();
  // The same pass through storage-buffer bindings (onesweep_bound.glsl), where binds_buffers says so:
  // CPU drivers reach buffers through bindings several times faster than through addresses; on GPUs
  // the ballot ranking's are an experiment. The instrumented kernels (phase clocks) keep the addresses.
  const RadixRanking built = columns_ ? RadixRanking::columns : match_ ? RadixRanking::match : RadixRanking::ballot;
  const bool bind = binds_buffers(ctx, built);
  const std::string bound = keyed_shader(ranking_shader, options.key) + (values_ ? "_v" : "") + "_b";
  if (bind)
    bound_histogram_ = gpu::Kernel(ctx, keyed_shader("radix_onesweep_histogram", options.key) + "_b", wg, histogram_spec,
                                   sizeof(OnesweepPush), false, {2, 2});
  if (columns_) {
    const std::initializer_list<gpu::SpecValue> pass_spec = {
        {SPEC_KEY_KIND, kind}, {SPEC_DESCENDING, descending}, {SPEC_ITEMS_PER_THREAD, items},
        {SPEC_RADIX_BITS, radix_bits_}, {SPEC_ONESWEEP_WINDOW, window_}, {SPEC_ONESWEEP_FIRST_WINDOW, first_window_}};
    pass_ = gpu::Kernel(ctx, pass, wg, pass_spec, sizeof(OnesweepPush));
    if (bind) bound_pass_ = gpu::Kernel(ctx, bound, wg, pass_spec, sizeof(OnesweepPush), false, {2, 2});
  } else {
    const std::initializer_list<gpu::SpecValue> pass_spec = {
        {SPEC_KEY_KIND, kind}, {SPEC_DESCENDING, descending}, {SPEC_ITEMS_PER_THREAD, items},
        {SPEC_RADIX_BITS, radix_bits_}, {SPEC_ONESWEEP_SUBGROUPS, subgroups_},
        {SPEC_ONESWEEP_STAGE_KEYS, staged_ ? shape_.tile() : 1u}, {SPEC_ONESWEEP_STAGE_EARLY, early_},
        {SPEC_ONESWEEP_WINDOW, window_}, {SPEC_BALLOT_ROW_BITS, row_bits_},
        {SPEC_BALLOT_WORDS, std::clamp((info.subgroup_size + 31) / 32, 1u, 4u)},
        {SPEC_ONESWEEP_FULL_SUBGROUPS, full_subgroups_}, {SPEC_BALLOT_COUNT_AGGREGATE, count_aggregate_},
        {SPEC_BALLOT_ROUND_BARRIER, round_barrier_}, {SPEC_BALLOT_BUILTIN_LANES, builtin_lanes_},
        {SPEC_BALLOT_LEADER_ATOMIC, leader_atomic_}, {SPEC_ONESWEEP_FIRST_WINDOW, first_window_}};
    pass_ = gpu::Kernel(ctx, pass, wg, pass_spec, sizeof(OnesweepPush), full_subgroups_);
    if (bind) bound_pass_ = gpu::Kernel(ctx, bound, wg, pass_spec, sizeof(OnesweepPush), full_subgroups_, {2, 2});
  }
  finish_ = gpu::Kernel(ctx, keyed_shader("radix_finish", options.key), wg,
                        {{SPEC_KEY_KIND, kind}, {SPEC_DESCENDING, descending}, {SPEC_HAS_VALUES, values_},
                         {SPEC_ITEMS_PER_THREAD, items}},
                        sizeof(RadixPush));
}

RadixOnesweep::Layout RadixOnesweep::layout(uint64_t n) const {
  auto align = [](VkDeviceSize v) { return (v + 15) / 16 * 16; };
  const uint64_t radix = uint64_t(1) << radix_bits_;
  Layout l;
  l.tiles = uint32_t((n + tile() - 1) / tile());
  l.digits = align(ONESWEEP_CONTROL_WORDS * 4);
  l.state = align(l.digits + passes() * radix * 4);
  l.alt_keys = align(l.state + 2 * uint64_t(l.tiles) * radix * 4);
  l.alt_values = align(l.alt_keys + n * key_bytes(options_.key));
  l.bytes = l.alt_values + (values_ ? n * 4 : 0);
  return l;
}

VkDeviceSize RadixOnesweep::scratch_bytes(uint64_t n) const { return layout(n).bytes; }

namespace {
// The passes' grids, which onesweep_plan.comp lays out with x and y of at most 65535.
uint64_t pass_groups(const DeviceInfo& info) {
  return uint64_t(std::min(info.max_workgroup_count[0], 65535u)) * std::min(info.max_workgroup_count[1], 65535u) *
         info.max_workgroup_count[2];
}
}  // namespace

uint64_t RadixOnesweep::max_keys() const {
  return std::min({uint64_t(ONESWEEP_MAX_KEYS), pass_groups(ctx_.info) * shape_.tile(),
                   gpu::grid_capacity(ctx_.info) * shape_.workgroup_size * histogram_items_});
}

uint32_t RadixOnesweep::histogram_first_passes() const {
  if (histogram_column_passes_ == 0) return passes();
  return histogram_column_passes_ == 2 && passes() >= 2 ? 2 : 1;
}

uint32_t RadixOnesweep::histogram_items(uint64_t n) const {
  // GPUs: fewer keys per invocation while that leaves under histogram_blocks blocks, so that small
  // sorts spread over the device (2^16 keys in blocks of 256 x 128 were two workgroups, 60 us on an
  // H100), down to 8 (one batch of loads in flight), and never to more blocks than a grid holds.
  constexpr uint64_t histogram_blocks = 512;
  uint32_t items = histogram_items_;
  const uint64_t wg = shape_.workgroup_size;
  if (ctx_.info.type != "cpu")
    while (items > 8 && wg * items * histogram_blocks > n && (n + wg * items / 2 - 1) / (wg * items / 2) <= gpu::grid_capacity(ctx_.info))
      items /= 2;
  return items;
}

bool RadixOnesweep::binds_buffers(const gpu::Context& ctx, RadixRanking ranking) {
  if (!ctx.push_descriptors || ctx.phase_clocks || ranking == RadixRanking::match) return false;
  const std::optional<uint32_t> asked = bound_buffers_env();
  return asked ? *asked == 1 : ranking == RadixRanking::columns;
}

bool RadixOnesweep::bound_buffers(const SortTarget& t, const Layout& l, VkDescriptorBufferInfo (&buffers)[4]) const {
  const VkDeviceSize keys = VkDeviceSize(t.n) * key_bytes(options_.key), values = VkDeviceSize(t.n) * 4;
  const VkDeviceSize range = ctx_.info.max_storage_buffer_range;
  if (!bound_pass_.pipeline() || !t.keys_buffer || (values_ && !t.values_buffer) || keys > range || (values_ && values > range))
    return false;
  buffers[0] = {t.keys_buffer, t.keys_offset, keys};
  buffers[1] = {t.scratch, t.scratch_offset + l.alt_keys, keys};
  // Without values binding 1 repeats the keys (every descriptor of a pushed set must be valid).
  buffers[2] = values_ ? VkDescriptorBufferInfo{t.values_buffer, t.values_offset, values} : buffers[0];
  buffers[3] = values_ ? VkDescriptorBufferInfo{t.scratch, t.scratch_offset + l.alt_values, values} : buffers[1];
  for (const VkDescriptorBufferInfo& b : buffers)
    if (b.offset % ctx_.min_storage_offset_alignment != 0 || b.range == 0) return false;
  return true;
}

void RadixOnesweep::record(gpu::Recorder& rec, const SortTarget& t, bool name_phases) const {
  const Layout l = layout(t.n);
  OnesweepPush push{};
  push.keys = t.keys;
  push.values = t.values;
  push.alt_keys = t.scratch_address + l.alt_keys;
  push.alt_values = values_ ? t.scratch_address + l.alt_values : 0;
  push.control = t.scratch_address;
  push.digits = t.scratch_address + l.digits;
  push.state = t.scratch_address + l.state;
  push.count = t.count;
  push.n = t.n;
  push.tiles = l.tiles;
  push.passes = passes();
  push.begin_bit = begin_bit_;
  push.end_bit = end_bit_;
  const uint64_t range = (end_bit_ == 64 ? ~uint64_t(0) : (uint64_t(1) << end_bit_) - 1) & ~((uint64_t(1) << begin_bit_) - 1);
  push.range_lo = uint32_t(range);
  push.range_hi = uint32_t(range >> 32);
  push.stall_percent = ctx_.lookback_stall_percent;
  push.max_x = std::min<uint32_t>(ctx_.info.max_workgroup_count[0], 65535);
  push.max_y = std::min<uint32_t>(ctx_.info.max_workgroup_count[1], 65535);
  const gpu::Grid finish = gpu::grid_for(ctx_, l.tiles);
  push.finish_x = finish.x, push.finish_y = finish.y, push.finish_z = finish.z;

  auto phase = [&](const char* name) {
    if (name_phases) rec.phase(name);
  };
  rec.phase(name_phases ? "histogram" : "passes");
  rec.dispatch(init_, push, 1);
  rec.compute_barrier();
  push.hist_items = histogram_items(t.n);
  const uint64_t block = uint64_t(shape_.workgroup_size) * push.hist_items;
  VkDescriptorBufferInfo buffers[4];
  const bool bound = bound_buffers(t, l, buffers);
  recorded_bound_ = bound;
  // Pushed before each bound dispatch: the kernels between (no bindings) leave them, but a recorder
  // need not know what else a caller's command buffer binds in between.
  const gpu::Kernel& histogram = bound ? bound_histogram_ : histogram_;
  const uint64_t histogram_grid = (uint64_t(t.n) + block - 1) / block;
  push.pass = 0;
  if (bound) rec.push_buffers(histogram, buffers);
  rec.dispatch(histogram, push, histogram_grid);
  rec.compute_barrier();
  // CPU drivers' columns: the second dispatch, for the blocks that deferred their later reads until
  // the input is known to be out of order (onesweep_histogram.comp).
  if (const uint32_t rest = histogram_first_passes(); rest < passes()) {
    push.pass = rest;
    if (bound) rec.push_buffers(histogram, buffers);
    rec.dispatch(histogram, push, histogram_grid);
    rec.compute_barrier();
  }
  rec.dispatch(plan_, push, 1);
  rec.compute_barrier();
  for (uint32_t p = 0; p < passes(); ++p) {
    phase("pass");
    push.pass = p;
    if (bound) rec.push_buffers(bound_pass_, buffers);
    rec.dispatch_indirect(bound ? bound_pass_ : pass_, push, t.scratch,
                          t.scratch_offset + VkDeviceSize(ONESWEEP_CONTROL_PASSES + p * ONESWEEP_PASS_WORDS + ONESWEEP_PASS_ARGS) * 4);
    rec.compute_barrier();
  }
  phase("finish");
  RadixPush copy{};
  copy.keys = t.keys;
  copy.values = t.values;
  copy.alt_keys = push.alt_keys;
  copy.alt_values = push.alt_values;
  copy.control = t.scratch_address;
  copy.n = t.n;
  copy.blocks = l.tiles;
  copy.groups = l.tiles;
  copy.tiles_per_group = 1;
  rec.dispatch_indirect(finish_, copy, t.scratch, t.scratch_offset + VkDeviceSize(RADIX_CONTROL_FINISH_ARGS) * 4);
}

void RadixOnesweep::throw_refused(const uint32_t* control) const {
  const uint32_t refused = control[ONESWEEP_CONTROL_REFUSED] - 1;
  // The refusing pass cancelled the later ones; the first that ran is the first with a grid.
  uint32_t first_run = refused;
  for (uint32_t p = 0; p < refused; ++p)
    if (control[ONESWEEP_CONTROL_PASSES + p * ONESWEEP_PASS_WORDS + ONESWEEP_PASS_ARGS] != 0) {
      first_run = p;
      break;
    }
  throw Error(Status::Code::unsupported,
              "radix sort (single pass): \"" + ctx_.info.name + "\" ran the ballot ranking's workgroups of " +
                  std::to_string(shape_.workgroup_size) + " invocations in more subgroups than the " + std::to_string(subgroups_) +
                  " it has histogram rows for (partially filled subgroups; pipelines there cannot require full ones), so pass " +
                  std::to_string(refused) + " sorted nothing and cancelled the rest: the keys and values are " +
                  (first_run == refused ? "unchanged" : "not sorted, and may have lost their contents") +
                  ". Use RadixRanking::columns on this device");
}

namespace {

// DeviceOptions::phase_clocks: the ticks per phase of the clock region at `region` (onesweep_clocks.glsl),
// summed over its slots, as facts PREFIX_share_<phase> (shares of their total), PREFIX_<counted> (the
// tiles or blocks measured) and PREFIX_ticks_per_<unit>.
void add_clock_facts(const uint32_t* control, bool ran, uint32_t region, std::span<const std::pair<uint32_t, const char*>> phases,
                     const std::string& prefix, const char* counted, const char* unit,
                     std::vector<std::pair<std::string, double>>& facts) {
  double sums[ONESWEEP_CLOCK_ENTRIES] = {};
  for (uint32_t slot = 0; ran && slot < ONESWEEP_CLOCK_SLOTS; ++slot)
    for (uint32_t e = 0; e < ONESWEEP_CLOCK_ENTRIES; ++e) {
      const uint32_t* w = control + region + (slot * ONESWEEP_CLOCK_ENTRIES + e) * 2;
      sums[e] += double((uint64_t(w[1]) << 32) | w[0]);
    }
  double total = 0;
  for (const auto& [entry, name] : phases) total += sums[entry];
  for (const auto& [entry, name] : phases) facts.emplace_back(prefix + "_share_" + name, total > 0 ? sums[entry] / total : 0.0);
  const double items = sums[ONESWEEP_CLOCK_TILES];
  facts.emplace_back(prefix + "_" + counted, items);
  facts.emplace_back(prefix + "_ticks_per_" + unit, items > 0 ? total / items : 0.0);
}

constexpr std::pair<uint32_t, const char*> pass_phases[] = {
    {ONESWEEP_CLOCK_TAKE_TILE, "take_tile"}, {ONESWEEP_CLOCK_LOAD_COUNT, "load_count"}, {ONESWEEP_CLOCK_OFFSETS, "offsets"},
    {ONESWEEP_CLOCK_RANK, "rank"},           {ONESWEEP_CLOCK_LOOK_BACK, "look_back"},   {ONESWEEP_CLOCK_STAGE, "stage"},
    {ONESWEEP_CLOCK_WRITE, "write"}};
constexpr std::pair<uint32_t, const char*> histogram_phases[] = {
    {ONESWEEP_HISTOGRAM_CLOCK_CLEAR, "clear"}, {ONESWEEP_HISTOGRAM_CLOCK_COUNT, "count"}, {ONESWEEP_HISTOGRAM_CLOCK_FLUSH, "flush"}};

}  // namespace

std::vector<std::pair<std::string, double>> RadixOnesweep::facts(const uint32_t* control, uint32_t n) const {
  const bool ran = n >= 2;  // below 2 keys nothing is recorded and the control words are not written
  if (ran && control[ONESWEEP_CONTROL_REFUSED] != 0) throw_refused(control);
  const uint32_t p = ran ? passes() : 0;
  // Bytes each key costs by design: the histogram's read, then per pass a read (two with columns,
  // which count and scatter in two walks over the tile) and a write of key and value. The value is 4
  // bytes or none (RadixSort's check); records wider than 4 bytes travel here as their 4-byte index,
  // and the Sorter adds their staging and gather to dispatches, global_barriers and bytes_per_key
  // (RecordGather::add_facts).
  const double key = key_bytes(options_.key), value = values_ ? 4.0 : 0.0;
  const double per_pass = (columns_ ? 2 * key : key) + key + 2 * value;
  // The histogram reads the keys once, or (CPU drivers' columns) once per column_passes passes: the
  // later reads in the first dispatch, or for blocks that deferred them, in a second one (recorded
  // whenever there are later reads; on sorted input it reads nothing).
  const uint32_t column_passes = std::max(histogram_column_passes_, 1u);
  const double histogram_reads = histogram_column_passes_ == 0 ? 1.0 : double((p + column_passes - 1) / column_passes);
  const double second_read = histogram_first_passes() < passes() ? 1.0 : 0.0;
  // The reads that ran: on input in order every block deferred its later reads, and none ran.
  const double reads_run = !ran ? 0.0 : second_read && control[ONESWEEP_CONTROL_INVERSIONS] == 0 ? 1.0 : histogram_reads;
  // Look-back rounds per tile that looked back (every tile but the first of each pass that ran).
  double rounds = 0, spins = 0;
  for (uint32_t i = 0; ran && i < p; ++i) {
    rounds += control[ONESWEEP_CONTROL_PASSES + i * ONESWEEP_PASS_WORDS + ONESWEEP_PASS_ROUNDS];
    spins += control[ONESWEEP_CONTROL_PASSES + i * ONESWEEP_PASS_WORDS + ONESWEEP_PASS_SPINS];
  }
  const double looked = ran ? double(layout(n).tiles - 1) * control[RADIX_CONTROL_PASSES_RUN] : 0.0;
  std::vector<std::pair<std::string, double>> facts{{"single_pass", 1.0},
          {"radix_bits", double(radix_bits_)},
          {"ranking_columns", columns_ ? 1.0 : 0.0},
          {"ranking_ballot", columns_ || match_ ? 0.0 : 1.0},
          {"ranking_match", match_ ? 1.0 : 0.0},
          {"staged", staged_ ? 1.0 : 0.0},
          {"staged_early", early_ ? 1.0 : 0.0},
          {"full_subgroups", full_subgroups_ ? 1.0 : 0.0},
          {"ballot_rows", double(subgroups_)},
          {"ballot_count_aggregate", count_aggregate_ ? 1.0 : 0.0},
          {"ballot_round_barrier", round_barrier_ ? 1.0 : 0.0},
          {"ballot_builtin_lanes", builtin_lanes_ && full_subgroups_ ? 1.0 : 0.0},
          {"ballot_leader_atomic", leader_atomic_ && row_bits_ == 32 ? 1.0 : 0.0},
          {"ballot_row_bits", double(row_bits_)},
          {"subgroup_scans", 0.0},
          {"plain_scans_workaround", 0.0},
          {"tile", double(tile())},
          {"histogram_block_keys", ran ? double(uint64_t(shape_.workgroup_size) * histogram_items(n)) : 0.0},
          {"histogram_replicas", double(histogram_replicas_)},
          {"histogram_column_passes", double(histogram_column_passes_)},
          {"histogram_reads", reads_run},
          {"histogram_deferred_blocks", ran && second_read ? double(control[ONESWEEP_CONTROL_DEFERRED]) : 0.0},
          {"workgroup", double(shape_.workgroup_size)},
          {"passes_recorded", double(p)},
          {"passes_run", ran ? double(control[RADIX_CONTROL_PASSES_RUN]) : 0.0},
          {"passes_skipped", ran ? double(control[RADIX_CONTROL_PASSES_SKIPPED]) : 0.0},
          {"order_checks", ran ? double(control[RADIX_CONTROL_CHECKS]) : 0.0},
          {"sorted_on_entry", ran ? double(control[RADIX_CONTROL_SORTED_ON_ENTRY]) : 1.0},
          {"lookback_fallbacks", ran ? double(control[ONESWEEP_CONTROL_FALLBACKS]) : 0.0},
          {"bound_buffers", recorded_bound_ ? 1.0 : 0.0},
          {"lookback_window", double(window_)},
          {"lookback_per_digit", per_digit_ ? 1.0 : 0.0},
          {"lookback_first_window", first_window_ && per_digit_ && window_ > 1 ? 1.0 : 0.0},
          {"lookback_rounds_per_tile", looked > 0 ? rounds / looked : 0.0},
          {"lookback_spin_rounds", spins},
          {"dispatches", ran ? 4 + p + second_read : 0.0},
          {"global_barriers", ran ? 3 + p + second_read : 0.0},
          {"bytes_per_key", ran ? histogram_reads * key + p * per_pass : 0.0}};
  if (ctx_.phase_clocks) {
    add_clock_facts(control, ran, ONESWEEP_CONTROL_CLOCKS, pass_phases, "clock", "tiles", "tile", facts);
    add_clock_facts(control, ran, ONESWEEP_CONTROL_HISTOGRAM_CLOCKS, histogram_phases, "histogram_clock", "blocks", "block", facts);
  }
  return facts;
}

}  // namespace vksort::algo
