// SPDX-License-Identifier: MIT
#version 460
// Resort, section 2.2, step 1, in one streaming pass over the elements: each compares its new id with
// the bucket its list is (an id >= M means no bucket: reported) and, if they differ, appends its index
// to list slot 1 (list_out), whose length is BUCKET_CONTROL_MOVED, counted with one atomic add per
// subgroup (per invocation without subgroup arithmetic), and sets BUCKET_MOVED in its old bucket (if
// it had one) for unlink; unlink's PRELINK writes the new buckets. The list's order depends on the
// atomics (a resort's lists are sets: no order is promised). No shared memory and no barrier: on
// lavapipe the compaction this replaces (with barriers) cost 9 ms at 2^20 elements even when every
// workgroup returned at once, about twice this whole pass.
// FIND_PREV (the first resort after a build) also sets the prev pointers from the next pointers on
// the same pass; PREV_ONLY mode does only that (resort() gathers first and sets prev only if it then
// inserts rather than builds).
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  const uint g = linear_group_id();
  if (g >= pc.group_count) return;  // uniform in the workgroup
  Words ids = Words(pc.ids), bucket = Words(pc.bucket), control = Words(pc.control);
  Words next = Words(pc.next), prev = Words(pc.prev);
  const bool find_prev = (pc.flags & BUCKET_FLAG_FIND_PREV) != 0u;
  const uint first = g * TILE + gl_LocalInvocationID.x * ITEMS;
  if (pc.mode == BUCKET_GATHER_PREV_ONLY) {  // after a gather without FIND_PREV (flags set are fine)
    for (uint k = 0; k < ITEMS; ++k) {
      const uint i = first + k;
      if (i >= pc.n) break;
      const uint after = bucket.w[i] != BUCKET_INVALID ? next.w[i] : BUCKET_NULL;
      if (after != BUCKET_NULL) prev.w[after] = i;
    }
    return;
  }
  uint flags = 0, mine = 0;  // bit k: element first + k moved
  for (uint k = 0; k < ITEMS; ++k) {
    const uint i = first + k;
    if (i < pc.n) {  // no break: every invocation reaches the subgroup operations below
      const uint id = ids.w[i];
      if (id >= pc.m) store_any_wins(control.w[BUCKET_CONTROL_BAD_ELEMENT], i + 1u);
      const uint b = bucket.w[i];
      if (find_prev && b != BUCKET_INVALID) {  // listed: the element after it has it as prev
        const uint after = next.w[i];
        if (after != BUCKET_NULL) prev.w[after] = i;
      }
      if (bucket_of_id(id) != b) {
        // Marked for unlink, which tells moved list members by one random read instead of two.
        if (b != BUCKET_INVALID) bucket.w[i] = b | BUCKET_MOVED;
        flags |= 1u << k;
        ++mine;
      }
    }
  }
#ifdef BUCKET_SUBGROUPS
  const uint total = subgroupAdd(mine);
  if (total == 0u) return;  // uniform in the subgroup
  uint base = 0u;
  if (subgroupElect()) base = atomicAdd(control.w[BUCKET_CONTROL_MOVED], total);
  // One invocation holds the base, the others 0: the sum broadcasts it with arithmetic alone (the
  // kernel needs no ballot support, which the device does not promise with arithmetic).
  uint at = subgroupAdd(base) + subgroupExclusiveAdd(mine);
#else
  if (mine == 0u) return;
  uint at = atomicAdd(control.w[BUCKET_CONTROL_MOVED], mine);
#endif
  Words list = Words(pc.list_out);
  for (uint k = 0; k < ITEMS; ++k)
    if ((flags & (1u << k)) != 0u) list.w[at++] = first + k;
}
