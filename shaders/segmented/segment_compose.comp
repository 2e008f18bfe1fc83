// SPDX-License-Identifier: MIT
#version 460
// Segmented sort by composed keys (32-bit keys only): composed[p] = (segment of p) << 32 | encoded
// key at p, as a uvec2 (x = the encoded key, y = the segment). One stable radix sort of these 64-bit
// keys on bits [0, 32 + ceil(log2(segments))) then orders the keys by segment first and by key within
// each, and segment_decompose.comp takes the keys back out. Encoding as common/keys.glsl (signed, float
// total order, descending), so the sort itself is an ascending unsigned one.
//
// Invocation t of workgroup g takes ITEMS positions: on a GPU (g * ITEMS + j) * WORKGROUP_SIZE + t,
// j < ITEMS (reads and writes side by side across a subgroup); with CONSECUTIVE (CPU devices, where an
// invocation's consecutive accesses share cache lines and its segment rarely changes) (g *
// WORKGROUP_SIZE + t) * ITEMS + j. The segment is searched once for the first of them; each next
// position is mostly in the same segment (no read: where the next one starts is kept) or the next one
// (one read), and only otherwise searched again from there. Positions at or beyond the key count (a
// GPU-side count) are not written.
#define PUSH_SEGMENT_COMPOSE
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/segment_search.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 16;
layout(constant_id = SPEC_CONSECUTIVE) const bool CONSECUTIVE = false;
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer Composed { uvec2 k[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint keys_total = pc.count == uvec2(0) ? pc.n : min(Words(pc.count).w[0], pc.n);
  const uint first = CONSECUTIVE ? (group * gl_WorkGroupSize.x + gl_LocalInvocationID.x) * ITEMS
                               : group * ITEMS * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (first >= keys_total) return;
  SegmentOffsets offsets = SegmentOffsets(pc.offsets);
  Keys keys = Keys(pc.keys);
  Composed composed = Composed(pc.composed);
  uint s = segment_search(offsets, pc.segments, first, 0u);
  uint next = s + 1u < pc.segments ? offsets.w[s + 1u] : 0xffffffffu;  // where segment s + 1 starts
  for (uint j = 0u; j < ITEMS; ++j) {
    const uint p = first + j * (CONSECUTIVE ? 1u : gl_WorkGroupSize.x);
    if (p >= keys_total) break;
    if (p >= next) {
      const uint after = s + 2u < pc.segments ? offsets.w[s + 2u] : 0xffffffffu;  // where segment s + 2 starts
      if (p < after) {
        s += 1u;
        next = after;
      } else {
        s = segment_search(offsets, pc.segments, p, s + 2u);
        next = s + 1u < pc.segments ? offsets.w[s + 1u] : 0xffffffffu;
      }
    }
    composed.k[p] = uvec2(encode_key(keys.k[p]), s);
  }
}
