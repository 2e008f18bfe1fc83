// SPDX-License-Identifier: MIT
#version 460
// Radix sort (reduce-then-scan), step 3 of a pass: each workgroup walks its range of tiles (blocks of
// BLOCK = WORKGROUP_SIZE * ITEMS keys) in order; it reloads each from the pass's source buffer, sorts it
// by the pass's digit in shared memory, stably, and writes each key (and value) to the other buffer at
//     P_d[group] + (its rank among the group's keys of digit d)        (Ha et al. equation 1)
// where P_d[group] is the scanned spine (digit-major group counts), and the rank is the keys of digit
// d in the group's earlier tiles plus the rank within the tile. The block-local sort is a sequence of four-way
// splits, one per 2 bits of the digit, least significant first (Algorithm 2: counts of the four
// values, their prefix sum, a stable shuffle in shared memory). Because the block ends up sorted by
// digit, keys of one digit sit in one run and go to consecutive addresses: the coalesced cluster-wise
// mapping of section 4.6 / Algorithm 4 (whose alignment step only mattered for 2009 coalescing rules).
//
// Encoding: scratch holds encoded keys, the caller's buffer raw ones; encode on reading the caller's
// keys, decode on writing them, so the last scatter that lands in the caller's buffer decodes.
//
// Built per key width (KEY_WORDS) and with or without a value (VALUE_WORDS 0 or 1): in shared memory
// an item is the key followed by its value, moved as one, and read four words at a time. Items stay
// in shared memory between splits (two buffers: a split reads one and writes the other), so no
// invocation holds more than a few values across a barrier, and ITEMS is not limited by registers.
#define PUSH_RADIX
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/radix_digits.glsl"

#if KEY_WORDS + VALUE_WORDS == 3
#define ITEM_WORDS 4  // key, value, one unused word: items stay 16-byte aligned
#else
#define ITEM_WORDS (KEY_WORDS + VALUE_WORDS)
#endif

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;  // a multiple of 4 (the runtime ensures it)
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint WG = gl_WorkGroupSize.x;
const uint BLOCK = WG * ITEMS;
const uint RADIX = 1u << RADIX_BITS;
const uint DIGITS_PER_INVOCATION = RADIX > WG ? RADIX / WG : 1u;
const uint BUFFER_VEC4S = BLOCK * ITEM_WORDS / 4u;  // 16-byte words per buffer
const uint MINE_VEC4S = ITEMS * ITEM_WORDS / 4u;    // ... per invocation's slots

// Two buffers of the block's items in slot order, as 16-byte words: in buffer b, item i is words
// [i, i + 1) * ITEM_WORDS of the flat view starting at b * BUFFER_VEC4S. Before split s the items sit
// in buffer s % 2, slot i holding the item of rank i in the order so far.
shared uvec4 s_items[2u * BUFFER_VEC4S];
// Per digit d, first the sorted tile's run of d, slots [start, end), as start | end << 16 (0 if the digit
// is absent; a tile holds at most 2^15 keys), set by the invocations whose slots start and end the run;
// then, set by d's owner (invocation d / DIGITS_PER_INVOCATION), where the run goes: slot i of digit d
// goes to s_offset[d] + i.
shared uint s_offset[RADIX];

// Four 16-bit counters (one per 2-bit value) packed in a uvec2: x = values 0, 1; y = values 2, 3.
// A block holds at most 2^15 keys, so no counter or prefix overflows into its neighbour.
#define WG_SCAN_T uvec2
#include "common/workgroup_scan.glsl"

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };

uvec2 unit(uint v) {
  const uint one = 1u << ((v & 1u) * 16u);
  return v < 2u ? uvec2(one, 0u) : uvec2(0u, one);
}
uint field(uvec2 packed, uint v) { return ((v < 2u ? packed.x : packed.y) >> ((v & 1u) * 16u)) & 0xffffu; }

void put_word(uint w, uint v) { s_items[w >> 2][w & 3u] = v; }
uint get_word(uint w) { return s_items[w >> 2][w & 3u]; }

// Items per 16-byte word (4, 2 or 1), and the key and value of item k of a word.
#if ITEM_WORDS == 1
#define ITEMS_PER_VEC4 4u
#elif ITEM_WORDS == 2
#define ITEMS_PER_VEC4 2u
#else
#define ITEMS_PER_VEC4 1u
#endif
Key vec4_key(uvec4 w, uint k) {
#if ITEM_WORDS == 1
  return w[k];
#elif ITEM_WORDS == 2 && KEY_WORDS == 1
  return k == 0u ? w.x : w.z;
#elif ITEM_WORDS == 2
  return k == 0u ? w.xy : w.zw;
#else
  return w.xy;
#endif
}
uint vec4_value(uvec4 w, uint k) {
#if ITEM_WORDS == 2 && KEY_WORDS == 1
  return k == 0u ? w.y : w.w;
#else
  return w.z;
#endif
}

