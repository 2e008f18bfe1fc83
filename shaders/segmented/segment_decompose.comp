// SPDX-License-Identifier: MIT
#version 460
// Segmented sort by composed keys, the way back: keys[p] = the key decoded from the low word of the
// sorted composed key p (segment_compose.comp wrote them; the segment in the high word is dropped).
// The same positions per invocation as segment_compose.comp; positions at or beyond the key count are not written.
#define PUSH_SEGMENT_COMPOSE
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 16;
layout(constant_id = SPEC_CONSECUTIVE) const bool CONSECUTIVE = false;
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Composed { uvec2 k[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint keys_total = pc.count == uvec2(0) ? pc.n : min(Words(pc.count).w[0], pc.n);
  const uint first = CONSECUTIVE ? (group * gl_WorkGroupSize.x + gl_LocalInvocationID.x) * ITEMS
                               : group * ITEMS * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  Keys keys = Keys(pc.keys);
  Composed composed = Composed(pc.composed);
  for (uint j = 0u; j < ITEMS; ++j) {
    const uint p = first + j * (CONSECUTIVE ? 1u : gl_WorkGroupSize.x);
    if (p >= keys_total) break;
    keys.k[p] = decode_key(composed.k[p].x);
  }
}
