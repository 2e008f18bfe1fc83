// SPDX-License-Identifier: MIT
#version 460
// index[i] = i for every record in play: the values the inner (key, index) sort carries, so that
// once it has run, index[i] names the input record that belongs at position i (seed 003, section 4.7).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_RECORDS
#include "common/interface.h"
#include "common/grid.glsl"
#include "records/records.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Indices { uint i[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < records_in_play()) Indices(pc.index).i[i] = i;
}
