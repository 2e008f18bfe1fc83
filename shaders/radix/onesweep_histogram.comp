// SPDX-License-Identifier: MIT
#version 460
// Single-pass radix sort, the upfront read (Onesweep's "global histogram"): one read of the keys counts
// the digit of every pass at once, into digits[pass * RADIX + digit], and counts adjacent inversions on
// the ordered bits (zero: the input is sorted and no pass runs). The workgroups also clear tile-state
// region 0, which the first pass that runs looks back over.
//
// Blocks of WG * pc.hist_items keys, sized by the runtime per sort apart from the passes' tiles: enough
// blocks to fill a GPU at small n, few enough at large n that their global atomics stay few; and
// lavapipe ends any invocation's loops after 65535 iterations in all (gallivm's loop limiter), and an
// invocation here iterates hist_items * passes times.
//
// GPUs read whole blocks in chunks of CHUNK consecutive keys (two 8-byte loads), chunk t + j * WG of
// the block, so neighbouring invocations read neighbouring 16 bytes; a chunk's keys are each other's
// successors for the order check, and only its last key's successor (the next chunk's first key, which
// the neighbouring invocation loads too: a cache hit) is loaded apart: 3 loads per 4 u32 keys instead
// of 8. The last block, and blocks whose keys per invocation are no multiple of a batch, go key by key
// (key base + j * WG + t), each key's successor loaded apart. CPU drivers (CONSECUTIVE) give each invocation a
// run of consecutive keys, whose successor is the next key of the run: one load per key instead of
// two, and on lavapipe every load is a loop over the lanes.
// CPU drivers read their keys once per two passes' columns (COLUMN_PASSES), and only the first read
// checks the order: a block whose first read found no inversion, while no other block had reported one
// (the word its first read adds to), defers its later reads to a second dispatch (pc.pass: the first
// pass they count), which reads the deferred blocks' keys only if some block found an inversion. Input
// in order is then read once, as reduce-then-scan's first count reads it (reading all took the single
// pass 1.3 (u32) to 2.7 (u64) times reduce-then-scan's time there at 2^20), and random input reads each
// run twice in a row, from the cache (a second dispatch for all the later reads cost lavapipe 26% more
// histogram time at 2^20 u32 keys: the keys had left the cache). pretend (pc.stall_percent): blocks
// never see another's inversions, so every block without one of its own defers.
// The caller's buffer holds raw keys: this kernel encodes what it reads.
#define PUSH_ONESWEEP
#extension GL_EXT_control_flow_attributes : require
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/address.glsl"
#include "common/radix_digits.glsl"
#include "radix/onesweep_clocks.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
layout(constant_id = SPEC_CONSECUTIVE) const bool CONSECUTIVE = false;
layout(constant_id = SPEC_HISTOGRAM_REPLICAS) const uint REPLICAS = 1;  // CONSECUTIVE: 1
// CONSECUTIVE: the passes one read of an invocation's keys counts, each into columns of its own (1 or 2,
// as shared memory allows).
layout(constant_id = SPEC_HISTOGRAM_COLUMN_PASSES) const uint COLUMN_PASSES = 1;
// The bits [BEGIN_BIT, END_BIT) the sort orders by, so the passes, as constants of the pipeline (the
// runtime builds one per sorter, whose range is fixed): every loop over the passes then unrolls, each
// digit's shift, width and histogram offset are constants, and a key costs a field extraction, an
// address and a shared atomic per pass. (With the push constants' pass count the loop stayed a loop,
// and AMD's compiler kept the loops around it rolled too, each key picked out of its batch by a chain
// of selects: about 140 instructions ran per u32 key in whole blocks, against 26 now (RADV, RDNA 2;
// u64 keys about 320 against 59: scripts/amd_kernel_loops.py). An H200 took 0.905 ms for 2^28 u32 keys, CUB's histogram 0.452.)
layout(constant_id = SPEC_HISTOGRAM_BEGIN_BIT) const uint BEGIN_BIT = 0;
layout(constant_id = SPEC_HISTOGRAM_END_BIT) const uint END_BIT = 32 * KEY_WORDS;
const uint WG = gl_WorkGroupSize.x;
const uint RADIX = 1u << RADIX_BITS;
const uint PASSES = (END_BIT - BEGIN_BIT + RADIX_BITS - 1u) / RADIX_BITS;

