// SPDX-License-Identifier: MIT
#version 460
// Listing 1, line 8, over a list slot: every element with a bucket writes its index into that bucket's
// head with a relaxed atomic store (store_any_wins); one writer wins. Resort uses it once for the moved elements (after they
// were prelinked); the iterations fold it into compact.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  const uint count = Words(pc.control).w[slot_word(pc.slot, BUCKET_SLOT_COUNT)];
  const uint g = linear_group_id();
  if (g >= tiles_for(count)) return;
  Words bucket = Words(pc.bucket), head = Words(pc.head), list = Words(pc.list_in);
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j >= count) break;
    const uint i = list.w[j];
    const uint b = bucket.w[i];
    if (b != BUCKET_INVALID) store_any_wins(head.w[b], i);
  }
}
