// SPDX-License-Identifier: MIT
#version 460
// Counting half of one stable split (LSD radix pass on bit `bit` of fallback_key()) of the fallback's
// list: each tile's number of elements with the bit clear goes to blocks[tile]. Nothing to do where
// the leftover buckets all agree in the bit. Dispatch sizes come from the GPU's count of leftovers,
// so the fallback needs no host round trip either.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  Words control = Words(pc.control);
  if (((control.w[BUCKET_CONTROL_VARYING] >> pc.bit) & 1u) == 0u) return;
  const uint count = control.w[BUCKET_CONTROL_LEFTOVER];
  const uint g = linear_group_id();
  if (g >= tiles_for(count)) return;
  Words bucket = Words(pc.bucket), list = slot_list(fallback_slot(control, false));
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  uint zeros = 0;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j < count && ((fallback_key(bucket.w[list.w[j]]) >> pc.bit) & 1u) == 0u) ++zeros;
  }
  uint total;
  workgroup_exclusive_scan(zeros, total);
  if (gl_LocalInvocationID.x == 0) Words(pc.blocks).w[g] = total;
}
