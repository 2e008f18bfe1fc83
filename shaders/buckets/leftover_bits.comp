// SPDX-License-Identifier: MIT
#version 460
// Start of the fallback: each tile of the leftover list writes the OR and the AND of its elements'
// fallback keys (buckets; M for none) to blocks[2 tile], blocks[2 tile + 1]; the gate combines them into the bits in which the
// buckets differ. The radix passes on the other bits are skipped: a few heavy buckets (the reason
// for a fallback) differ in few bits, all in one bucket in none.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  Words control = Words(pc.control);
  const uint count = control.w[BUCKET_CONTROL_LEFTOVER];
  const uint g = linear_group_id();
  if (g >= tiles_for(count)) return;
  Words bucket = Words(pc.bucket), list = slot_list(fallback_slot(control, false));
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  uint any_bits = 0u, all_bits = 0xffffffffu;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j >= count) break;
    const uint b = fallback_key(bucket.w[list.w[j]]);
    any_bits |= b;
    all_bits &= b;
  }
  workgroup_or_and(any_bits, all_bits);
  if (gl_LocalInvocationID.x == 0) {
    Words blocks = Words(pc.blocks);
    blocks.w[2 * g] = any_bits;
    blocks.w[2 * g + 1] = all_bits;
  }
}
