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
// of 8. The last block, and blocks whose keys per invocation are no multiple of CHUNK, go key by key
// (key base + j * WG + t), each key's successor loaded apart. CPU drivers (CONSECUTIVE) give each invocation a
// run of consecutive keys, whose successor is the next key of the run: one load per key instead of
// two, and on lavapipe every load is a loop over the lanes.
// The caller's buffer holds raw keys: this kernel encodes what it reads.
#define PUSH_ONESWEEP
#extension GL_EXT_control_flow_attributes : require
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/radix_digits.glsl"
#include "radix/onesweep_clocks.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
layout(constant_id = SPEC_CONSECUTIVE) const bool CONSECUTIVE = false;
layout(constant_id = SPEC_HISTOGRAM_REPLICAS) const uint REPLICAS = 1;  // CONSECUTIVE: 1
const uint WG = gl_WorkGroupSize.x;
const uint RADIX = 1u << RADIX_BITS;
const uint MAX_PASSES = (32u * KEY_WORDS + RADIX_BITS - 1u) / RADIX_BITS;

// Every pass's histogram of this tile. GPUs add with shared atomics, into REPLICAS copies of each
// counter side by side, s_hist[(p * RADIX + digit) * REPLICAS + invocation % REPLICAS]: the lanes of a
// subgroup that share a digit (few on random keys; most of them on skewed keys, all where a digit is
// constant, e.g. the high bytes of small 64-bit keys) then share one word in REPLICAS instead of all
// in one, and a shared atomic serialises only over the lanes on one word; neighbouring lanes' copies
// also sit in neighbouring banks. The flush adds the copies up. CPU drivers (CONSECUTIVE, which the runtime sets only
// where the columns fit in shared memory beside s_hist) count one pass at a time into
// per-invocation columns of 32-bit counters, s_col[d * WG + t], with plain increments, then add the
// columns up: on lavapipe a shared atomic is a loop of atomic operations over the lanes (2^20 keys,
// two rounds of 5 sorts, atomics / columns: u32 keys 15.0-15.4 / 11.6-11.7 ms, u32 pairs 15.2-15.4 /
// 11.8, u64 keys 29.7-30.3 / 28.9-29.0; per-invocation columns of 16-bit counters for all passes at
// once took 1.6 times the atomics' time on an earlier host).
shared uint s_hist[MAX_PASSES * RADIX * REPLICAS];
shared uint s_col[CONSECUTIVE ? RADIX * WG : 1u];
shared uint s_inversions;


layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };
const uint CHUNK = 4u / KEY_WORDS;  // keys per two 8-byte loads

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

// Counts key k's digit of every pass (into this invocation's copy), and the order check.
void count_key(Key k, Key next, bool has_next) {
  count_inversion(k, next, has_next);
  const uint replica = gl_LocalInvocationID.x % REPLICAS;
  for (uint p = 0u; p < pc.passes; ++p) {
    const uint shift = pc.begin_bit + p * RADIX_BITS;
    atomicAdd(s_hist[(p * RADIX + key_digit(k, shift, min(RADIX_BITS, pc.end_bit - shift))) * REPLICAS + replica], 1u);
  }
}

