// SPDX-License-Identifier: MIT
#version 460
// Listing 1, lines 12-17, over the active list only: each element reads its bucket's head after the
// scatter; the winner (head == i) is now in the list and is marked BUCKET_DONE (in a resort, the prev
// pointer of the element after it is set), every other element points its next at the winner and
// stays active. Elements without a bucket are marked done too. Each
// tile's count of still-active elements goes to blocks[tile] for the compaction.
//
// Partial update: elements admitted with this list (range [admit_begin, admit_end) of the slot, walked
// by the groups after the list's) do not race yet; they point their next at their bucket's current
// head, which is the list's true first element now, so they can join the next scatter.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  Words control = Words(pc.control);
  const uint count = control.w[slot_word(pc.slot, BUCKET_SLOT_COUNT)];
  const uint admit_begin = control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_BEGIN)];
  const uint admit_end = control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_END)];
  const uint list_tiles = tiles_for(count);
  const uint g = linear_group_id();
  if (g >= list_tiles + tiles_for(admit_end - admit_begin)) return;
  Words bucket = Words(pc.bucket), head = Words(pc.head), next = Words(pc.next), list = Words(pc.list_in);
  Words prev = Words(pc.prev);
  const uint t = gl_LocalInvocationID.x;

  if (g >= list_tiles) {  // the whole workgroup takes this branch
    const uint first = admit_begin + (g - list_tiles) * TILE + t * ITEMS;
    for (uint k = 0; k < ITEMS; ++k) {
      const uint i = first + k;
      if (i >= admit_end) break;
      const uint b = bucket.w[i];
      if (b != BUCKET_INVALID) next.w[i] = head.w[b];
    }
    return;
  }

  uint racing = 0;
  const uint first = g * TILE + t * ITEMS;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j >= count) break;
    const uint i = pc.mode == BUCKET_LINK_IDENTITY ? j : list.w[j];
    const uint b = bucket.w[i];
    bool done = true;
    if (b != BUCKET_INVALID) {
      const uint h = head.w[b];
      if (h != i) {
        next.w[i] = h;
        done = false;
      } else if ((pc.flags & BUCKET_FLAG_KEEP_PREV) != 0u) {  // uniform
        // Placed in front of its list: its next is the list's previous first element (it pointed
        // there when it lost, or was prelinked so), whose prev is now i.
        const uint after = next.w[i];
        if (after != BUCKET_NULL) prev.w[after] = i;
      }
    }
    list.w[j] = done ? (i | BUCKET_DONE) : i;
    racing += done ? 0u : 1u;
  }
  uint total;
  workgroup_exclusive_scan(racing, total);
  if (t == 0) Words(pc.blocks).w[g] = total;
}
