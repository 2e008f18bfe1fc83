// SPDX-License-Identifier: MIT
#version 460
// The moving half of a compaction: each tile scans its flags, adds the tile's exclusive offset from
// scan_blocks and writes the flagged elements, in list order, to the other slot's list. Stable: the
// survivors keep the order they had, so lists stay in ascending element order.
//   SCATTER: survivors of an iteration; each also writes its index into its bucket's head with a
//            relaxed atomic store (Listing 1, line 8 of the next iteration: one writer wins). Elements admitted with
//            this list (partial update) are appended after the survivors and scatter too.
//   KEEP:    survivors of the last recorded iteration; no scatter, heads keep the lists' first elements.
//   SPLIT:   one pass of the fallback's stable LSD radix sort on bit `bit` of fallback_key(): clear bits
//            first, then set ones at ZEROS + (ones before them); the list moves to the other slot.
//            Nothing to do when the gate found the leftover buckets agree in the bit.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

void main() {
  Words control = Words(pc.control);
  const bool split = pc.mode == BUCKET_COMPACT_SPLIT;
  if (split && control.w[BUCKET_CONTROL_FALLBACK_MOVES] == 0u) return;  // the buckets agree in this bit
  const uint count = control.w[split ? BUCKET_CONTROL_LEFTOVER : slot_word(pc.slot, BUCKET_SLOT_COUNT)];
  const uint admit_begin = split ? 0u : control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_BEGIN)];
  const uint admit_end = split ? 0u : control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_END)];
  const uint list_tiles = tiles_for(count);
  const uint g = linear_group_id();
  if (g >= list_tiles + tiles_for(admit_end - admit_begin)) return;
  // The iteration that stopped (handing what is left to the fallback) writes no heads.
  const uint mode = pc.mode == BUCKET_COMPACT_SCATTER && control.w[BUCKET_CONTROL_STOPPED] != 0u ? BUCKET_COMPACT_KEEP : pc.mode;
  Words bucket = Words(pc.bucket), head = Words(pc.head);
  const uint from = split ? control.w[BUCKET_CONTROL_FALLBACK_SLOT] : 0u;
  Words list = split ? slot_list(from) : Words(pc.list_in);
  Words out_list = split ? slot_list(from ^ 1u) : Words(pc.list_out);
  invocation_rank_init();
  const uint t = invocation_rank();  // the tile's order agrees with the workgroup sum's

  if (g >= list_tiles) {  // admitted elements, after the survivors (the whole workgroup branches)
    const uint survivors = control.w[slot_word(pc.slot ^ 1u, BUCKET_SLOT_COUNT)] - (admit_end - admit_begin);
    const uint first = admit_begin + (g - list_tiles) * TILE + t * ITEMS;
    for (uint k = 0; k < ITEMS; ++k) {
      const uint i = first + k;
      if (i >= admit_end) break;
      out_list.w[survivors + (i - admit_begin)] = i;
      const uint b = bucket.w[i];
      if (mode == BUCKET_COMPACT_SCATTER && b != BUCKET_INVALID) store_any_wins(head.w[b], i);
    }
    return;
  }

  // A tile without survivors has nothing to move: the scanned offsets say so without reading it.
  Words blocks = Words(pc.blocks);
  const uint offset = blocks.w[g];
  if (!split) {
    const uint kept = control.w[slot_word(pc.slot ^ 1u, BUCKET_SLOT_COUNT)] - (admit_end - admit_begin);
    if ((g + 1 < list_tiles ? blocks.w[g + 1] : kept) == offset) return;  // the whole workgroup returns
  }

  const uint first = g * TILE + t * ITEMS;
  uint v[ITEMS];
  uint flags = 0;  // bit k: position first + k is flagged
  uint mine = 0;
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    v[k] = j < count ? list.w[j] : BUCKET_DONE;
    bool flagged;
    if (split) flagged = j < count && ((fallback_key(bucket.w[v[k]]) >> pc.bit) & 1u) == 0u;
    else flagged = (v[k] & BUCKET_DONE) == 0u;
    if (flagged) {
      flags |= 1u << k;
      ++mine;
    }
  }
  uint tile_total;
  uint before = offset + workgroup_exclusive_scan(mine, tile_total);  // flagged before `first`
  const uint zeros = control.w[BUCKET_CONTROL_ZEROS];
  for (uint k = 0; k < ITEMS; ++k) {
    const uint j = first + k;
    if (j >= count) break;
    const uint i = v[k];
    if ((flags & (1u << k)) != 0u) {
      out_list.w[before] = i;
      ++before;
      if (mode == BUCKET_COMPACT_SCATTER) store_any_wins(head.w[bucket.w[i]], i);  // survivors have a bucket
    } else if (split) {
      out_list.w[zeros + (j - before)] = i;  // j - before: set bits before j
    }
  }
}