void main() {
  clock_start();
  const uint block = linear_group_id();
  const uint items = pc.hist_items;  // this dispatch's keys per invocation
  const uint block_keys = WG * items;
  const uint blocks = (pc.n + block_keys - 1u) / block_keys;  // of the most keys: the grid
  if (block >= blocks) return;
  const uint t = gl_LocalInvocationID.x;
  Words state = Words(pc.state);
  for (uint i = block * WG + t; i < pc.tiles * RADIX; i += blocks * WG) state.w[i] = 0u;
  for (uint i = t; i < pc.passes * RADIX * REPLICAS; i += WG) s_hist[i] = 0u;
  if (t == 0u) s_inversions = 0u;
  // The histograms and the inversion count are zero.
  barrier();
  clock_mark(ONESWEEP_HISTOGRAM_CLOCK_CLEAR);

  const uint n = Words(pc.control).w[RADIX_CONTROL_N];
  g_range = key_range_mask(pc.range_lo, pc.range_hi);
  Keys keys = Keys(pc.keys);
  const uint base = block * block_keys;
  if (CONSECUTIVE) {
    // Keys [first, end) of the block; the one after end only for the order check, in the first pass.
    const uint first = base + t * items;
    const uint end = first < n ? min(first + items, n) : first;
    // A whole run of whole chunks is read in two 8-byte loads per CHUNK keys (first is a multiple of
    // items, so of CHUNK, and the pairs are aligned): a CPU driver then loads a vector per lane
    // instead of gathering key by key, as the passes and reduce-then-scan's count do.
    const bool in_pairs = end - first == items && items % CHUNK == 0u;
    Pairs pairs = Pairs(pc.keys);
    for (uint p = 0u; p < pc.passes; ++p) {
      const uint shift = pc.begin_bit + p * RADIX_BITS;
      const uint width = min(RADIX_BITS, pc.end_bit - shift);
      for (uint d = 0u; d < RADIX; ++d) s_col[d * WG + t] = 0u;  // own column: no barrier needed
      if (in_pairs) {
        // Each chunk's first key is the previous chunk's last key's successor; the run's last key's
        // successor is read alone.
        Key before = Key(0u);
        for (uint j = 0u; j < items; j += CHUNK) {
          const uint pair = (first + j) * KEY_WORDS / 2u;
          const uvec2 a = pairs.p[pair], b = pairs.p[pair + 1u];
#if KEY_WORDS == 1
          const Key k[CHUNK] = Key[](encode_key(a.x), encode_key(a.y), encode_key(b.x), encode_key(b.y));
#else
          const Key k[CHUNK] = Key[](encode_key(a), encode_key(b));
#endif
          [[unroll]] for (uint c = 0u; c < CHUNK; ++c) {
            if (p == 0u && (j != 0u || c != 0u)) count_inversion(c == 0u ? before : k[c - 1u], k[c], true);
            ++s_col[key_digit(k[c], shift, width) * WG + t];
          }
          before = k[CHUNK - 1u];
        }
        if (p == 0u && end < n) count_inversion(before, encode_key(keys.k[end]), true);
      } else {
        Key k = first < end ? encode_key(keys.k[first]) : Key(0u);
        for (uint i = first; i < end; ++i) {
          Key next = k;
          if (i + 1u < end || (p == 0u && i + 1u < n)) next = encode_key(keys.k[i + 1u]);
          if (p == 0u) count_inversion(k, next, i + 1u < n);
          ++s_col[key_digit(k, shift, width) * WG + t];
          k = next;
        }
      }
      // Every column of this pass is complete.
      barrier();
      for (uint d = t; d < RADIX; d += WG) {
        uint sum = 0u;
        for (uint c = 0u; c < WG; ++c) sum += s_col[d * WG + c];
        s_hist[(p * RADIX + d) * REPLICAS] = sum;
      }
      // The columns are read before the next pass clears them.
      barrier();
    }
  }
  const bool in_chunks = !CONSECUTIVE && base + block_keys <= n && items % CHUNK == 0u;  // uniform
  if (in_chunks) {
    Pairs pairs = Pairs(pc.keys);
    const uint chunks = items / CHUNK;  // per invocation
    for (uint j0 = 0u; j0 < chunks; j0 += CHUNK_BATCH) {
      Key k[CHUNK_BATCH * CHUNK], after[CHUNK_BATCH];
      [[unroll]] for (uint u = 0u; u < CHUNK_BATCH; ++u) {
        after[u] = Key(0u);
        if (j0 + u < chunks) {
          // The key addresses are 8-byte aligned and `first` is a multiple of CHUNK: aligned pairs.
          const uint first = base + ((j0 + u) * WG + t) * CHUNK;
          const uint pair = first * KEY_WORDS / 2u;
          const uvec2 a = pairs.p[pair], b = pairs.p[pair + 1u];
#if KEY_WORDS == 1
          k[u * CHUNK] = encode_key(a.x), k[u * CHUNK + 1u] = encode_key(a.y);
          k[u * CHUNK + 2u] = encode_key(b.x), k[u * CHUNK + 3u] = encode_key(b.y);
#else
          k[u * CHUNK] = encode_key(a), k[u * CHUNK + 1u] = encode_key(b);
#endif
          if (first + CHUNK < n) after[u] = encode_key(keys.k[first + CHUNK]);
        }
      }
      [[unroll]] for (uint u = 0u; u < CHUNK_BATCH; ++u) {
        if (j0 + u < chunks) {
          const uint first = base + ((j0 + u) * WG + t) * CHUNK;
          [[unroll]] for (uint c = 0u; c + 1u < CHUNK; ++c) count_key(k[u * CHUNK + c], k[u * CHUNK + c + 1u], true);
          count_key(k[u * CHUNK + CHUNK - 1u], after[u], first + CHUNK < n);
        }
      }
    }
  }
  // Key by key: keys j * WG + t of the block.
  const uint mine = !CONSECUTIVE && !in_chunks && base + t < n ? (n - base - t + WG - 1u) / WG : 0u;
  const uint count = min(items, mine);
  for (uint j0 = 0u; j0 < count; j0 += BATCH) {
    Key k[BATCH], next[BATCH];
    [[unroll]] for (uint u = 0u; u < BATCH; ++u) {
      const uint i = base + (j0 + u) * WG + t;
      if (j0 + u < count) {
        k[u] = encode_key(keys.k[i]);
        if (i + 1u < n) next[u] = encode_key(keys.k[i + 1u]);
      }
    }
    [[unroll]] for (uint u = 0u; u < BATCH; ++u) {
      const uint i = base + (j0 + u) * WG + t;
      if (j0 + u < count) count_key(k[u], next[u], i + 1u < n);
    }
  }
  if (g_inversions != 0u) atomicAdd(s_inversions, g_inversions);
  // Every key of the block is counted.
  barrier();
  clock_mark(ONESWEEP_HISTOGRAM_CLOCK_COUNT);
  Words digits = Words(pc.digits);
  for (uint i = t; i < pc.passes * RADIX; i += WG) {
    uint sum = 0u;
    for (uint r = 0u; r < REPLICAS; ++r) sum += s_hist[i * REPLICAS + r];
    if (sum != 0u) atomicAdd(digits.w[i], sum);
  }
  if (t == 0u && s_inversions != 0u) atomicAdd(Words(pc.control).w[ONESWEEP_CONTROL_INVERSIONS], s_inversions);
  // The flush's atomics are issued, not necessarily done: its ticks are the issuing's.
  clock_barrier();
  clock_mark(ONESWEEP_HISTOGRAM_CLOCK_FLUSH);
  clock_publish(Words(pc.control), ONESWEEP_CONTROL_HISTOGRAM_CLOCKS, block);
}
