// SPDX-License-Identifier: MIT
#version 460
// Block brick sort, step 1: each workgroup sorts one tile of TILE = WORKGROUP_SIZE * ITEMS keys in
// shared memory with the bitonic network of common/bitonic.glsl. Keys are encoded on load and decoded on store, so memory always
// holds the caller's format and no separate encode/decode pass exists.
//
// Stability: the network sorts (encoded key, position in tile) pairs, so equal keys keep their order;
// padding beyond n gets KEY_MAX and a position >= count, which puts it after every real key.
#define PUSH_BRICK
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_HAS_VALUES) const bool HAS_VALUES = false;
const uint TILE = gl_WorkGroupSize.x * ITEMS;

// The tile's keys and their original positions; after the network, slot i holds the i-th smallest.
shared Key s_key[TILE];
shared uint s_idx[TILE];
// Values stay where they were loaded; the write-back gathers them through s_idx.
shared uint s_val[HAS_VALUES ? TILE : 1];
// Set when two neighbours of the loaded tile are out of order. A tile already in order needs neither
// the network nor the write-back: sorted and locally sorted inputs cost one read.
shared bool s_unsorted;

#include "common/bitonic.glsl"

void main() {
  const uint tile = linear_group_id();
  if (tile >= pc.group_count) return;
  const uint base = tile * TILE;
  const uint count = min(TILE, pc.n - base);
  const uint tid = gl_LocalInvocationID.x;
  Keys keys = Keys(pc.keys);
  Words values = Words(pc.values);

  if (tid == 0) s_unsorted = false;
  for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
    const bool live = i < count;
    s_key[i] = live ? encode_key(keys.k[base + i]) : KEY_MAX;
    s_idx[i] = i;
    if (HAS_VALUES && live) s_val[i] = values.w[base + i];
  }
  // Every global read of this tile is done before any invocation writes the tile back below: buffer
  // memory, so barrier() needs memoryBarrierBuffer() to order it.
  memoryBarrierBuffer();
  barrier();
  for (uint i = tid; i + 1 < count; i += gl_WorkGroupSize.x)
    if (key_less(s_key[i + 1], s_key[i])) s_unsorted = true;  // racing writers all store true
  barrier();
  if (!s_unsorted) return;  // uniform: every invocation reads the same flag

  bitonic_shared_sort(TILE);

  for (uint i = tid; i < count; i += gl_WorkGroupSize.x) {
    keys.k[base + i] = decode_key(s_key[i]);
    if (HAS_VALUES) values.w[base + i] = s_val[s_idx[i]];
  }
}
