// SPDX-License-Identifier: MIT
#version 460
// The application's first pass: key[i] = hash(i), value[i] = i (which element the key came from),
// and with a GPU-side count the number of live keys.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_GOOGLE_include_directive : require
#include "passes.h"
#include "hash.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(push_constant) uniform Push { PassConstants pc; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  Words(pc.keys).w[i] = element_key(i, pc.key_mask);
  Words(pc.values).w[i] = i;
  if (i == 0u && pc.live != uvec2(0u)) Words(pc.live).w[0] = pc.n - pc.n / 3u;
}
