// SPDX-License-Identifier: MIT
#version 460
// Block brick sort, one odd-even phase: workgroup q merge-splits the sorted tiles L = 2q + parity and
// L + 1. The merged run's first TILE keys go back to L, the rest to L + 1. Pairs of one phase are
// disjoint, so workgroups never touch each other's keys; the runtime puts a barrier between phases.
//
// Each key's destination is its rank in the merged run: its index in its own tile plus the number of
// keys of the other tile that must precede it (strictly smaller for a left key, smaller-or-equal for a
// right key), found by binary search. Ties therefore keep left before right: the merge is stable.
#define PUSH_BRICK
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/store_any_wins.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_HAS_VALUES) const bool HAS_VALUES = false;
const uint TILE = gl_WorkGroupSize.x * ITEMS;

// Both tiles, encoded: [0, TILE) the left tile, [TILE, total) the right one; each sorted.
shared Key s_key[2 * TILE];
shared uint s_val[HAS_VALUES ? 2 * TILE : 1];
// True when the pair is already in order (last left key <= first right key): nothing moves.
shared bool s_in_order;

// Index of the first key in s_key[lo, hi) that is >= k (or > k when `after_equal`).
uint search(uint lo, uint hi, Key k, bool after_equal) {
  while (lo < hi) {
    const uint mid = (lo + hi) >> 1;
    const bool before = after_equal ? key_less_equal(s_key[mid], k) : key_less(s_key[mid], k);
    if (before) lo = mid + 1; else hi = mid;
  }
  return lo;
}

void main() {
  const uint pair = linear_group_id();
  if (pair >= pc.group_count) return;
  const uint left = (2 * pair + pc.parity) * TILE;
  const uint right = left + TILE;  // < n: the runtime only launches pairs whose right tile exists
  const uint total = TILE + min(TILE, pc.n - right);
  const uint tid = gl_LocalInvocationID.x;
  Keys keys = Keys(pc.keys);
  Words values = Words(pc.values);

  if (tid == 0) s_in_order = key_less_equal(encode_key(keys.k[right - 1]), encode_key(keys.k[right]));
  barrier();
  if (s_in_order) return;  // uniform: every invocation reads the same flag

  for (uint i = tid; i < total; i += gl_WorkGroupSize.x) {
    s_key[i] = encode_key(keys.k[left + i]);
    if (HAS_VALUES) s_val[i] = values.w[left + i];
  }
  // All global reads of both tiles happen before any write below: buffer memory, so barrier() needs
  // memoryBarrierBuffer() to order it.
  memoryBarrierBuffer();
  barrier();

  for (uint i = tid; i < total; i += gl_WorkGroupSize.x) {
    const Key k = s_key[i];
    const uint rank = i < TILE ? i + (search(TILE, total, k, false) - TILE) : (i - TILE) + search(0, TILE, k, true);
    keys.k[left + rank] = decode_key(k);
    if (HAS_VALUES) values.w[left + rank] = s_val[i];
  }
  if (tid == 0) store_any_wins(Words(pc.control).w[BRICK_CONTROL_CHANGED], 1u);  // every workgroup writes 1
}
