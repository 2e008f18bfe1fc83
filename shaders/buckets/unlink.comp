// SPDX-License-Identifier: MIT
#version 460
// Resort, section 2.2, steps 2 and 3, over the moved elements that gather_moved listed in slot 1 (the
// kernels get no groups when none moved). Until PRELINK, `bucket` holds the old buckets, with
// BUCKET_MOVED set in those of listed elements that moved.
//   CUT:     the moved elements leave their old lists through the prev pointers, so the work is
//            proportional to the moved elements, not to n: a moved element q whose predecessor p
//            stays (or that is its list's first) walks next pointers past the run of moved elements
//            it starts to the first one that stays, s, and links p (or the head) to s and s back to p.
//            Only the walk of a list's first run writes its head, so q == head tells q is first.
//            Writes go only to next of staying elements, prev of staying elements and heads; reads
//            past q go only to next of moved ones, and every moved element is crossed by exactly one
//            walk. Only heads are read by one walk (q == head) while another writes them: whichever
//            value a walk that does not start its list reads, it differs from its own q, so the
//            answer is right, but the accesses are atomic (relaxed) so that they are no data race.
//   PRELINK: after CUT (heads are final): each moved element records its new bucket and points its
//            next at that bucket's head, so that the first winner of the insertion iterations
//            continues the existing list (its prev is set when it wins).
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  Words control = Words(pc.control);
  const uint count = control.w[slot_word(pc.slot, BUCKET_SLOT_COUNT)];
  const uint g = linear_group_id();
  if (g >= tiles_for(count)) return;
  Words ids = Words(pc.ids), bucket = Words(pc.bucket), head = Words(pc.head), next = Words(pc.next);
  Words prev = Words(pc.prev), list = Words(pc.list_in);
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j >= count) break;
    const uint q = list.w[j];
    if (pc.mode == BUCKET_UNLINK_PRELINK) {
      const uint b = bucket_of_id(ids.w[q]);
      bucket.w[q] = b;
      next.w[q] = b != BUCKET_INVALID ? head.w[b] : BUCKET_NULL;
      continue;
    }
    const uint old = bucket.w[q];
    if (old == BUCKET_INVALID) continue;  // it was in no list
    const uint first_of_list =
        atomicLoad(head.w[old & ~BUCKET_MOVED], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    const uint p = first_of_list == q ? BUCKET_NULL : prev.w[q];
    if (p != BUCKET_NULL && (bucket.w[p] & BUCKET_MOVED) != 0u) continue;  // p moved: p's run
    uint s = next.w[q];
    while (s != BUCKET_NULL && (bucket.w[s] & BUCKET_MOVED) != 0u) s = next.w[s];
    if (p == BUCKET_NULL) store_any_wins(head.w[old & ~BUCKET_MOVED], s);  // the one writer; others may read
    else next.w[p] = s;
    if (s != BUCKET_NULL) prev.w[s] = p;
  }
}
