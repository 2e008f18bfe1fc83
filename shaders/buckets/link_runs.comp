// SPDX-License-Identifier: MIT
#version 460
// Links the fallback's list, sorted by bucket (then by element index): each run of equal buckets
// becomes its bucket's list, in the sorted order, in front of whatever the list held before (the
// sort-based build starts from empty lists; the heavy-bucket fallback continues what the iterations
// built). Two passes, because the run's first element overwrites the head that its last element must
// read:
//   NEXT: next = the following element of the run, or for the run's last element the bucket's head
//         (in a resort, the prev of that element is this one).
//   HEAD: the run's first element becomes the head.
// Elements without a bucket (sorted last: by the sort-based build as BUCKET_INVALID, by the fallback
// as M, see fallback_key) are skipped; being last, they never split a run.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  Words control = Words(pc.control);
  const uint count = control.w[BUCKET_CONTROL_LEFTOVER];
  const uint g = linear_group_id();
  if (g >= tiles_for(count)) return;
  if ((pc.flags & BUCKET_FLAG_REPORT) != 0u && g == 0u && gl_LocalInvocationID.x == 0u) {
    const uint bad = control.w[BUCKET_CONTROL_BAD_ELEMENT];
    if (bad != 0u) control.w[BUCKET_CONTROL_BAD_ID] = Words(pc.ids).w[bad - 1u];
  }
  Words bucket = Words(pc.bucket), head = Words(pc.head), next = Words(pc.next), prev = Words(pc.prev);
  Words list = slot_list(fallback_slot(control, false));
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j >= count) break;
    const uint i = list.w[j];
    const uint b = bucket.w[i];
    if (b == BUCKET_INVALID) continue;
    if (pc.mode == BUCKET_RUNS_NEXT) {
      // Each element sets the prev of the one after it (the run's next, or the list's old first).
      const uint after = j + 1 < count ? list.w[j + 1] : BUCKET_NULL;
      const uint to = after != BUCKET_NULL && bucket.w[after] == b ? after : head.w[b];
      next.w[i] = to;
      if (to != BUCKET_NULL && (pc.flags & BUCKET_FLAG_KEEP_PREV) != 0u) prev.w[to] = i;
    } else if (j == 0u || bucket.w[list.w[j - 1]] != b) {
      head.w[b] = i;
    }
  }
}