// Every pass's histogram of this tile. GPUs add with shared atomics, into REPLICAS copies of each
// counter side by side, s_hist[(p * RADIX + digit) * REPLICAS + invocation % REPLICAS]: the lanes of a
// subgroup that share a digit (few on random keys; most of them on skewed keys, all where a digit is
// constant, e.g. the high bytes of small 64-bit keys) then share one word in REPLICAS instead of all
// in one, and a shared atomic serialises only over the lanes on one word; neighbouring lanes' copies
// also sit in neighbouring banks. The flush adds the copies up. CPU drivers (CONSECUTIVE, which the
// runtime sets only where the columns fit in shared memory beside s_hist) count one pass at a time, or
// two (COLUMN_PASSES, where their columns fit: count_run_in_columns), into per-invocation columns of
// 32-bit counters, s_col[d * WG + t], with plain increments, then add the columns up: on lavapipe a
// shared atomic is a loop of atomic operations over the lanes (2^20 keys, two rounds of 5 sorts,
// atomics / columns: u32 keys 15.0-15.4 / 11.6-11.7 ms, u32 pairs 15.2-15.4 / 11.8, u64 keys 29.7-30.3
// / 28.9-29.0; per-invocation columns of 16-bit counters for all passes at once took 1.6 times the
// atomics' time on an earlier host).
shared uint s_hist[PASSES * RADIX * REPLICAS];
shared uint s_col[CONSECUTIVE ? COLUMN_PASSES * RADIX * WG : 1u];
shared uint s_inversions;
shared bool s_defer;  // CPU drivers: this block's later reads wait for the second dispatch
shared uint s_padding;  // the key-by-key path's padding keys, counted as digit 0 of every pass


layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };
const uint CHUNK = 4u / KEY_WORDS;  // keys per two 8-byte loads
#include "radix/onesweep_bound.glsl"

// The caller's key i, and pair of words `at`, by address or binding (onesweep_bound.glsl).
Key raw_key(Keys keys, uint i) {
#if BOUND_BUFFERS
  return b_keys[BOUND_CALLER].k[i];
#else
  return keys.k[i];
#endif
}
uvec2 raw_pair(Pairs pairs, uint at) {
#if BOUND_BUFFERS
  return b_key_pairs[BOUND_CALLER].p[at];
#else
  return pairs.p[at];
#endif
}

// Keys a batch loads before counting any: loads in flight together (GPUs); unrolled, so no loop
// iterations on lavapipe's budget either.
const uint BATCH = 8u;
const uint CHUNK_BATCH = BATCH / CHUNK;  // chunks a batch loads

uint g_inversions = 0u;
Key g_range;

// Counts whether key k's successor (if any) is smaller on the ordered bits.
void count_inversion(Key k, Key next, bool has_next) {
  if (has_next && key_less(next & g_range, k & g_range)) ++g_inversions;
}

// Pass p's digit of key k.
uint pass_digit(Key k, uint p) {
  const uint shift = BEGIN_BIT + p * RADIX_BITS;
  return key_digit(k, shift, min(RADIX_BITS, END_BIT - shift));
}

// Counts key k's digit of every pass (into this invocation's copy).
void count_digits(Key k) {
  const uint replica = gl_LocalInvocationID.x % REPLICAS;
  [[unroll]] for (uint p = 0u; p < PASSES; ++p) atomicAdd(s_hist[(p * RADIX + pass_digit(k, p)) * REPLICAS + replica], 1u);
}

