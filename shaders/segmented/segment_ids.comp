// SPDX-License-Identifier: MIT
#version 460
// segment[i] = the segment that input position index[i] lies in (common/segment_search.glsl).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_SEGMENT_IDS
#include "common/interface.h"
#include "common/grid.glsl"
#include "common/segment_search.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Out { uint w[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  const uint keys = pc.count == uvec2(0) ? pc.n : min(Words(pc.count).w[0], pc.n);
  if (i >= keys) return;
  const uint segment = segment_search(SegmentOffsets(pc.offsets), pc.segments, Words(pc.index).w[i], 0u);
  Out(pc.segment).w[i] = segment;
}
