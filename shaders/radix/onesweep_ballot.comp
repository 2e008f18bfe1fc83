// SPDX-License-Identifier: MIT
#version 460
// Single-pass radix sort, one pass (one digit) per dispatch, ranking the whole digit in one step per
// subgroup (multisplit by subgroup ballots, or one subgroup partition per key where the device has
// them): the shape for wide workgroups (GPUs).
//
//   1. Take a tile id (onesweep_lookback.glsl). Subgroup s owns a contiguous chunk of the tile (chunks
//      in subgroup-id order, each ITEMS times its live invocations), read in rounds of one key per live
//      invocation, so a round's reads are neighbouring words. Each subgroup counts its keys of each
//      digit into its own row of counters (shared atomics): 32-bit, or 16-bit two digits to a word
//      where 32-bit rows would not leave room to stage the tile (ROW_BITS).
//   2. For each digit, the rows become exclusive offsets across subgroups (chunk order is subgroup
//      order) and their sum the tile's count s_total[d], which is published at once (Onesweep's early
//      counts: successors need it before this tile has ranked a key).
//   3. Rank per round: RADIX_BITS ballots find the invocations whose key has the same digit (uvec4
//      masks: any subgroup size up to 128); a key's rank among the tile's keys of its digit is its
//      subgroup's next place for the digit plus its peers below it. The highest peer moves the place
//      past the peers with one shared atomic and hands the place before them to its peers by a
//      shuffle (Onesweep's leader; CUB ranks so too). Keys and ranks stay in registers. Where the
//      tile is staged (step 5), the places start at the digit's start in the tile, so that the rank
//      is the key's slot there.
//   4. Look back with Decoupled Fallback: s_excl[d] = keys of digit d in earlier tiles.
//   5. Each key goes to digits[pass][d] + s_excl[d] + its rank: stable (digits[pass][d] is read before
//      the ranking, which hides its latency). Where the tile fits shared memory (STAGE_KEYS = TILE),
//      keys (and values, read once, by their original place) first go to their place in the tile's
//      digit order in shared memory (their ranks), and invocations then write the tile out in
//      that order: each digit's run of keys lands on consecutive addresses, so the global writes
//      coalesce (Onesweep's scatter).
//
// Vulkan does not promise full subgroups unless the pipeline requires them, so chunks are sized by
// each subgroup's live invocations (counted by ballot), and invocations rank among the live ones. Nor
// does it bound how partial they are: the runtime sizes the rows for the fewest live invocations it
// knows the driver to run, and a workgroup with more subgroups than rows refuses (refuse_pass) rather
// than index past them. (Taking lanes and chunk starts from the builtins where subgroups are full, one
// controlBarrier per round instead of the two fences, and an early look-back read made an H200 1.47x
// slower at 2^28 u32 keys, 92 registers at 384 invocations: reverted, docs/algorithms.md. Since
// session 35 the chunk start is the subgroup id times the subgroup size again where subgroups are full;
// the lanes from the builtins and the round barrier are experiment knobs since session 36,
// BUILTIN_LANES and ROUND_BARRIER, so that a GPU run times each alone.)
#define PUSH_ONESWEEP
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/radix_digits.glsl"
#include "common/address.glsl"
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_control_flow_attributes : require
// SUBGROUP_PARTITIONED (the `match` ranking's variant): peers from subgroupPartitionNV, where the
// device offers VK_NV_shader_subgroup_partitioned, instead of a ballot per digit bit.
#ifndef SUBGROUP_PARTITIONED
#define SUBGROUP_PARTITIONED 0
#endif
#if SUBGROUP_PARTITIONED
#extension GL_NV_shader_subgroup_partitioned : require
#endif

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
// The most subgroups a workgroup may have (its histogram rows): as many as there are where the pipeline
// requires full subgroups, else as many as the fewest live invocations per subgroup the runtime counts
// on make (its ballot_subgroup_lanes).
layout(constant_id = SPEC_ONESWEEP_SUBGROUPS) const uint SUBGROUPS = 16;
layout(constant_id = SPEC_ONESWEEP_STAGE_KEYS) const uint STAGE_KEYS = 1;   // TILE: stage the tile in shared memory
// Staged tiles: true stages each key as soon as it is ranked, into memory of its own (early); false
// stages after the look-back, in the histograms' memory (late). See s_hist.
layout(constant_id = SPEC_ONESWEEP_STAGE_EARLY) const bool STAGE_EARLY = false;
// Ballot words that hold a subgroup's lanes (the device's subgroup size, which pipelines of SPIR-V 1.5
// without a varying-size flag always get): the ranking combines only those, one on subgroups of 32.
layout(constant_id = SPEC_BALLOT_WORDS) const uint BALLOT_WORDS = 4;
// The pipeline requires full subgroups (VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT):
// no workgroup can have more subgroups than rows, so none checks.
layout(constant_id = SPEC_ONESWEEP_FULL_SUBGROUPS) const bool FULL_SUBGROUPS = false;
const uint WG = gl_WorkGroupSize.x;
const uint TILE = WG * ITEMS;
const uint RADIX = 1u << RADIX_BITS;
// GPUs (a few keys per invocation) keep the chunk's keys and ranks in registers: every loop over them
// is unrolled and runs to the end (a position past the last key holds padding or is skipped, never a
// break), so each index is a constant. An H200 put both arrays in local memory while those loops
// stopped at the last key (its pipeline statistics: 160 bytes per invocation for 16 u32 keys;
// bench/results/nvidia-h200_2026-11-27).
// CPU drivers (thousands of keys per invocation) load each key where it is used, keep the arrays in
// memory and loop rolled; there the unrolled loops run REGISTER_ITEMS = 1 time and are dead code.
// (Two experiments that spent fewer registers on GPUs lost to the keys held in registers at every
// shape on an H200 and were removed: the rolled loops on GPUs too, each key loaded again to rank it,
// 1.70x the time for u32 keys at 2^26; and batches of 8 keys held at once, loaded again to rank, 1.20x;
// bench/results/nvidia-h200_2026-11-29-session33.)
// COUNT_AGGREGATE (VKSORT_BALLOT_COUNT_AGGREGATE=1, an experiment for GPU runs): step 1's lanes whose digit
// is the first live lane's add to their row once, by one lane, instead of each by its own atomic. On
// skewed keys most lanes of a round share a digit, and their atomics on one word serialise; on random
// keys it costs a broadcast and a ballot per key for nothing. gpu-check's skewed-input stage times it.
layout(constant_id = SPEC_BALLOT_COUNT_AGGREGATE) const bool COUNT_AGGREGATE = false;
// ROUND_BARRIER (VKSORT_BALLOT_ROUND_BARRIER=1, an experiment for GPU runs): step 3 orders a round's
// moves of the subgroup's places before the next round's by one subgroup control barrier whose memory
// semantics name shared memory alone, instead of a shared-memory fence and subgroupBarrier(), whose
// semantics name every storage class (buffers and images too). The ordering needed is the shared one;
// whether a driver makes the wider barrier cost more (a fence on outstanding buffer accesses, e.g. the
// aggregate just published) only a GPU run shows. (Session 22 shipped this beside two other changes; the
// three together ran 1.47x slower on an H200, at 92 registers, and were reverted together: untold apart.)
layout(constant_id = SPEC_BALLOT_ROUND_BARRIER) const bool ROUND_BARRIER = false;
// BUILTIN_LANES (VKSORT_BALLOT_BUILTIN_LANES=1, an experiment for GPU runs): where subgroups are full,
// the live invocations' mask, number and this invocation's place among them are the subgroup's own
// (gl_SubgroupSize, gl_SubgroupInvocationID), which compilers know, instead of a ballot and two bit
// counts: the chunk's addresses become a base plus constant strides and the ranking's AND with the
// live mask folds away (AMD's compiler: 13-85 instructions fewer, pressure before scheduling 1-2
// VGPRs lower). An experiment because session 22's "lanes and chunk starts from the builtins" was one
// of two changes (with ROUND_BARRIER's) of which one took an H200's pass kernel from 78 to 97 registers
// at 384 x 20 (the third, an early look-back read, was ruled out): a GPU run tells them apart.
layout(constant_id = SPEC_BALLOT_BUILTIN_LANES) const bool BUILTIN_LANES_ASKED = false;
const bool BUILTIN_LANES = BUILTIN_LANES_ASKED && FULL_SUBGROUPS;
// LEADER_ATOMIC (VKSORT_BALLOT_LEADER_ATOMIC=1, an experiment for GPU runs): on 32-bit rows the highest
// peer moves its digit's place by one shared atomic add, as on 16-bit rows, instead of a load, an add
// and a store. The load-add-store makes each round's move wait for the load's latency, and the next
// round's load for that store: a chain through the rounds. An atomic's result only the round's shuffle
// waits for, so the next round's atomic need not wait for it (CUB's ranking moves its places by atomics:
// "atomic is a bit faster"). Session 20's clocks (4730 ticks a tile for 16 rounds, ~300 a round) say
// the rounds are slow; whether this chain is why only a GPU run shows.
layout(constant_id = SPEC_BALLOT_LEADER_ATOMIC) const bool LEADER_ATOMIC = false;
const bool STAGED = STAGE_KEYS >= TILE;
const bool IN_REGISTERS = ITEMS <= 32u;
const uint REGISTER_ITEMS = IN_REGISTERS ? ITEMS : 1u;
// Staged early with values, in registers: each value is loaded with its key (the loads in flight
// together), not in the middle of the ranking.
const bool PRELOAD_VALUES = VALUE_WORDS == 1 && STAGED && STAGE_EARLY && IN_REGISTERS;

