#version 460
// Resort, section 2.2, step 2: takes the moved elements out of their old lists, in one pass. The groups
// before ceil(n / TILE) walk elements, the rest walk heads. An element that stays in its list (or a
// head) whose successor moved follows next pointers past the moved elements to the first one that
// stays and links to it. Only next pointers of staying elements and heads are written, while only
// next pointers of moved elements are read past: no walk reads what another writes. The walks
// together cross each moved element once. A node of list b moved iff its bit is set (its old bucket
// was b), so the walks read the bit array, not the ids.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  const uint g = linear_group_id();
  if (g >= pc.group_count) return;
  Words bucket = Words(pc.bucket), head = Words(pc.head), next = Words(pc.next), moved = Words(pc.moved);
  const uint element_tiles = tiles_for(pc.n);
  const uint t = gl_LocalInvocationID.x;
  const bool heads = g >= element_tiles;
  const uint first = heads ? (g - element_tiles) * TILE + t * ITEMS : g * TILE + t * ITEMS;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint x = first + k;  // a bucket or an element
    if (x >= (heads ? pc.m : pc.n)) break;
    // An element is in a list it stays in iff it did not move and has a bucket.
    if (!heads && (moved_bit(moved, x) || bucket.w[x] == BUCKET_INVALID)) continue;
    const uint p = heads ? head.w[x] : next.w[x];
    uint q = p;
    while (q != BUCKET_NULL && moved_bit(moved, q)) q = next.w[q];
    if (q == p) continue;
    if (heads) head.w[x] = q;
    else next.w[x] = q;
  }
}