// Loads the block into buffer 0 (keys encoded; KEY_MAX past `count`, whose digits are all maximal,
// so every split keeps those slots last). Invocation t takes 16-byte words t + j * WORKGROUP_SIZE.
void load_block(uvec2 src_keys, uvec2 src_values, bool from_scratch, uint base, uint count) {
  const uint t = invocation_rank();
  for (uint j = 0u; j < BUFFER_VEC4S / WG; ++j) {
    const uint q = t + j * WG;
    const uint slot = q * ITEMS_PER_VEC4;  // first item in this word
    uvec4 w = uvec4(0u);
    if (count == BLOCK) {
      // Full block (uniform branch): 8-byte loads, aligned because the addresses are and slot is even.
#if ITEM_WORDS == 1
      const uvec2 a = Pairs(src_keys).p[(base + slot) / 2u], b = Pairs(src_keys).p[(base + slot) / 2u + 1u];
      w = uvec4(a, b);
#elif ITEM_WORDS == 2 && KEY_WORDS == 1
      const uvec2 k = Pairs(src_keys).p[(base + slot) / 2u], v = Pairs(src_values).p[(base + slot) / 2u];
      w = uvec4(k.x, v.x, k.y, v.y);
#elif ITEM_WORDS == 2
      w = uvec4(Keys(src_keys).k[base + slot], Keys(src_keys).k[base + slot + 1u]);
#else
      w = uvec4(Keys(src_keys).k[base + slot], Words(src_values).w[base + slot], 0u);
#endif
    } else {
      for (uint k = 0u; k < ITEMS_PER_VEC4; ++k) {
        if (slot + k < count) {
#if KEY_WORDS == 1
          w[k * ITEM_WORDS] = Keys(src_keys).k[base + slot + k];
#else
          const uvec2 key = Keys(src_keys).k[base + slot + k];
          w[k * ITEM_WORDS] = key.x, w[k * ITEM_WORDS + 1u] = key.y;
#endif
#if VALUE_WORDS == 1
          w[k * ITEM_WORDS + KEY_WORDS] = Words(src_values).w[base + slot + k];
#endif
        }
      }
    }
    // Encode, and pad.
    for (uint k = 0u; k < ITEMS_PER_VEC4; ++k) {
#if KEY_WORDS == 1
      const Key raw = w[k * ITEM_WORDS];
      w[k * ITEM_WORDS] = slot + k >= count ? KEY_MAX : from_scratch ? raw : encode_key(raw);
#else
      const Key raw = uvec2(w[k * ITEM_WORDS], w[k * ITEM_WORDS + 1u]);
      const Key e = slot + k >= count ? KEY_MAX : from_scratch ? raw : encode_key(raw);
      w[k * ITEM_WORDS] = e.x, w[k * ITEM_WORDS + 1u] = e.y;
#endif
    }
    s_items[q] = w;
  }
}

Key slot_key(uint words, uint i) {
  const uint w = words + i * ITEM_WORDS;
#if KEY_WORDS == 1
  return get_word(w);
#else
  return uvec2(get_word(w), get_word(w + 1u));
#endif
}

