// SPDX-License-Identifier: MIT
#version 460
// Radix sort (reduce-then-scan), step 1 of a pass: each workgroup reads its contiguous range of tiles
// (blocks of BLOCK = WORKGROUP_SIZE * ITEMS keys; pc.tiles_per_group of them) from the current buffer
// and writes
//  - its digit histogram over all of them, digit-major: counts[digit * groups + group] (Ha et al.
//    section 4.4 with groups for blocks: one prefix sum over this layout, the spine, gives every
//    group's output offset per digit, P_d[group]);
//  - its adjacent inversions (key i+1 < key i on the ordered bits, for pairs starting in its tiles, so
//    the pair across the next tile boundary too) in the extra row counts[RADIX * groups + group].
// The order check thus rides on the read the histogram needs anyway, and the spine sums it in parallel.
//
// No atomics: per tile, invocation t counts into its own column of 8-bit counters (ITEMS <= 255), then
// the columns are summed digit row by digit row into the group's 32-bit totals. Full tiles read keys in
// chunks of two 8-byte words (4 keys of 32 bits or 2 of 64), chunk c = t + j * WORKGROUP_SIZE:
// consecutive invocations read consecutive chunks, and only a chunk's last key needs one more load for
// its neighbour. The last, partial tile takes a plain path, one key at a time. (Both choices are
// uniform per workgroup: branches that diverge inside a workgroup cost both sides on
// SIMD-per-workgroup drivers.)
#define PUSH_RADIX
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/radix_digits.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint WG = gl_WorkGroupSize.x;
const uint BLOCK = WG * ITEMS;
const uint RADIX = 1u << RADIX_BITS;
const uint CHUNK = 4u / KEY_WORDS;  // keys per chunk: two uvec2 loads
const uint CHUNKS = ITEMS / CHUNK;  // per invocation (the runtime makes ITEMS a multiple of CHUNK)
// Rows of 4 digits (one 8-bit counter each), stored four rows to a 16-byte word so a column is
// cleared and summed 16 digits per access. An odd column length keeps neighbouring invocations'
// columns in different shared-memory banks.
const uint DIGIT_ROWS = RADIX / 4u;
const uint ROW_QUADS = (DIGIT_ROWS + 3u) / 4u;
const uint COLUMN = ROW_QUADS | 1u;

// s_hist[t * COLUMN + r / 4][r % 4]: row r of invocation t's column. Digit d counts in byte d % 4 of
// row d / 4.
shared uvec4 s_hist[WG * COLUMN];
// The group's count of each digit so far; entry d written only by the invocation that sums quad d / 16.
shared uint s_total[RADIX];

#define WG_SCAN_T uint
#include "common/workgroup_scan.glsl"

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };

uint g_inversions = 0u;
Key g_range;
bool g_encoded;

// One load, then the encoding where needed (a load in each arm stays two loads and a branch).
Key load_key(Keys keys, uint i) {
  const Key raw = keys.k[i];
  return g_encoded ? raw : encode_key(raw);
}

// Counts key k into column t, and whether its successor (if any) is smaller on the ordered bits.
void count_key(Key k, Key next, bool has_next, uint t) {
  const uint d = key_digit(k, pc.shift, pc.bits);
  s_hist[t * COLUMN + (d >> 4)][(d >> 2) & 3u] += 1u << ((d & 3u) * 8u);
  if (has_next && key_less(next & g_range, k & g_range)) ++g_inversions;
}

