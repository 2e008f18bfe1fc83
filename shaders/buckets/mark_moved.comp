#version 460
// Resort, section 2.2, step 1: every element compares its new id with the bucket its list is (an id
// >= M means no bucket: reported), records the new bucket if it changed, and sets its bit in `moved`.
// Each tile's count of moved elements goes to blocks[tile] for their compaction. Streaming reads only:
// the random accesses of the unlink step then hit the bit array (N / 8 bytes), not the ids.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

// Each invocation's ITEMS moved bits, assembled into the tile's words below.
shared uint s_bits[gl_WorkGroupSize.x];

void main() {
  const uint g = linear_group_id();
  if (g >= pc.group_count) return;
  Words ids = Words(pc.ids), bucket = Words(pc.bucket);
  const uint t = gl_LocalInvocationID.x;
  const uint first = g * TILE + t * ITEMS;
  uint bits = 0, moved_here = 0;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i >= pc.n) break;
    const uint id = ids.w[i];
    const uint new_bucket = id < pc.m ? id : BUCKET_INVALID;
    if (id >= pc.m) Words(pc.control).w[BUCKET_CONTROL_BAD_ELEMENT] = i + 1u;  // any writer wins
    if (new_bucket != bucket.w[i]) {
      bucket.w[i] = new_bucket;
      bits |= 1u << k;
      ++moved_here;
    }
  }
  s_bits[t] = bits;
  uint total;
  workgroup_exclusive_sum(moved_here, total);
  // Every invocation's bits are in s_bits.
  barrier();
  // Word w holds the bits of the 32 / ITEMS invocations from w * (32 / ITEMS) on (ITEMS <= 32).
  const uint per_word = 32 / ITEMS;
  if (t < MOVED_WORDS) {
    uint word = 0;
    for (uint j = 0; j < per_word; ++j) {
      const uint src = t * per_word + j;
      if (src < gl_WorkGroupSize.x) word |= s_bits[src] << (j * ITEMS);
    }
    Words(pc.moved).w[g * MOVED_WORDS + t] = word;
  }
  if (t == 0) Words(pc.blocks).w[g] = total;
}