// The look-back's round counts are reduced by shuffles where subgroups are full.
#define ONESWEEP_FULL_SUBGROUP_MAX
#include "radix/onesweep_lookback.glsl"
#include "radix/onesweep_clocks.glsl"

// Subgroup s's keys of digit d: counts, then offsets (staged: from the digit's start in the tile on),
// then the next place while ranking. With 32-bit
// counters (ROW_BITS 32) that is s_hist[s * ROW_WORDS + d]; with 16-bit counters the half d % 2 of
// s_hist[s * ROW_WORDS + d / 2] (hist_word, hist_shift). 16 bits hold any of these: none exceeds the
// tile's keys, which the runtime keeps to 2^15 for this ranking, so adding to one half never carries
// into the other. Two counters to a word halve the shared memory the rows take, so a staged tile fits
// beside them more often; but then two digits' leaders may move one word in the same round, which
// takes an atomic, where a digit's own word takes a plain load and store (CUB's ranking): on an H200
// 32-bit rows ranked a tile in 4730 clock ticks, 16-bit rows in 6160 (bench/results/
// nvidia-h200_2026-11-27-session20, phase clocks). The runtime takes 32 bits wherever the tile's shape
// and staging fit with them. A staged tile sits in digit order at s_hist[STAGE_BASE...]
// (stage_key, staged_key: keys, then values). Staged late, it takes the histograms' words after the
// look-back: every key's slot is in registers by then, and a workgroup needs the larger of the two,
// not both. Staged early, it has words of its own after the histograms, so each key goes there as soon
// as it is ranked and neither the keys nor their ranks stay in registers through the look-back (fewer
// registers, more workgroups per multiprocessor where registers bound them), for histograms and tile
// in shared memory together.
layout(constant_id = SPEC_BALLOT_ROW_BITS) const uint ROW_BITS = 32;
const bool WIDE_ROWS = ROW_BITS == 32u;
const uint ROW_WORDS = WIDE_ROWS ? RADIX : RADIX / 2u;
const uint HIST_WORDS = SUBGROUPS * ROW_WORDS;
const uint STAGE_WORDS = STAGE_KEYS * (KEY_WORDS + VALUE_WORDS);
const uint STAGE_BASE = STAGE_EARLY ? HIST_WORDS : 0u;
shared uint s_hist[STAGE_EARLY ? HIST_WORDS + STAGE_WORDS : HIST_WORDS > STAGE_WORDS ? HIST_WORDS : STAGE_WORDS];
shared uint s_live[SUBGROUPS];          // live invocations of each subgroup
shared uint s_subgroup_keys[SUBGROUPS];  // staging: the tile's keys of the digits each subgroup sums in step 2
shared uint s_start[RADIX];              // staging: where each digit's keys start in the tile

