// SPDX-License-Identifier: MIT
#version 460
// Single-pass radix sort, one pass (one digit) per dispatch, ranking by counter columns: the shape for
// small workgroups whose invocations hold many keys each (CPU drivers such as lavapipe, which run a
// workgroup on one thread: nothing to coalesce, and every barrier visits every lane).
//
//   1. Take a tile id (onesweep_lookback.glsl). Invocation t counts its keys [t * ITEMS, (t + 1) * ITEMS)
//      of the tile (blocked, so invocation order is input order) into its own column s_col[d * WG + t].
//   2. Invocation t owns digit rows t * RADIX / WG, ...: each row's columns become exclusive offsets
//      within the tile's keys of that digit, and the row's sum the tile's count s_total[d].
//   3. Publish and look back with Decoupled Fallback: s_excl[d] = keys of digit d in earlier tiles.
//   4. Each key goes to digits[pass][d] (the digit's first position, from the histograms) + s_excl[d] +
//      its column's offset, incremented per key: stable, and every key read twice, written once.
#define PUSH_ONESWEEP
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/radix_digits.glsl"
#include "common/address.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint WG = gl_WorkGroupSize.x;
const uint TILE = WG * ITEMS;
const uint RADIX = 1u << RADIX_BITS;
const uint ROWS_PER_INVOCATION = RADIX / WG;  // the runtime ensures RADIX >= WG

#include "radix/onesweep_lookback.glsl"
#include "radix/onesweep_clocks.glsl"

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };
const uint CHUNK = 4u / KEY_WORDS;  // keys per two 8-byte loads

// Column t of digit d: s_col[d * WG + t]; a count after step 1, an offset after step 2, the next
// destination in step 4.
shared uint s_col[RADIX * WG];

Key encoded(Key k) { return g_encoded ? k : encode_key(k); }

// Sends key k (encoded) and its value to its column's next destination.
void send(Key k, uint value, Keys dst, Words dst_values, uint t) {
  const uint slot = onesweep_digit(k) * WG + t;
  const uint to = s_col[slot];
  s_col[slot] = to + 1u;
#if BOUND_BUFFERS
  const uint into = g_encoded ? BOUND_CALLER : BOUND_SCRATCH;
  b_keys[into].k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  b_values[into].w[to] = value;
#endif
#else
  dst.k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  dst_values.w[to] = value;
#endif
#endif
}
// The source's pair of words `at` (keys, values): from the scratch copy once the keys are encoded.
uvec2 source_pair(Pairs pairs, uint at) {
#if BOUND_BUFFERS
  return b_key_pairs[g_encoded ? BOUND_SCRATCH : BOUND_CALLER].p[at];
#else
  return pairs.p[at];
#endif
}
uvec2 source_value_pair(Words src_values, uint at) {
#if BOUND_BUFFERS
  return b_value_pairs[g_encoded ? BOUND_SCRATCH : BOUND_CALLER].p[at];
#else
  return Pairs(src_values).p[at];
#endif
}

