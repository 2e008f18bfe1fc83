// SPDX-License-Identifier: MIT
#version 460
// Start of a build (Listing 1, lines 1-3 and the first scatter of line 8): every element records the
// bucket its list will be (BUCKET_INVALID for an id >= M, which is reported and left out of every
// list), its next pointer becomes NULL, and elements below `bit` (all of them, or the first part with
// partial update) write their index into their bucket's head (store_any_wins): one writer wins.
// SORT_PAIRS mode writes the (bucket, index) pairs of the sort-based build instead of heads.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  const uint g = linear_group_id();
  if (g >= pc.group_count) return;
  Words ids = Words(pc.ids), bucket = Words(pc.bucket), head = Words(pc.head), next = Words(pc.next);
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i >= pc.n) break;
    const uint id = ids.w[i];
    const bool valid = id < pc.m;
    bucket.w[i] = valid ? id : BUCKET_INVALID;
    next.w[i] = BUCKET_NULL;
    if (!valid) store_any_wins(Words(pc.control).w[BUCKET_CONTROL_BAD_ELEMENT], i + 1u);
    if (pc.mode == BUCKET_INIT_SORT_PAIRS) {
      Words(pc.list_in).w[i] = valid ? id : BUCKET_INVALID;  // sorts after every real bucket
      Words(pc.list_out).w[i] = i;
    } else if (valid && i < pc.bit) {
      store_any_wins(head.w[id], i);
    }
  }
}
