// SPDX-License-Identifier: MIT
#version 460
// segment[i] = the segment that input position index[i] lies in: the last s < segments with
// offsets[s] <= index[i] (binary search; offsets hold segments + 1 non-decreasing words, read when the
// kernel runs, so an earlier GPU pass may have written them). Whatever the offsets hold, the result is
// in [0, segments): a permutation sorted by it stays a permutation.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_SEGMENT_IDS
#include "common/interface.h"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Out { uint w[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  const uint keys = pc.count == uvec2(0) ? pc.n : min(Words(pc.count).w[0], pc.n);
  if (i >= keys) return;
  const uint position = Words(pc.index).w[i];
  Words offsets = Words(pc.offsets);
  // The first s in [1, segments) with offsets[s] > position; the segment is the one before it.
  // At most 32 steps: far below any driver's loop limit.
  uint lo = 1, hi = pc.segments;
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2;
    if (offsets.w[mid] <= position) lo = mid + 1;
    else hi = mid;
  }
  Out(pc.segment).w[i] = lo - 1;
}
