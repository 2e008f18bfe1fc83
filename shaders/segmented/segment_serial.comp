// SPDX-License-Identifier: MIT
#version 460
// Segmented sort of tiny segments: invocation s sorts segment s = [offsets[s], offsets[s + 1]) alone,
// when it has at most pc.largest (<= ITEMS) keys, by insertion sort in private arrays. No shared
// memory and no barriers: on lavapipe a barrier switches between all of a workgroup's subgroups, and
// the tile kernel (segment_tiles.comp) pays a dozen of them and a workgroup per segment for a segment
// of a few keys. Larger segments are left to that kernel, which skips the ones sorted here; the two
// write disjoint ranges, so they need no barrier between them.
//
// Stability: a key moves left only past strictly greater keys, so equal keys keep their order; the
// positions travel with the keys for the index. Keys are encoded on load and decoded on store (as
// segment_tiles.comp), so both orders and the floats' total order are plain unsigned comparisons.
// Offsets are read when the kernel runs and clamped to the key count, as segment_tiles.comp does.
#define PUSH_SEGMENT_TILES
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
// The most keys one invocation sorts (the private arrays' length).
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 16;

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint s = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (s >= pc.segments) return;
  const uint keys_total = pc.count == uvec2(0) ? pc.n : min(Words(pc.count).w[0], pc.n);
  Words offsets = Words(pc.offsets);
  const uint start = min(offsets.w[s], keys_total);
  const uint end = clamp(offsets.w[s + 1u], start, keys_total);
  const uint size = end - start;
  if (size == 0u || size > min(pc.largest, ITEMS)) return;  // the tile kernel's segment
  Keys keys = Keys(pc.keys);
  Key k[ITEMS];
  uint x[ITEMS];
  for (uint i = 0u; i < size; ++i) {
    const Key key = encode_key(keys.k[start + i]);
    uint j = i;
    for (; j > 0u && key_less(key, k[j - 1u]); --j) {
      k[j] = k[j - 1u];
      x[j] = x[j - 1u];
    }
    k[j] = key;
    x[j] = i;
  }
  for (uint i = 0u; i < size; ++i) keys.k[start + i] = decode_key(k[i]);
  if (pc.index != uvec2(0)) {
    Words index = Words(pc.index);
    for (uint i = 0u; i < size; ++i) index.w[start + i] = start + x[i];
  }
}