uint hist_word(uint row, uint d) { return WIDE_ROWS ? row + d : row + (d >> 1); }
uint hist_shift(uint d) { return WIDE_ROWS ? 0u : (d & 1u) << 4; }
// 1. One key of digit d into row `row` (shared atomics: only the subgroup's own lanes share a word).
// Every live lane of the round calls it with its key's digit (COUNT_AGGREGATE votes among them).
void count_in_row(uint row, uint d) {
  if (COUNT_AGGREGATE) {
    const uint first = subgroupBroadcastFirst(d);
    const uvec4 same = subgroupBallot(d == first);
    if (d == first) {
      if (subgroupElect()) atomicAdd(s_hist[hist_word(row, d)], subgroupBallotBitCount(same) << hist_shift(d));
      return;
    }
  }
  atomicAdd(s_hist[hist_word(row, d)], 1u << hist_shift(d));
}

void stage_key(uint slot, Key k) {
#if KEY_WORDS == 1
  s_hist[STAGE_BASE + slot] = k;
#else
  s_hist[STAGE_BASE + 2u * slot] = k.x;
  s_hist[STAGE_BASE + 2u * slot + 1u] = k.y;
#endif
}
Key staged_key(uint slot) {
#if KEY_WORDS == 1
  return s_hist[STAGE_BASE + slot];
#else
  return uvec2(s_hist[STAGE_BASE + 2u * slot], s_hist[STAGE_BASE + 2u * slot + 1u]);
#endif
}
#if VALUE_WORDS == 1
void stage_value(uint slot, uint v) { s_hist[STAGE_BASE + STAGE_KEYS * KEY_WORDS + slot] = v; }
uint staged_value(uint slot) { return s_hist[STAGE_BASE + STAGE_KEYS * KEY_WORDS + slot]; }
#endif

