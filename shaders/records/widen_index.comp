// SPDX-License-Identifier: MIT
#version 460
// dst[i] = src[i] widened to 64 bits (low word, then a zero high word): argsort's 64-bit indices from
// the 32-bit index the sort carried. words is the count of indices.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_COPY
#include "common/interface.h"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Narrow { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer Wide { uvec2 w[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < pc.words) Wide(pc.dst).w[i] = uvec2(Narrow(pc.src).w[i], 0u);
}
