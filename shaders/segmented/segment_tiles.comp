// SPDX-License-Identifier: MIT
#version 460
// Segmented sort of small segments: workgroup s sorts segment s = [offsets[s], offsets[s + 1]) in
// shared memory with the bitonic network of common/bitonic.glsl, when it fits the tile of TILE =
// WORKGROUP_SIZE * ITEMS keys. Keys are encoded on load and decoded on store (as brick/tile_sort.comp).
//
// Stability: the network sorts (encoded key, position in segment) pairs, so equal keys keep their
// order; padding gets KEY_MAX and a position >= the segment's size, which puts it after every real key.
// Only the first power of two >= the size is sorted (the network's steps cover only that much).
//
// index (when given) receives the input position of every output slot, for the record gather that
// moves values after; the caller filled it with the identity, so a segment larger than pc.largest (<=
// TILE), left as it is, and keys outside every segment keep their values in place. Offsets are read when the kernel runs (an earlier GPU
// pass may write them) and clamped to the key count, so no access leaves the buffers. Segments of at
// most pc.serial keys are left to segment_serial.comp (one invocation each, dispatched beside this).
#define PUSH_SEGMENT_TILES
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
const uint TILE = gl_WorkGroupSize.x * ITEMS;

shared Key s_key[TILE];
shared uint s_idx[TILE];
// The network covers the segment's power of two only, not the whole tile (set in main).
uint extent = TILE;
#define BITONIC_EXTENT extent

#include "common/bitonic.glsl"

void main() {
  const uint s = linear_group_id();
  if (s >= pc.group_count) return;
  const uint keys_total = pc.count == uvec2(0) ? pc.n : min(Words(pc.count).w[0], pc.n);
  Words offsets = Words(pc.offsets);
  const uint start = min(offsets.w[s], keys_total);
  const uint end = clamp(offsets.w[s + 1u], start, keys_total);
  const uint size = end - start;
  const uint tid = gl_LocalInvocationID.x;
  const bool has_index = pc.index != uvec2(0);
  Words index = Words(pc.index);
  // Not this kernel's segment (uniform): larger, empty, or sorted by segment_serial.comp (which
  // wrote its index).
  if (size > pc.largest || size <= pc.serial) return;
  Keys keys = Keys(pc.keys);
  const uint width = max(2u, 1u << (findMSB(size - 1u) + 1u));  // the power of two >= size (size 1: 2)
  extent = width;
  for (uint i = tid; i < width; i += gl_WorkGroupSize.x) {
    s_key[i] = i < size ? encode_key(keys.k[start + i]) : KEY_MAX;
    s_idx[i] = i;
  }
  // Every global read of the segment is done before any invocation writes it back below.
  memoryBarrierBuffer();
  barrier();

  bitonic_shared_sort(width);

  for (uint i = tid; i < size; i += gl_WorkGroupSize.x) {
    keys.k[start + i] = decode_key(s_key[i]);
    if (has_index) index.w[start + i] = start + s_idx[i];
  }
}