// Step 2's words per invocation: invocation p (in (subgroup, lane) order) sums words
// [p * WORDS_PER_INVOCATION, (p + 1) * WORDS_PER_INVOCATION) of the rows, i.e. a contiguous run of digits.
const uint WORDS_PER_INVOCATION = (ROW_WORDS + WG - 1u) / WG;

// The sum of `value` over the subgroup's live invocations below this one, and over all of them
// (`total`), for values and sums of at most TILE (a tile's keys, below 2^16 for this ranking). Once
// per tile, in uniform control flow, in place of a workgroup scan's log2(WG) barriers. Where subgroups
// are full (live lanes are the subgroup's invocations in order) by log2(subgroup size) shuffles (Hillis
// and Steele): on subgroups of 32 five shuffles and adds instead of a ballot, a masked count and a full
// count per bit of TILE (13 for 7680 keys); AMD's compiler: 239 -> 87 instructions for the rows' sums
// and this scan together. Otherwise by those ballots, which need neither subgroup arithmetic nor full
// subgroups.
uint subgroup_exclusive_sum(uint value, out uint total) {
  if (FULL_SUBGROUPS) {
    uint inclusive = value;
    const uint id = gl_SubgroupInvocationID;
    [[unroll]] for (uint step = 1u; step < 32u * BALLOT_WORDS; step <<= 1u) {
      if (step < gl_SubgroupSize) {  // uniform
        // (id - step) wraps onto a lane of the subgroup, whose value the lanes below `step` ignore.
        const uint below = subgroupShuffle(inclusive, (id - step) & (gl_SubgroupSize - 1u));
        if (id >= step) inclusive += below;
      }
    }
    total = subgroupShuffle(inclusive, gl_SubgroupSize - 1u);
    return inclusive - value;
  }
  // The bits a sum of at most TILE takes (a constant once the pipeline is specialized).
  const uint bits = uint(findMSB(TILE)) + 1u;
  uint below = 0u;
  total = 0u;
  [[unroll]] for (uint b = 0u; b < 16u; ++b) {
    if (b >= bits) continue;  // uniform
    const uvec4 with_bit = subgroupBallot(((value >> b) & 1u) != 0u);
    uint lower = 0u, all = 0u;
    [[unroll]] for (uint w = 0u; w < BALLOT_WORDS; ++w) {
      lower += bitCount(with_bit[w] & gl_SubgroupLtMask[w]);
      all += bitCount(with_bit[w]);
    }
    below += lower << b;
    total += all << b;
  }
  return below;
}

// Where the pass writes (set before step 5): the buffers it does not read.
Keys g_dst;
#if VALUE_WORDS == 1
Words g_src_values, g_dst_values;
#endif

// The lanes of a full subgroup as a ballot: the bits below gl_SubgroupSize.
uvec4 subgroup_lanes() {
  uvec4 lanes;
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
    const uint in_word = min(gl_SubgroupSize - min(gl_SubgroupSize, 32u * w), 32u);
    lanes[w] = in_word == 32u ? ~0u : (1u << in_word) - 1u;
  }
  return lanes;
}

// The highest lane set in a ballot of the subgroup that is not empty (subgroupBallotFindMSB), looking
// only at the ballot words that can hold a lane: on subgroups of 32 or fewer one findMSB, with no test
// for an empty word (the ballot holds at least the calling lane), instead of four and their choice.
uint highest_lane(uvec4 ballot) {
  uint highest = uint(findMSB(ballot[0]));
  [[unroll]] for (uint w = 1u; w < BALLOT_WORDS; ++w)
    if (ballot[w] != 0u) highest = 32u * w + uint(findMSB(ballot[w]));
  return highest;
}

