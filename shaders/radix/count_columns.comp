// SPDX-License-Identifier: MIT
#version 460
// Radix sort (reduce-then-scan), step 1 of a pass, for tiles ranked by counter columns
// (scatter_columns.comp): the same output as count.comp (each group's digit histogram over its range of
// tiles, digit-major, and its adjacent inversions), plus, for the scatter, where every column's first key
// of each digit goes within the group. Invocation t counts the keys [t * ITEMS, (t + 1) * ITEMS) of each
// tile into its own column of 32-bit counters, s_count[d * WG + t], and writes the column out to
// columns[tile][d][t]. After the group's last tile, invocation t owns digit rows t * RADIX / WG, ...: it
// walks each row across the group's tiles and columns in order and turns every count into the keys of
// that digit before it in the group (an exclusive scan), the row's total going to the spine. Small
// workgroups of many keys each: count.comp's 8-bit counters would overflow, and its column sums assume
// many invocations to share them.
//
// The tile loop has no barrier: only invocation t touches column t until the loop ends. (lavapipe runs
// a workgroup's lanes as coroutines that switch at each barrier; a barrier inside the tile loop made this
// kernel a third slower there, measured.)
//
// The order check: an inversion is a pair (key i, key i + 1) with key i + 1 < key i on the ordered
// bits, counted for pairs starting in the group's tiles (so the pair across the next tile boundary too).
#define PUSH_RADIX
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/radix_digits.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;  // a multiple of 4 (the runtime ensures it)
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint WG = gl_WorkGroupSize.x;
const uint BLOCK = WG * ITEMS;
const uint RADIX = 1u << RADIX_BITS;
const uint CHUNK = 4u / KEY_WORDS;            // keys per two 8-byte loads
const uint ROWS_PER_INVOCATION = RADIX / WG;  // the runtime ensures RADIX >= WG

shared uint s_count[RADIX * WG];

#define WG_SCAN_T uint
#include "common/workgroup_scan.glsl"

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };
// The columns: written by one invocation, then read back by another of the group after the barrier,
// which makes the writes visible only to coherent reads.
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer ColumnWords { uint w[]; };

bool g_encoded;
Key g_range;
uint g_inversions = 0u;

Key encoded(Key k) { return g_encoded ? k : encode_key(k); }

// Counts key k into column t, and whether its successor is smaller on the ordered bits.
void count_key(Key k, Key next, uint t) {
  ++s_count[key_digit(k, pc.shift, pc.bits) * WG + t];
  if (key_less(next & g_range, k & g_range)) ++g_inversions;
}

void main() {
  const uint group = linear_group_id();
  if (group >= pc.groups) return;
  invocation_rank_init();
  const uint t = invocation_rank();
  g_encoded = Words(pc.control).w[RADIX_CONTROL_CURRENT] != 0u;
  g_range = key_range_mask(pc.range_lo, pc.range_hi);
  const uvec2 address = g_encoded ? pc.alt_keys : pc.keys;
  Keys keys = Keys(address);
  Pairs pairs = Pairs(address);
  Words counts = Words(pc.counts);
  ColumnWords columns = ColumnWords(pc.columns);
  const uint n = Words(pc.control).w[RADIX_CONTROL_N];

  for (uint d = 0u; d < RADIX; ++d) s_count[d * WG + t] = 0u;
  const uint first_tile = group * pc.tiles_per_group;
  const uint end_tile = min(first_tile + pc.tiles_per_group, pc.blocks);
  for (uint tile = first_tile; tile < end_tile; ++tile) {
    // Tiles past the keys (a GPU-side count below the most keys) hold none.
    const uint base = tile * BLOCK;
    const uint count = base < n ? min(BLOCK, n - base) : 0u;
    const uint first = base + t * ITEMS;
    const uint mine = min(ITEMS, count - min(count, t * ITEMS));
    if (mine > 0u) {
      // The key after this invocation's last one (the next tile's first for the last invocation), or
      // KEY_MAX past the end, which is never an inversion.
      const uint last = first + mine - 1u;
      const Key after = last + 1u < n ? encoded(keys.k[last + 1u]) : KEY_MAX;
      if (mine == ITEMS) {
        // Two 8-byte loads per chunk, aligned since first is a multiple of 4; each chunk's last key
        // pairs with the next chunk's first, kept from the previous round.
        const uint pair0 = first * KEY_WORDS / 2u;
        uvec2 a = pairs.p[pair0], b = pairs.p[pair0 + 1u];
        for (uint j = 0u; j < ITEMS; j += CHUNK) {
          uvec2 na = uvec2(0u), nb = uvec2(0u);
          if (j + CHUNK < ITEMS) na = pairs.p[pair0 + (j + CHUNK) * KEY_WORDS / 2u], nb = pairs.p[pair0 + (j + CHUNK) * KEY_WORDS / 2u + 1u];
#if KEY_WORDS == 1
          const Key k0 = encoded(a.x), k1 = encoded(a.y), k2 = encoded(b.x), k3 = encoded(b.y);
          const Key next = j + CHUNK < ITEMS ? encoded(na.x) : after;
          count_key(k0, k1, t), count_key(k1, k2, t), count_key(k2, k3, t), count_key(k3, next, t);
#else
          const Key k0 = encoded(a), k1 = encoded(b);
          const Key next = j + CHUNK < ITEMS ? encoded(na) : after;
          count_key(k0, k1, t), count_key(k1, next, t);
#endif
          a = na, b = nb;
        }
      } else {
        Key k = encoded(keys.k[first]);
        for (uint j = 0u; j < mine; ++j) {
          const Key next = j + 1u < mine ? encoded(keys.k[first + j + 1u]) : after;
          count_key(k, next, t);
          k = next;
        }
      }
    }
    // The column out (consecutive invocations write consecutive words), cleared for the next tile.
    for (uint d = 0u; d < RADIX; ++d) {
      columns.w[tile * (RADIX * WG) + d * WG + t] = s_count[d * WG + t];
      s_count[d * WG + t] = 0u;
    }
  }
  // Every column of every tile is in memory and visible to the whole group.
  memoryBarrierBuffer();
  barrier();
  // Each owned row across the group's (tile, column) pairs in order: counts become exclusive prefixes.
  for (uint r = 0u; r < ROWS_PER_INVOCATION; ++r) {
    const uint d = t * ROWS_PER_INVOCATION + r;
    uint sum = 0u;
    for (uint tile = first_tile; tile < end_tile; ++tile)
      for (uint c = 0u; c < WG; ++c) {
        const uint at = tile * (RADIX * WG) + d * WG + c;
        const uint keys_here = columns.w[at];
        columns.w[at] = sum;
        sum += keys_here;
      }
    counts.w[d * pc.groups + group] = sum;
  }
  // The group's inversions.
  uint inversions;
  workgroup_exclusive_scan(g_inversions, inversions);
  if (t == 0u) counts.w[RADIX * pc.groups + group] = inversions;
}