void main() {
  const uint group = linear_group_id();
  if (group >= pc.groups) return;
  invocation_rank_init();
  const uint t = invocation_rank();
  const bool from_scratch = Words(pc.control).w[RADIX_CONTROL_PASS_SOURCE] != 0u;
  Keys dst = Keys(from_scratch ? pc.keys : pc.alt_keys);
  Words dst_values = Words(from_scratch ? pc.values : pc.alt_values);
  Words counts = Words(pc.counts);
  const uint n = Words(pc.control).w[RADIX_CONTROL_N];

  // Where the group's next key of each digit this invocation owns goes, after its tiles so far.
  uint next[DIGITS_PER_INVOCATION];
  for (uint k = 0u; k < DIGITS_PER_INVOCATION; ++k) {
    const uint d = t * DIGITS_PER_INVOCATION + k;
    next[k] = d < RADIX ? counts.w[d * pc.groups + group] : 0u;
  }
  const uint first_tile = group * pc.tiles_per_group;
  const uint end_tile = min(first_tile + pc.tiles_per_group, pc.blocks);
  for (uint tile = first_tile; tile < end_tile; ++tile) {
    const uint base = tile * BLOCK;
    // Tiles past the keys (a GPU-side count below the most keys) hold none.
    const uint count = base < n ? min(BLOCK, n - base) : 0u;
    // The previous tile's readers of these finished before the barrier ending it.
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; ++k) {
      const uint d = t * DIGITS_PER_INVOCATION + k;
      if (d < RADIX) s_offset[d] = 0u;
    }
    load_block(from_scratch ? pc.alt_keys : pc.keys, from_scratch ? pc.alt_values : pc.values, from_scratch, base,
               count);
    // Buffer 0 is complete (and the run bounds cleared) before the splits read it.
    barrier();

    // Invocation t owns slots [t * ITEMS, (t + 1) * ITEMS) of the current order: blocked, so that the
    // prefix over invocations counts exactly the keys before each one and every split is stable.
    const uint mine = t * MINE_VEC4S;
    uint from = 0u;  // buffer holding the current order
    for (uint s = 0u; s < pc.bits; s += 2u) {
      const uint shift = pc.shift + s, width = min(2u, pc.bits - s);
      const uint src = from * BUFFER_VEC4S + mine, to = (from ^ 1u) * BUFFER_VEC4S * 4u;
      uvec2 counters = uvec2(0u);
      for (uint q = 0u; q < MINE_VEC4S; ++q) {
        const uvec4 w = s_items[src + q];
        for (uint k = 0u; k < ITEMS_PER_VEC4; ++k) counters += unit(key_digit(vec4_key(w, k), shift, width));
      }
      // Every invocation's counters are in before the scan reads them. (Nobody writes buffer `from`
      // in this split, and buffer `from ^ 1` was last read before the previous split's barrier.)
      uvec2 total;
      uvec2 rank = workgroup_exclusive_scan(counters, total);
      // Value v's run starts after all keys of smaller values: add those totals to each counter.
      const uint t0 = total.x & 0xffffu, t01 = t0 + (total.x >> 16), t012 = t01 + (total.y & 0xffffu);
      rank += uvec2(t0 << 16, t01 | (t012 << 16));
      for (uint q = 0u; q < MINE_VEC4S; ++q) {
        const uvec4 w = s_items[src + q];
        for (uint k = 0u; k < ITEMS_PER_VEC4; ++k) {
          const Key key = vec4_key(w, k);
          const uint v = key_digit(key, shift, width);
          const uint slot = field(rank, v);
          rank += unit(v);
#if ITEM_WORDS == 4
          // An item fills its 16-byte word: one store moves it whole (key, value and the unused word).
          s_items[(to >> 2) + slot] = w;
#elif KEY_WORDS == 1
          put_word(to + slot * ITEM_WORDS, key);
#else
          put_word(to + slot * ITEM_WORDS, key.x);
          put_word(to + slot * ITEM_WORDS + 1u, key.y);
#endif
#if VALUE_WORDS == 1 && ITEM_WORDS != 4
          put_word(to + slot * ITEM_WORDS + KEY_WORDS, vec4_value(w, k));
#endif
        }
      }
      from ^= 1u;
      // The shuffled tile is complete before the next split or the run bounds read it.
      barrier();
    }

    // The tile is sorted by digit: each digit's run is where its digit differs from its neighbours'.
    const uint words = from * BUFFER_VEC4S * 4u;
    for (uint j = 0u; j < ITEMS; ++j) {
      const uint i = t + j * WG;
      if (i < count) {
        const uint d = key_digit(slot_key(words, i), pc.shift, pc.bits);
        if (i == 0u || key_digit(slot_key(words, i - 1u), pc.shift, pc.bits) != d) atomicOr(s_offset[d], i);
        if (i + 1u == count || key_digit(slot_key(words, i + 1u), pc.shift, pc.bits) != d)
          atomicOr(s_offset[d], (i + 1u) << 16);
      }
    }
    // Every run bound is in.
    barrier();
    for (uint k = 0u; k < DIGITS_PER_INVOCATION; ++k) {
      const uint d = t * DIGITS_PER_INVOCATION + k;
      if (d < RADIX) {
        const uint start = s_offset[d] & 0xffffu, end = s_offset[d] >> 16;
        s_offset[d] = next[k] - start;
        next[k] += end - start;
      }
    }
    // Every offset is in.
    barrier();

    // Coalesced write-out: consecutive invocations take consecutive slots, so each digit's run is
    // written to consecutive addresses.
    for (uint j = 0u; j < ITEMS; ++j) {
      const uint i = t + j * WG;
      if (i < count) {
        const Key k = slot_key(words, i);
        const uint to = s_offset[key_digit(k, pc.shift, pc.bits)] + i;
        dst.k[to] = from_scratch ? decode_key(k) : k;
#if VALUE_WORDS == 1
        dst_values.w[to] = get_word(words + i * ITEM_WORDS + KEY_WORDS);
#endif
      }
    }
    // The write-out has read the tile and the offsets before the next tile overwrites them.
    barrier();
  }
}