void main() {
  clock_start();
  g_control = Words(pc.control);
  g_pass_words = ONESWEEP_CONTROL_PASSES + pc.pass * ONESWEEP_PASS_WORDS;
  g_n = g_control.w[RADIX_CONTROL_N];
  const uint tile = onesweep_take_tile();
  clock_mark(ONESWEEP_CLOCK_TAKE_TILE);
  if (tile * TILE >= g_n) return;  // uniform; a grid may hold more workgroups than tiles
  const uint t = gl_LocalInvocationID.x;
  g_encoded = g_control.w[g_pass_words + ONESWEEP_PASS_SOURCE] != 0u;
  g_src = Keys(g_encoded ? pc.alt_keys : pc.keys);
  g_shift = pc.begin_bit + pc.pass * RADIX_BITS;
  g_bits = min(RADIX_BITS, pc.end_bit - g_shift);
  const uint region = g_control.w[g_pass_words + ONESWEEP_PASS_REGION];
  Words state = Words(address_at(pc.state, region * pc.tiles, RADIX * 4u));
  Words next_state = Words(address_at(pc.state, (region ^ 1u) * pc.tiles, RADIX * 4u));

  const uint first = tile * TILE + t * ITEMS;
  const uint mine = first < g_n ? min(ITEMS, g_n - first) : 0u;

  // 1. Own column only: nobody else touches it before the barrier.
  for (uint d = 0u; d < RADIX; ++d) s_col[d * WG + t] = 0u;
  // Whole runs of ITEMS keys (ITEMS a multiple of 4) in two 8-byte loads per CHUNK keys: a CPU driver
  // then loads a vector per lane instead of gathering key by key (measured: the pass took 2.5 times as
  // long key by key).
  Pairs pairs = Pairs(g_encoded ? pc.alt_keys : pc.keys);
  const uint pair0 = first * KEY_WORDS / 2u;
  if (mine == ITEMS && ITEMS % CHUNK == 0u) {
    for (uint j = 0u; j < ITEMS; j += CHUNK) {
      const uvec2 a = source_pair(pairs, pair0 + j * KEY_WORDS / 2u), b = source_pair(pairs, pair0 + j * KEY_WORDS / 2u + 1u);
#if KEY_WORDS == 1
      ++s_col[onesweep_digit(encoded(a.x)) * WG + t], ++s_col[onesweep_digit(encoded(a.y)) * WG + t];
      ++s_col[onesweep_digit(encoded(b.x)) * WG + t], ++s_col[onesweep_digit(encoded(b.y)) * WG + t];
#else
      ++s_col[onesweep_digit(encoded(a)) * WG + t], ++s_col[onesweep_digit(encoded(b)) * WG + t];
#endif
    }
  } else {
    for (uint j = 0u; j < mine; ++j) ++s_col[onesweep_digit(onesweep_source_key(first + j)) * WG + t];
  }
  // Every column is complete.
  barrier();
  clock_mark(ONESWEEP_CLOCK_LOAD_COUNT);

  // 2. Rows to offsets within the tile's keys of the digit.
  for (uint r = 0u; r < ROWS_PER_INVOCATION; ++r) {
    const uint d = t * ROWS_PER_INVOCATION + r;
    uint sum = 0u;
    for (uint c = 0u; c < WG; ++c) {
      const uint keys_here = s_col[d * WG + c];
      s_col[d * WG + c] = sum;
      sum += keys_here;
    }
    s_total[d] = sum;
  }
  // s_total is complete (the look-back reads it by other owners).
  barrier();
  clock_mark(ONESWEEP_CLOCK_OFFSETS);

  // 3.
  publish_aggregate(tile, state);
  onesweep_look_back(tile, state, next_state);
  // 4. Destinations of the rows this invocation owns (s_excl was written by the look-back's owners of
  // these digits, another order: visible after this barrier).
  barrier();
  onesweep_count_rounds();
  Words digits = Words(pc.digits);
  for (uint r = 0u; r < ROWS_PER_INVOCATION; ++r) {
    const uint d = t * ROWS_PER_INVOCATION + r;
    const uint at = digits.w[pc.pass * RADIX + d] + s_excl[d];
    for (uint c = 0u; c < WG; ++c) s_col[d * WG + c] += at;
  }
  // Every destination is set.
  barrier();
  clock_mark(ONESWEEP_CLOCK_LOOK_BACK);

  Keys dst = Keys(g_encoded ? pc.keys : pc.alt_keys);
  Words src_values = Words(g_encoded ? pc.alt_values : pc.values);
  Words dst_values = Words(g_encoded ? pc.values : pc.alt_values);
  if (mine == ITEMS && ITEMS % CHUNK == 0u) {
    for (uint j = 0u; j < ITEMS; j += CHUNK) {
      const uvec2 a = source_pair(pairs, pair0 + j * KEY_WORDS / 2u), b = source_pair(pairs, pair0 + j * KEY_WORDS / 2u + 1u);
#if VALUE_WORDS == 1
      const uvec2 va = source_value_pair(src_values, (first + j) / 2u);
#if KEY_WORDS == 1
      const uvec2 vb = source_value_pair(src_values, (first + j) / 2u + 1u);
      send(encoded(a.x), va.x, dst, dst_values, t), send(encoded(a.y), va.y, dst, dst_values, t);
      send(encoded(b.x), vb.x, dst, dst_values, t), send(encoded(b.y), vb.y, dst, dst_values, t);
#else
      send(encoded(a), va.x, dst, dst_values, t), send(encoded(b), va.y, dst, dst_values, t);
#endif
#else
#if KEY_WORDS == 1
      send(encoded(a.x), 0u, dst, dst_values, t), send(encoded(a.y), 0u, dst, dst_values, t);
      send(encoded(b.x), 0u, dst, dst_values, t), send(encoded(b.y), 0u, dst, dst_values, t);
#else
      send(encoded(a), 0u, dst, dst_values, t), send(encoded(b), 0u, dst, dst_values, t);
#endif
#endif
    }
  } else {
    for (uint j = 0u; j < mine; ++j) {
      uint value = 0u;
#if VALUE_WORDS == 1
      value = src_values.w[first + j];
#endif
      send(onesweep_source_key(first + j), value, dst, dst_values, t);
    }
  }
  // Columns rank while writing: the write phase holds both.
  clock_barrier();
  clock_mark(ONESWEEP_CLOCK_WRITE);
  clock_publish(g_control, ONESWEEP_CONTROL_CLOCKS, tile);
}
