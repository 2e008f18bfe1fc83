// SPDX-License-Identifier: MIT
// Declarations every sample sort kernel shares: the push constants, keys, the tile and pair arrays.
#ifndef VKSORT_SAMPLE_COMMON_GLSL
#define VKSORT_SAMPLE_COMMON_GLSL
#define PUSH_SAMPLE
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_HAS_VALUES) const bool HAS_VALUES = false;
// Keys in one sublist, one bitonic tile; the same for every kernel of a sort.
const uint TILE = gl_WorkGroupSize.x * ITEMS;

// Elements of bucket j (step 7's offsets are at counts[j * m]); the buckets hold n and the last
// sublist's padding, m * TILE in all.
uint bucket_size(uint j) {
  Words counts = Words(pc.counts);
  const uint end = j + 1u < pc.samples ? counts.w[(j + 1u) * pc.sublists] : pc.sublists * TILE;
  return end - counts.w[j * pc.sublists];
}

// Step 9 sorts every bucket in a segment of pc.segment slots whose first bucket_size slots it filled
// (relocate), the rest being padding. At every stage boundary the real elements are a prefix of the
// segment (a stage sorts whole blocks), and a step at distance d only exchanges inside aligned blocks
// of 2d that the rest of its stage never leaves: so the block of 2d starting at `first` (an offset in
// the array) holds padding alone, before and after the step, if it starts at or past the bucket's
// size. Such blocks need neither reads nor writes.
bool padding_only(uint first) {
  return (pc.flags & SAMPLE_BUCKETS) != 0u && first % pc.segment >= bucket_size(first / pc.segment);
}
#endif