// 3. Key k's rank among the tile's keys of its digit: its subgroup's next place for the digit (in row
// `row`) plus its peers below it. Every live lane of the subgroup (`live_mask`) calls it for its key
// of the same round (subgroup votes and a shuffle). Positions past the last key hold padding
// (KEY_MAX), ranked like keys: they are the tile's last positions, so they rank after every key of
// their digit and are staged past the tile's keys, where no one writes them out (pad_keys).
uint rank_key(Key k, uvec4 live_mask, uint row) {
  const uint d = onesweep_digit(k);
#if SUBGROUP_PARTITIONED
  // The lanes whose digit is this one's, in one step (NVIDIA: match.any).
  const uvec4 peers = subgroupPartitionNV(d);
#else
  // Only the ballot words that can hold a lane are combined: one on subgroups of 32 or fewer. `clear`
  // is all ones where this lane's bit b is clear, else zero, so the lanes that agree with it on bit b
  // are with_bit ^ clear: with the AND into peers one three-input logic operation on NVIDIA (LOP3;
  // CUB's ranking takes a predicated NOT and an AND), an XOR and an AND per word on AMD, where the
  // select between the ballot and its complement took a move, a NOT and a select per word besides
  // (RADV's compiler: 12 instructions per bit on subgroups of 64, now 7). (`clear` from d itself, not
  // from a ~d kept beside d: one register less at the ranking's busiest point, one NOT more per bit.)
  uvec4 peers = live_mask;
  [[unroll]] for (uint b = 0u; b < RADIX_BITS; ++b) {
    const uint mine = uint(bitfieldExtract(int(d), int(b), 1));
    const uvec4 with_bit = subgroupBallot(mine != 0u);
    const uint clear = ~mine;
    [[unroll]] for (uint w = 0u; w < BALLOT_WORDS; ++w) peers[w] &= with_bit[w] ^ clear;
  }
#endif
  uint below = 0u, count = 0u;
  [[unroll]] for (uint w = 0u; w < BALLOT_WORDS; ++w) {
    below += bitCount(peers[w] & gl_SubgroupLtMask[w]);
    count += bitCount(peers[w]);
  }
  // The highest peer moves the digit's place past the peers and hands the place before them to its
  // peers. On 16-bit rows by an atomic: the word's other digit may move in the same round; on 32-bit
  // rows the word is the digit's alone this round (by an atomic too where LEADER_ATOMIC asks). (The
  // other round, every lane reading its place and the highest peer adding after a barrier, two
  // barriers a round, was 1-2% slower on an H200 at 2^20-2^28 on 16-bit rows:
  // bench/results/nvidia-h200_2026-11-27-session20.)
  const uint shift = hist_shift(d);
  uint moved = 0u;
  if (below + 1u == count) {
    const uint word = hist_word(row, d);
    if (WIDE_ROWS && !LEADER_ATOMIC) {
      moved = s_hist[word];
      s_hist[word] = moved + count;
    } else {
      moved = atomicAdd(s_hist[word], count << shift);
    }
  }
  const uint leader = highest_lane(peers);
  const uint before = (subgroupShuffle(moved, leader) >> shift) & (WIDE_ROWS ? ~0u : 0xffffu);
  // This round's places have moved before the next round's move them again: ranks follow rounds, so
  // the ranking is stable.
  if (ROUND_BARRIER) {
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
  } else {
    subgroupMemoryBarrierShared();
    subgroupBarrier();
  }
  return before + below;
}

// 5, staged: key k (and its value) to its slot in the tile's digit order (its rank: the rows' places
// start at each digit's start in the tile).
void stage_item(Key k, uint slot, uint value) {
  stage_key(slot, k);
#if VALUE_WORDS == 1
  stage_value(slot, value);
#endif
}

// Key i's value (0 without values).
uint source_value(uint i) {
#if VALUE_WORDS == 1 && BOUND_BUFFERS
  return b_values[g_encoded ? BOUND_SCRATCH : BOUND_CALLER].w[i];
#elif VALUE_WORDS == 1
  return g_src_values.w[i];
#else
  return 0u;
#endif
}

// 5, staged: the tile's slot `slot` (key and value) to its place in the output; consecutive slots of a
// digit go to consecutive places.
void write_staged(uint slot) {
  const Key k = staged_key(slot);
  const uint to = s_excl[onesweep_digit(k)] + slot;
#if BOUND_BUFFERS
  const uint into = g_encoded ? BOUND_CALLER : BOUND_SCRATCH;
  b_keys[into].k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  b_values[into].w[to] = staged_value(slot);
#endif
#else
  g_dst.k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  g_dst_values.w[to] = staged_value(slot);
#endif
#endif
}

// 5, not staged: key k (and its value) straight to its place in the output.
void write_item(Key k, uint rank, uint i) {
  const uint to = s_excl[onesweep_digit(k)] + rank;
#if BOUND_BUFFERS
  const uint into = g_encoded ? BOUND_CALLER : BOUND_SCRATCH;
  b_keys[into].k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  b_values[into].w[to] = source_value(i);
#endif
#else
  g_dst.k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  g_dst_values.w[to] = g_src_values.w[i];
#endif
#endif
}

