// SPDX-License-Identifier: MIT
#version 460
// Copies 32-bit words (4 per invocation, coalesced): the bandwidth yardstick the benchmark measures
// every sort against.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_COPY
#include "common/interface.h"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  Words src = Words(pc.src), dst = Words(pc.dst);
  const uint first = group * gl_WorkGroupSize.x * 4 + gl_LocalInvocationID.x;
  for (uint k = 0; k < 4; ++k) {
    const uint i = first + k * gl_WorkGroupSize.x;
    if (i < pc.words) dst.w[i] = src.w[i];
  }
}
