// SPDX-License-Identifier: MIT
#version 460
// Bitonic sort of the pair array a_* (a power-of-two length, a multiple of TILE): the part of the
// network inside one tile. SAMPLE_FULL: all stages up to min(segment, TILE), sorting every block of
// that length; otherwise the in-tile steps of stage `size` (> TILE), whose longer-distance steps ran
// in bitonic_global. Step 4 (the samples) and step 9 (the buckets, one segment each) both use it.
//
// SAMPLE_FINAL (step 9, the last stage): instead of writing the tile back, element r of bucket j
// (segment j) goes to output position counts[j * m] + r, decoded, with its value from saved_values;
// the segment's fill padding (r >= the bucket's size) and positions >= n are dropped.
#include "sample/sample_common.glsl"

shared Key s_key[TILE];
shared uint s_idx[TILE];
#include "common/bitonic.glsl"

void main() {
  const uint tile = linear_group_id();
  if (tile >= pc.group_count) return;
  const uint base = tile * TILE;
  const uint tid = gl_LocalInvocationID.x;
  // Every step here stays inside the tile; a tile of padding alone has nothing to sort or write.
  if (pc.segment >= TILE && padding_only(base)) return;
  Keys a_keys = Keys(pc.a_keys);
  Words a_idx = Words(pc.a_idx);

  for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
    s_key[i] = a_keys.k[base + i];
    s_idx[i] = a_idx.w[base + i];
  }
  // Loaded before the network reads, and every global read of the tile done before the write-back
  // below overwrites it in place: buffer memory, so barrier() needs memoryBarrierBuffer().
  memoryBarrierBuffer();
  barrier();
  if ((pc.flags & SAMPLE_FULL) != 0u)
    bitonic_shared_sort(min(pc.segment, TILE));
  else
    bitonic_shared_merge(pc.size);

  if ((pc.flags & SAMPLE_FINAL) == 0u) {
    for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
      a_keys.k[base + i] = s_key[i];
      a_idx.w[base + i] = s_idx[i];
    }
    return;
  }
  Keys keys = Keys(pc.keys);
  Words values = Words(pc.values), saved = Words(pc.saved_values), counts = Words(pc.counts);
  for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
    const uint slot = base + i;
    const uint bucket = slot / pc.segment, r = slot % pc.segment;
    const uint out_pos = counts.w[bucket * pc.sublists] + r;
    if (r < bucket_size(bucket) && out_pos < pc.n) {
      keys.k[out_pos] = decode_key(s_key[i]);
      if (HAS_VALUES) values.w[out_pos] = saved.w[s_idx[i]];
    }
  }
}
