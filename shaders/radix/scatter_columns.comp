// SPDX-License-Identifier: MIT
#version 460
// Radix sort (reduce-then-scan), step 3 of a pass, ranking with counter columns: the same result as
// scatter.comp (each workgroup walks its range of tiles in order; every key goes to P_d[group] + its
// stable rank among the group's keys of digit d, Ha et al. equation 1 over groups), found with one
// counter per (digit, invocation) instead of four-way splits. Per tile:
//
//   1. Invocation t owns the tile's keys [t * ITEMS, (t + 1) * ITEMS) (blocked, so invocation order
//      is input order). The count (count_columns.comp) left, for each digit d, how many of the group's
//      keys of digit d come before this column's in scratch (counting again here would cost as much as
//      the count); plus P_d[group] that is where the column's first key of digit d goes, into
//      s_next[d * WG + t].
//   2. Each invocation walks its keys in order and sends each to s_next[digit * WG + t]++.
//
// Per key that is one read and one counter update, none shared with another invocation, and no barrier
// in the tile loop (lavapipe switches between a workgroup's lanes at every barrier); the splits need
// bits/2 rounds of two reads, a shared-memory shuffle and a workgroup scan. The columns cost RADIX
// counters per invocation, so the runtime uses this kernel only when each invocation holds at least
// RADIX keys and owns whole digit rows (RADIX >= WG): small workgroups of many keys each, the shape CPU
// drivers (lavapipe) run fastest. Keys go straight to their destinations: no shuffle through shared
// memory, since a driver that runs a workgroup on one CPU thread has nothing to coalesce.
//
// Encoding as in scatter.comp: scratch holds encoded keys, the caller's buffer raw ones.
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
const uint CHUNK = 4u / KEY_WORDS;  // keys per two 8-byte loads
const uint ROWS_PER_INVOCATION = RADIX / WG;  // the runtime ensures RADIX >= WG

// Column t of digit d: s_next[d * WG + t], where its next key of digit d goes.
shared uint s_next[RADIX * WG];
// P_d[group]: where the group's keys of digit d start.
shared uint s_base[RADIX];

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };

bool g_encoded;  // the source holds encoded keys (scratch)

Key encoded(Key k) { return g_encoded ? k : encode_key(k); }

void send_key(Key k, uint value, Keys dst, Words dst_values, uint t) {
  const uint slot = key_digit(k, pc.shift, pc.bits) * WG + t;
  const uint to = s_next[slot];
  s_next[slot] = to + 1u;
  dst.k[to] = g_encoded ? decode_key(k) : k;
#if VALUE_WORDS == 1
  dst_values.w[to] = value;
#endif
}

void main() {
  const uint group = linear_group_id();
  if (group >= pc.groups) return;
  const uint t = gl_LocalInvocationID.x;
  g_encoded = Words(pc.control).w[RADIX_CONTROL_PASS_SOURCE] != 0u;
  const uvec2 src_address = g_encoded ? pc.alt_keys : pc.keys;
  Keys src = Keys(src_address);
  Pairs src_pairs = Pairs(src_address);
  Words src_values = Words(g_encoded ? pc.alt_values : pc.values);
  Keys dst = Keys(g_encoded ? pc.keys : pc.alt_keys);
  Words dst_values = Words(g_encoded ? pc.values : pc.alt_values);
  Words counts = Words(pc.counts);
  Words columns = Words(pc.columns);
  const uint n = Words(pc.control).w[RADIX_CONTROL_N];

  // The group's keys of digit d start at P_d[group] (the scanned spine).
  for (uint r = 0u; r < ROWS_PER_INVOCATION; ++r) {
    const uint d = t * ROWS_PER_INVOCATION + r;
    s_base[d] = counts.w[d * pc.groups + group];
  }
  barrier();
  const uint first_tile = group * pc.tiles_per_group;
  const uint end_tile = min(first_tile + pc.tiles_per_group, pc.blocks);
  for (uint tile = first_tile; tile < end_tile; ++tile) {
    // Tiles past the keys (a GPU-side count below the most keys) hold none.
    const uint base = tile * BLOCK;
    const uint count = base < n ? min(BLOCK, n - base) : 0u;
    const uint first = base + t * ITEMS;  // this invocation's keys: [first, first + mine)
    const uint mine = min(ITEMS, count - min(count, t * ITEMS));

    // 1. This column's destinations (own column only: no other invocation touches it).
    for (uint d = 0u; d < RADIX; ++d)
      s_next[d * WG + t] = s_base[d] + columns.w[tile * (RADIX * WG) + d * WG + t];

    // 2. The same keys in the same order, each to its column's next destination.
    if (count == BLOCK) {
      for (uint j = 0u; j < ITEMS; j += CHUNK) {
        const uint pair = (first + j) * KEY_WORDS / 2u;
        const uvec2 a = src_pairs.p[pair], b = src_pairs.p[pair + 1u];
#if VALUE_WORDS == 1
        const uvec2 va = Pairs(src_values).p[(first + j) / 2u];
#if KEY_WORDS == 1
        const uvec2 vb = Pairs(src_values).p[(first + j) / 2u + 1u];
        send_key(encoded(a.x), va.x, dst, dst_values, t), send_key(encoded(a.y), va.y, dst, dst_values, t);
        send_key(encoded(b.x), vb.x, dst, dst_values, t), send_key(encoded(b.y), vb.y, dst, dst_values, t);
#else
        send_key(encoded(a), va.x, dst, dst_values, t), send_key(encoded(b), va.y, dst, dst_values, t);
#endif
#else
#if KEY_WORDS == 1
        send_key(encoded(a.x), 0u, dst, dst_values, t), send_key(encoded(a.y), 0u, dst, dst_values, t);
        send_key(encoded(b.x), 0u, dst, dst_values, t), send_key(encoded(b.y), 0u, dst, dst_values, t);
#else
        send_key(encoded(a), 0u, dst, dst_values, t), send_key(encoded(b), 0u, dst, dst_values, t);
#endif
#endif
      }
    } else {
      for (uint j = 0u; j < mine; ++j) {
        uint value = 0u;
#if VALUE_WORDS == 1
        value = src_values.w[first + j];
#endif
        send_key(encoded(src.k[first + j]), value, dst, dst_values, t);
      }
    }
  }
}
