// SPDX-License-Identifier: MIT
#version 460
// The application's pass after the sort: counts what is wrong with the sorted pairs.
//   counters[0]  neighbours out of order: key[i] > key[i+1], or equal keys whose values (input
//                positions) are not ascending (the sort is stable); with a GPU-side count, also
//                elements past the live ones that moved
//   counters[1]  pairs torn apart: key[i] != hash(value[i])
//   counters[2]  sum of the values, counters[3] their xor: those of 0..n-1 when the values are a
//                permutation (with counters[1] == 0, so are the keys)
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
  Words keys = Words(pc.keys);
  Words values = Words(pc.values);
  Words counters = Words(pc.counters);
  uint k = keys.w[i], v = values.w[i];
  // Only the live keys were sorted; the others must be where the fill pass put them.
  const uint live = pc.live != uvec2(0u) ? Words(pc.live).w[0] : pc.n;
  if (i >= live && v != i) atomicAdd(counters.w[0], 1u);
  if (i + 1 < live) {
    uint k1 = keys.w[i + 1], v1 = values.w[i + 1];
    if (k > k1 || (k == k1 && v > v1)) atomicAdd(counters.w[0], 1u);
  }
  if (k != element_key(v, pc.key_mask)) atomicAdd(counters.w[1], 1u);
  atomicAdd(counters.w[2], v);
  atomicXor(counters.w[3], v);
}