// A workgroup with more subgroups than SUBGROUPS rows (partial subgroups, fuller ones counted on):
// this pass sorts nothing, and cancels the later passes and the finish copy (their indirect arguments,
// which the barrier after this dispatch makes visible), so that the caller's buffers keep what they
// held when the first pass that ran refuses (the host reports it: RadixOnesweep::facts). Every
// workgroup that refuses stores the same words.
void refuse_pass() {
  if (gl_LocalInvocationIndex != 0u) return;
  atomicStore(g_control.w[ONESWEEP_CONTROL_REFUSED], pc.pass + 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
              gl_SemanticsRelaxed);
  for (uint q = pc.pass + 1u; q < pc.passes; ++q)
    atomicStore(g_control.w[ONESWEEP_CONTROL_PASSES + q * ONESWEEP_PASS_WORDS + ONESWEEP_PASS_ARGS], 0u, gl_ScopeDevice,
                gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  atomicStore(g_control.w[RADIX_CONTROL_FINISH_ARGS], 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

void main() {
  clock_start();
  g_control = Words(pc.control);
  // Uniform (gl_NumSubgroups is the workgroup's), before any barrier; never where subgroups are full.
  if (!FULL_SUBGROUPS && gl_NumSubgroups > SUBGROUPS) {
    refuse_pass();
    return;
  }
  g_pass_words = ONESWEEP_CONTROL_PASSES + pc.pass * ONESWEEP_PASS_WORDS;
  g_n = g_control.w[RADIX_CONTROL_N];
  const uint t = gl_LocalInvocationID.x;
  // Everything of this pass that does not depend on the tile is read before taking it, so these
  // loads are in flight beside the tile counter's atomic instead of after it: the pass's source and
  // state region (the plan's), and this pass's first position of each digit this invocation owns in
  // the look-back (its latency would otherwise follow the look-back).
  g_encoded = g_control.w[g_pass_words + ONESWEEP_PASS_SOURCE] != 0u;
  const uint region = g_control.w[g_pass_words + ONESWEEP_PASS_REGION];
  Words digits = Words(pc.digits);
  uint first_of_digit[LOOKBACK_DIGITS];
  [[unroll]] for (uint k = 0u; k < LOOKBACK_DIGITS; ++k) {
    const uint d = t + k * WG;
    first_of_digit[k] = d < RADIX ? digits.w[pc.pass * RADIX + d] : 0u;
  }
  // The tile id, the rows of the subgroups there are (zero) and each subgroup's live invocations,
  // behind one barrier.
  onesweep_take_tile_begin();
  const uint sg = gl_SubgroupID;
  // The live invocations, counted by ballot; where subgroups are full and BUILTIN_LANES asks, the
  // subgroup's own, in order, from the builtins.
  const uvec4 live_mask = BUILTIN_LANES ? subgroup_lanes() : subgroupBallot(true);
  const uint live = BUILTIN_LANES ? gl_SubgroupSize : subgroupBallotBitCount(live_mask);
  const uint lane = BUILTIN_LANES ? gl_SubgroupInvocationID : subgroupBallotExclusiveBitCount(live_mask);
  if (!FULL_SUBGROUPS && subgroupElect()) s_live[sg] = live;
  for (uint i = t; i < gl_NumSubgroups * ROW_WORDS; i += WG) s_hist[i] = 0u;
  // The tile is taken, the histograms are zero and every subgroup's live count is in.
  barrier();
  const uint tile = onesweep_tile();
  clock_mark(ONESWEEP_CLOCK_TAKE_TILE);
  if (tile * TILE >= g_n) return;  // uniform; a grid may hold more workgroups than tiles
  g_src = Keys(g_encoded ? pc.alt_keys : pc.keys);
  g_shift = pc.begin_bit + pc.pass * RADIX_BITS;
  g_bits = min(RADIX_BITS, pc.end_bit - g_shift);
  g_dst = Keys(g_encoded ? pc.keys : pc.alt_keys);
#if VALUE_WORDS == 1
  g_src_values = Words(g_encoded ? pc.alt_values : pc.values);
  g_dst_values = Words(g_encoded ? pc.values : pc.alt_values);
#endif
  Words state = Words(address_at(pc.state, region * pc.tiles, RADIX * 4u));
  Words next_state = Words(address_at(pc.state, (region ^ 1u) * pc.tiles, RADIX * 4u));
  // This subgroup's first place in the tile: the live invocations of the subgroups before it (where
  // subgroups are full, a product instead of a chain of loads that the chunk's key loads would wait on).
  uint start = 0u;
  if (FULL_SUBGROUPS) start = sg * gl_SubgroupSize;
  else for (uint s = 0u; s < sg; ++s) start += s_live[s];
  const uint chunk = tile * TILE + start * ITEMS;
  const uint row = sg * ROW_WORDS;

  // GPUs load every key of the chunk before counting any, so the loads are in flight together.
  Key keys[ITEMS];
  uint ranks[ITEMS];
  uint values[PRELOAD_VALUES ? ITEMS : 1u];
  if (IN_REGISTERS) {
    [[unroll]] for (uint r = 0u; r < REGISTER_ITEMS; ++r) {
      const uint i = chunk + r * live + lane;
      keys[r] = i < g_n ? onesweep_source_key(i) : KEY_MAX;
      if (PRELOAD_VALUES) values[r] = i < g_n ? source_value(i) : 0u;
    }
  }

  // 1. Each subgroup counts its keys of each digit into its own row (shared atomics: only the
  // subgroup's own lanes share a word). The padding past the last key (KEY_MAX, in the last subgroups'
  // last rounds) counts too, in its digit pad_digit, by one atomic per subgroup, so that the ranking
  // and staging treat every position of a tile alike, with no check against the end of the keys (CUB's
  // whole tiles skip those checks likewise); step 2 takes it out of the tile's counts. (Counting the
  // padding key by key instead, with no check here either, let compilers keep each key's digit and
  // histogram address from here to its ranking: AMD's compiler went from 38 to 78 VGPRs.)
  if (IN_REGISTERS) {
    [[unroll]] for (uint r = 0u; r < REGISTER_ITEMS; ++r)
      if (chunk + r * live + lane < g_n) count_in_row(row, onesweep_digit(keys[r]));
  } else {
    for (uint r = 0u; r < ITEMS; ++r) {
      const uint i = chunk + r * live + lane;
      if (i >= g_n) break;
      count_in_row(row, onesweep_digit(onesweep_source_key(i)));
    }
  }
  const uint pad_digit = onesweep_digit(KEY_MAX);
  const uint chunk_end = chunk + ITEMS * live;
  if (chunk_end > g_n && subgroupElect())
    atomicAdd(s_hist[hist_word(row, pad_digit)], min(ITEMS * live, chunk_end - g_n) << hist_shift(pad_digit));
  // Every subgroup's counts are in.
  barrier();
  clock_mark(ONESWEEP_CLOCK_LOAD_COUNT);

  // 2. For each digit, the rows become exclusive offsets across subgroups and their sum the tile's
  // count s_total[d]: on 16-bit rows a word's two digits at once (its halves never carry into each
  // other). Invocation p = start + lane takes a contiguous run of words, so that where the tile is
  // staged the scan of the digits' counts (their starts in the staged tile) follows the (subgroup,
  // lane) order: within the subgroup by shuffles or ballots (subgroup_exclusive_sum), across subgroups
  // by one word each, made visible by the barrier this step has anyway.
  // The loops over the subgroups' rows and sums run to `subgroups`: a constant where subgroups are full
  // (SUBGROUPS of them), so they unroll and their loads are in flight together, not one after another.
  const uint subgroups = FULL_SUBGROUPS ? SUBGROUPS : gl_NumSubgroups;
  const uint first_word = min(ROW_WORDS, (start + lane) * WORDS_PER_INVOCATION);
  const uint end_word = min(ROW_WORDS, first_word + WORDS_PER_INVOCATION);
  // The padding (the tile's positions past the last key, all in the last subgroups' last rounds) is
  // no key: out of its digit's total, so that the tile's published counts and its digits' starts are
  // the keys' alone. In the rows it stays: only the padding itself comes after it in the tile.
  const uint pad_keys = TILE - min(TILE, g_n - tile * TILE);
  // Staged, the rows' places are set below, once the digits' starts in the tile are known.
  uint owned = 0u;  // the tile's keys of this invocation's digits
  for (uint w = first_word; w < end_word; ++w) {
    uint sum = 0u;
    [[unroll]] for (uint s = 0u; s < subgroups; ++s) {
      const uint keys_here = s_hist[s * ROW_WORDS + w];
      if (!STAGED) s_hist[s * ROW_WORDS + w] = sum;
      sum += keys_here;
    }
    if (w == hist_word(0u, pad_digit)) sum -= pad_keys << hist_shift(pad_digit);
    if (WIDE_ROWS) {
      s_total[w] = sum;
      owned += sum;
    } else {
      s_total[2u * w] = sum & 0xffffu;
      s_total[2u * w + 1u] = sum >> 16;
      owned += (sum & 0xffffu) + (sum >> 16);
    }
  }
  uint digits_before = 0u;  // staged: the tile's keys of digits before this invocation's
  if (STAGED) {
    uint subgroup_keys;
    digits_before = subgroup_exclusive_sum(owned, subgroup_keys);
    if (subgroupElect()) s_subgroup_keys[sg] = subgroup_keys;
  }
  // s_total, the offsets and every subgroup's sum are complete.
  barrier();
  // The tile's counts go out before the ranking (Onesweep's early counts): successors looking back
  // find this tile's aggregate a whole ranking sooner.
  publish_aggregate(tile, state);
  // Where the tile is staged: where each digit's keys start in it, from the counts alone, so that
  // the staging needs nothing of the look-back; and each subgroup's first place for the digit, from
  // that start on (the rows' exclusive sums plus the start), so that a key's rank is its slot in the
  // staged tile: the ranking's places need no start added per key (on 16-bit rows both halves at once:
  // no place exceeds TILE, so neither carries into the other).
  if (STAGED) {
    [[unroll]] for (uint s = 0u; s < subgroups; ++s)
      if (s < sg) digits_before += s_subgroup_keys[s];
    for (uint w = first_word; w < end_word; ++w) {
      uint place;  // the word's digits' starts, then the next subgroup's places
      if (WIDE_ROWS) {
        s_start[w] = place = digits_before;
        digits_before += s_total[w];
      } else {
        s_start[2u * w] = place = digits_before;
        digits_before += s_total[2u * w];
        s_start[2u * w + 1u] = digits_before;
        place |= digits_before << 16;
        digits_before += s_total[2u * w + 1u];
      }
      [[unroll]] for (uint s = 0u; s < subgroups; ++s) {
        const uint keys_here = s_hist[s * ROW_WORDS + w];
        s_hist[s * ROW_WORDS + w] = place;
        place += keys_here;
      }
    }
  }
  // Every digit's start and the rows' places are visible before the ranking, and the starts before
  // the look-back's results are moved by them.
  if (STAGED) barrier();
  clock_mark(ONESWEEP_CLOCK_OFFSETS);

  // 3. Rank in rounds of one key per live invocation (every lane takes every round: subgroup votes);
  // staged early, each key (and value) goes to its slot as soon as it has its rank.
  if (IN_REGISTERS) {
    [[unroll]] for (uint r = 0u; r < REGISTER_ITEMS; ++r) {
      ranks[r] = rank_key(keys[r], live_mask, row);
      if (STAGED && STAGE_EARLY) stage_item(keys[r], ranks[r], PRELOAD_VALUES ? values[r] : 0u);
    }
  } else {
    for (uint r = 0u; r < ITEMS; ++r) {
      const uint i = chunk + r * live + lane;
      const bool valid = i < g_n;
      keys[r] = valid ? onesweep_source_key(i) : KEY_MAX;
      ranks[r] = rank_key(keys[r], live_mask, row);
      if (STAGED && STAGE_EARLY) stage_item(keys[r], ranks[r], valid ? source_value(i) : 0u);
    }
  }
  clock_barrier();
  clock_mark(ONESWEEP_CLOCK_RANK);

  // 4. The look-back.
  onesweep_look_back(tile, state, next_state);
  // s_excl[d] becomes the destination of the tile's first key of digit d; where the tile is staged,
  // of its slot 0 instead (less s_start[d], wrapping), so that slot i goes to s_excl[d] + i.
  [[unroll]] for (uint k = 0u; k < LOOKBACK_DIGITS; ++k) {
    const uint d = t + k * WG;
    if (d < RADIX) s_excl[d] += first_of_digit[k] - (STAGED ? s_start[d] : 0u);
  }
  // Every digit's destination is in s_excl, and every subgroup has ranked its keys.
  barrier();
  onesweep_count_rounds();
  clock_mark(ONESWEEP_CLOCK_LOOK_BACK);

  // 5.
  if (STAGED) {
    // Staged late: each key to its slot in the tile's digit order (no one reads the histograms since
    // the barrier above, which every subgroup's ranking precedes: the tile may overwrite them).
    if (!STAGE_EARLY && IN_REGISTERS) {
      [[unroll]] for (uint r = 0u; r < REGISTER_ITEMS; ++r) {
        const uint i = chunk + r * live + lane;
        if (i < g_n) stage_item(keys[r], ranks[r], source_value(i));
      }
    } else if (!STAGE_EARLY) {
      for (uint r = 0u; r < ITEMS; ++r) {
        const uint i = chunk + r * live + lane;
        if (i >= g_n) break;
        stage_item(keys[r], ranks[r], source_value(i));
      }
    }
    // The tile is staged in digit order (staged early: since before the look-back's barriers).
    if (!STAGE_EARLY) barrier();
    clock_mark(ONESWEEP_CLOCK_STAGE);
    const uint count = min(TILE, g_n - tile * TILE);
    if (IN_REGISTERS && count == TILE) {
      // A whole tile on a GPU: unrolled, so each invocation's reads of its ITEMS slots are in flight
      // together.
      [[unroll]] for (uint j = 0u; j < REGISTER_ITEMS; ++j) write_staged(t + j * WG);
    } else {
      for (uint slot = t; slot < count; slot += WG) write_staged(slot);
    }
    clock_barrier();
    clock_mark(ONESWEEP_CLOCK_WRITE);
    clock_publish(g_control, ONESWEEP_CONTROL_CLOCKS, tile);
    return;
  }
  if (IN_REGISTERS) {
    [[unroll]] for (uint r = 0u; r < REGISTER_ITEMS; ++r) {
      const uint i = chunk + r * live + lane;
      if (i < g_n) write_item(keys[r], ranks[r], i);
    }
  } else {
    for (uint r = 0u; r < ITEMS; ++r) {
      const uint i = chunk + r * live + lane;
      if (i >= g_n) break;
      write_item(keys[r], ranks[r], i);
    }
  }
  clock_barrier();
  clock_mark(ONESWEEP_CLOCK_WRITE);
  clock_publish(g_control, ONESWEEP_CONTROL_CLOCKS, tile);
}