// CPU drivers (CONSECUTIVE): counts pass p's digits of this invocation's keys [first, end) into its
// column, s_col[d * WG + t], and with `two` pass p + 1's too, into s_col[(RADIX + d) * WG + t]; then the
// columns' sums into s_hist. With `check` (the first pass) also the adjacent inversions, the key after
// `end` included. Both flags are constants at each call, so no loop tests them per key. lavapipe at
// 2^20-2^22 keys: two passes per read took 0.44-0.71 of the histogram's time with one pass per read
// (bench/results/lavapipe-llvm15-2core_histogram-column-passes); a key's digit counted then cost 1.8
// times what it costs in reduce-then-scan's count.
void count_run_in_columns(uint p, uint first, uint end, uint n, const bool check, const bool two) {
  const uint t = gl_LocalInvocationID.x;
  const uint items = pc.hist_items;
  const uint counted = two ? 2u : 1u;
  Keys keys = Keys(pc.keys);
  for (uint d = 0u; d < counted * RADIX; ++d) s_col[d * WG + t] = 0u;  // own columns: no barrier needed
  // A whole run of whole chunks is read in two 8-byte loads per CHUNK keys (first is a multiple of
  // items, so of CHUNK, and the pairs are aligned): a CPU driver then loads a vector per lane
  // instead of gathering key by key, as the passes and reduce-then-scan's count do.
  if (end - first == items && items % CHUNK == 0u) {
    Pairs pairs = Pairs(pc.keys);
    // Each chunk's first key is the previous chunk's last key's successor; the run's last key's
    // successor is read alone.
    Key before = Key(0u);
    for (uint j = 0u; j < items; j += CHUNK) {
      const uint pair = (first + j) * KEY_WORDS / 2u;
      const uvec2 a = raw_pair(pairs, pair), b = raw_pair(pairs, pair + 1u);
#if KEY_WORDS == 1
      const Key k[CHUNK] = Key[](encode_key(a.x), encode_key(a.y), encode_key(b.x), encode_key(b.y));
#else
      const Key k[CHUNK] = Key[](encode_key(a), encode_key(b));
#endif
      [[unroll]] for (uint c = 0u; c < CHUNK; ++c) {
        if (check && (j != 0u || c != 0u)) count_inversion(c == 0u ? before : k[c - 1u], k[c], true);
        ++s_col[pass_digit(k[c], p) * WG + t];
        if (two) ++s_col[(RADIX + pass_digit(k[c], p + 1u)) * WG + t];
      }
      before = k[CHUNK - 1u];
    }
    if (check && end < n) count_inversion(before, encode_key(raw_key(keys, end)), true);
  } else {
    Key k = first < end ? encode_key(raw_key(keys, first)) : Key(0u);
    for (uint i = first; i < end; ++i) {
      Key next = k;
      if (i + 1u < end || (check && i + 1u < n)) next = encode_key(raw_key(keys, i + 1u));
      if (check) count_inversion(k, next, i + 1u < n);
      ++s_col[pass_digit(k, p) * WG + t];
      if (two) ++s_col[(RADIX + pass_digit(k, p + 1u)) * WG + t];
      k = next;
    }
  }
  // Every column of these passes is complete.
  barrier();
  for (uint d = t; d < counted * RADIX; d += WG) {
    uint sum = 0u;
    for (uint c = 0u; c < WG; ++c) sum += s_col[d * WG + c];
    s_hist[(p * RADIX + d) * REPLICAS] = sum;  // (d of the second pass is RADIX + its digit)
  }
  // The columns are read before the next passes clear them.
  barrier();
}