// Counts one tile into the invocation's column (cleared first: nobody else touches it until the caller's
// barrier).
void count_tile(Keys keys, Pairs pairs, uint tile, uint n, uint t) {
  const uint base = tile * BLOCK;
  // Tiles past the keys (a GPU-side count below the most keys) hold none.
  const uint count = base < n ? min(BLOCK, n - base) : 0u;
  for (uint q = 0u; q < ROW_QUADS; ++q) s_hist[t * COLUMN + q] = uvec4(0u);
  if (count == BLOCK) {
    for (uint j = 0u; j < CHUNKS; ++j) {
      const uint first = (t + j * WG) * CHUNK;
      // Two 8-byte loads: key addresses are 8-byte aligned and base + first is a multiple of CHUNK.
      const uint pair = (base + first) * KEY_WORDS / 2u;
      const uvec2 a = pairs.p[pair], b = pairs.p[pair + 1u];
      const bool has_next = base + first + CHUNK < n;
      Key next = Key(0u);
      if (has_next) next = load_key(keys, base + first + CHUNK);
#if KEY_WORDS == 1
      Key k0 = a.x, k1 = a.y, k2 = b.x, k3 = b.y;
      if (!g_encoded) k0 = encode_key(k0), k1 = encode_key(k1), k2 = encode_key(k2), k3 = encode_key(k3);
      count_key(k0, k1, true, t);
      count_key(k1, k2, true, t);
      count_key(k2, k3, true, t);
      count_key(k3, next, has_next, t);
#else
      Key k0 = a, k1 = b;
      if (!g_encoded) k0 = encode_key(k0), k1 = encode_key(k1);
      count_key(k0, k1, true, t);
      count_key(k1, next, has_next, t);
#endif
    }
  } else {
    // The last tile: it has no successor tile, so its last key has no neighbour either.
    for (uint j = 0u; j < ITEMS; ++j) {
      const uint i = t + j * WG;
      if (i < count) {
        const bool has_next = i + 1u < count;
        Key next = Key(0u);
        if (has_next) next = load_key(keys, base + i + 1u);
        count_key(load_key(keys, base + i), next, has_next, t);
      }
    }
  }
}

void main() {
  const uint group = linear_group_id();
  if (group >= pc.groups) return;
  invocation_rank_init();
  const uint t = invocation_rank();
  g_encoded = Words(pc.control).w[RADIX_CONTROL_CURRENT] != 0u;
  const uvec2 address = g_encoded ? pc.alt_keys : pc.keys;
  Keys keys = Keys(address);
  Pairs pairs = Pairs(address);
  Words counts = Words(pc.counts);
  g_range = key_range_mask(pc.range_lo, pc.range_hi);
  const uint n = Words(pc.control).w[RADIX_CONTROL_N];

  for (uint q = t; q < ROW_QUADS; q += WG)
    for (uint d = 16u * q; d < min(16u * q + 16u, RADIX); ++d) s_total[d] = 0u;
  const uint first_tile = group * pc.tiles_per_group;
  const uint end_tile = min(first_tile + pc.tiles_per_group, pc.blocks);
  for (uint tile = first_tile; tile < end_tile; ++tile) {
    count_tile(keys, pairs, tile, n, t);
    // Every column of the tile is complete.
    barrier();
    for (uint q = t; q < ROW_QUADS; q += WG) {
      // Bytes 0 and 2 widen into the 16-bit halves of `even`, bytes 1 and 3 into `odd`; a tile's
      // count of one digit is at most BLOCK < 2^16.
      uvec4 even = uvec4(0u), odd = uvec4(0u);
      for (uint c = 0u; c < WG; ++c) {
        const uvec4 x = s_hist[c * COLUMN + q];
        even += x & 0x00ff00ffu;
        odd += (x >> 8) & 0x00ff00ffu;
      }
      for (uint k = 0u; k < 4u; ++k) {
        const uint d = 16u * q + 4u * k;
        if (d < RADIX) {
          s_total[d + 0u] += even[k] & 0xffffu;
          s_total[d + 1u] += odd[k] & 0xffffu;
          s_total[d + 2u] += even[k] >> 16;
          s_total[d + 3u] += odd[k] >> 16;
        }
      }
    }
    // Every column is read before the next tile clears it.
    barrier();
  }
  // The group's inversions.
  uint inversions;
  workgroup_exclusive_scan(g_inversions, inversions);

  // Own totals only (the same quads as above).
  for (uint q = t; q < ROW_QUADS; q += WG)
    for (uint d = 16u * q; d < min(16u * q + 16u, RADIX); ++d) counts.w[d * pc.groups + group] = s_total[d];
  if (t == 0u) counts.w[RADIX * pc.groups + group] = inversions;
}