void main() {
  clock_start();
  const uint block = linear_group_id();
  const uint items = pc.hist_items;  // this dispatch's keys per invocation
  const uint block_keys = WG * items;
  const uint blocks = (pc.n + block_keys - 1u) / block_keys;  // of the most keys: the grid
  if (block >= blocks) return;
  const uint t = gl_LocalInvocationID.x;
  Words control = Words(pc.control);
  Words state = Words(pc.state);
  // CPU drivers: the deferred blocks' ids, where region 1 (tiles * RADIX words) holds them (their
  // blocks are a tile, or a part of one where lavapipe's loop budget asks: fewer than RADIX parts in
  // every shape vksort takes); else no block defers.
  Words deferred = Words(address_at(pc.state, pc.tiles, RADIX * 4u));
  const bool can_defer = CONSECUTIVE && blocks <= pc.tiles * RADIX;
  const bool second = CONSECUTIVE && pc.pass != 0u;
  // The second dispatch reads the deferred blocks' keys, the i-th workgroup the i-th block listed, once
  // the input is known to be out of order (read in the first dispatch, so the same for all invocations).
  if (second && (control.w[ONESWEEP_CONTROL_INVERSIONS] == 0u || block >= control.w[ONESWEEP_CONTROL_DEFERRED])) return;
  const uint at_block = second ? deferred.w[block] : block;
  if (!second)
    for (uint i = block * WG + t; i < pc.tiles * RADIX; i += blocks * WG) state.w[i] = 0u;
  for (uint i = t; i < PASSES * RADIX * REPLICAS; i += WG) s_hist[i] = 0u;
  if (t == 0u) s_inversions = 0u, s_padding = 0u;
  // The histograms and the inversion count are zero.
  barrier();
  clock_mark(ONESWEEP_HISTOGRAM_CLOCK_CLEAR);

  const uint n = Words(pc.control).w[RADIX_CONTROL_N];
  g_range = key_range_mask(pc.range_lo, pc.range_hi);
  Keys keys = Keys(pc.keys);
  const uint base = at_block * block_keys;
  if (CONSECUTIVE) {
    // Keys [first, end) of the block; the one after end only for the order check, in the first pass.
    const uint first = base + t * items;
    const uint end = first < n ? min(first + items, n) : first;
    // Passes in twos where the columns of two fit (the last alone when their number is odd).
    const bool twos = COLUMN_PASSES == 2u && PASSES >= 2u;
    const uint step = twos ? 2u : 1u;
    if (!second) {
      count_run_in_columns(0u, first, end, n, true, twos);
      // The block's inversions reported before its later reads, so that blocks after it need not defer.
      if (g_inversions != 0u) atomicAdd(s_inversions, g_inversions);
      g_inversions = 0u;
      barrier();
      if (t == 0u) {
        if (s_inversions != 0u) atomicAdd(control.w[ONESWEEP_CONTROL_INVERSIONS], s_inversions);
        // (An inversion another block reports after this read only costs its later reads a dispatch.)
        s_defer = can_defer && s_inversions == 0u &&
                  (pc.stall_percent != 0u || atomicAdd(control.w[ONESWEEP_CONTROL_INVERSIONS], 0u) == 0u);
        if (s_defer) deferred.w[atomicAdd(control.w[ONESWEEP_CONTROL_DEFERRED], 1u)] = block;
      }
      // The verdict is in.
      barrier();
    }
    if (second || !s_defer) {
      for (uint p = step; p + step <= PASSES; p += step) count_run_in_columns(p, first, end, n, false, twos);
      if (twos && PASSES % 2u == 1u) count_run_in_columns(PASSES - 1u, first, end, n, false, false);
    }
  }
  // GPUs: whole blocks whose keys per invocation are whole batches go in chunks, others (the last
  // block) key by key, keys base + j * WG + t. Both count BATCH keys at a time with one copy of the
  // unrolled counting (a copy per path took lavapipe 14% longer to compile test_radix_single_pass's
  // u32 matrix posing as a GPU, and would take twice the room in a GPU's instruction cache): the key-by-
  // key path pads its last batch with encoded zero keys, whose counts (digit 0 of every pass) the flush
  // takes back, so no key is checked on its own.
  const bool in_chunks = !CONSECUTIVE && base + block_keys <= n && items % BATCH == 0u;  // uniform
  const uint mine = !CONSECUTIVE && !in_chunks && base + t < n ? (n - base - t + WG - 1u) / WG : 0u;
  const uint count = in_chunks ? items : min(items, mine);  // this invocation's keys
  uint padding = 0u;
  Pairs pairs = Pairs(pc.keys);
  // (Loops of the plain form `i < constant`, which compilers unroll: every index a constant.)
  for (uint j0 = 0u; j0 < count; j0 += BATCH) {
    Key k[BATCH];
    if (in_chunks) {
      Key after[CHUNK_BATCH];
      [[unroll]] for (uint u = 0u; u < CHUNK_BATCH; ++u) {
        // The key addresses are 8-byte aligned and `first` is a multiple of CHUNK: aligned pairs.
        const uint first = base + ((j0 / CHUNK + u) * WG + t) * CHUNK;
        const uint pair = first * KEY_WORDS / 2u;
        const uvec2 a = raw_pair(pairs, pair), b = raw_pair(pairs, pair + 1u);
#if KEY_WORDS == 1
        k[u * CHUNK] = encode_key(a.x), k[u * CHUNK + 1u] = encode_key(a.y);
        k[u * CHUNK + 2u] = encode_key(b.x), k[u * CHUNK + 3u] = encode_key(b.y);
#else
        k[u * CHUNK] = encode_key(a), k[u * CHUNK + 1u] = encode_key(b);
#endif
        after[u] = first + CHUNK < n ? encode_key(raw_key(keys, first + CHUNK)) : Key(0u);
      }
      [[unroll]] for (uint u = 0u; u < CHUNK_BATCH; ++u) {
        const uint first = base + ((j0 / CHUNK + u) * WG + t) * CHUNK;
        [[unroll]] for (uint c = 1u; c < CHUNK; ++c) count_inversion(k[u * CHUNK + c - 1u], k[u * CHUNK + c], true);
        count_inversion(k[u * CHUNK + CHUNK - 1u], after[u], first + CHUNK < n);
      }
    } else {
      Key next[BATCH];
      [[unroll]] for (uint u = 0u; u < BATCH; ++u) {
        const uint i = base + (j0 + u) * WG + t;
        k[u] = Key(0u), next[u] = Key(0u);
        if (j0 + u < count) {
          k[u] = encode_key(raw_key(keys, i));
          if (i + 1u < n) next[u] = encode_key(raw_key(keys, i + 1u));
        }
      }
      [[unroll]] for (uint u = 0u; u < BATCH; ++u) {
        const uint i = base + (j0 + u) * WG + t;
        if (j0 + u < count) count_inversion(k[u], next[u], i + 1u < n);
      }
      if (j0 + BATCH > count) padding += j0 + BATCH - count;
    }
    [[unroll]] for (uint u = 0u; u < BATCH; ++u) count_digits(k[u]);
  }
  if (padding != 0u) atomicAdd(s_padding, padding);
  if (g_inversions != 0u) atomicAdd(s_inversions, g_inversions);
  // Every key of the block is counted.
  barrier();
  clock_mark(ONESWEEP_HISTOGRAM_CLOCK_COUNT);
  Words digits = Words(pc.digits);
  for (uint i = t; i < PASSES * RADIX; i += WG) {
    uint sum = 0u;
    for (uint r = 0u; r < REPLICAS; ++r) sum += s_hist[i * REPLICAS + r];
    if (i % RADIX == 0u) sum -= s_padding;  // (every replica's padding is in digit 0's sum)
    if (sum != 0u) atomicAdd(digits.w[i], sum);
  }
  // (CPU drivers reported theirs after the first read.)
  if (!CONSECUTIVE && t == 0u && s_inversions != 0u) atomicAdd(control.w[ONESWEEP_CONTROL_INVERSIONS], s_inversions);
  // The flush's atomics are issued, not necessarily done: its ticks are the issuing's.
  clock_barrier();
  clock_mark(ONESWEEP_HISTOGRAM_CLOCK_FLUSH);
  clock_publish(Words(pc.control), ONESWEEP_CONTROL_HISTOGRAM_CLOCKS, block);
}
