// SPDX-License-Identifier: MIT
#version 460
// Single-pass radix sort, before everything else: clears the control words, the per-pass words and the
// histograms that the histogram kernel adds into, and fixes how many keys this sort orders (a GPU-side
// count is only known now). One workgroup; every later kernel reads what it wrote.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_ONESWEEP
#include "common/interface.h"

layout(local_size_x = 64) in;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint RADIX = 1u << RADIX_BITS;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

void main() {
  const uint t = gl_LocalInvocationID.x;
  Words c = Words(pc.control);
  for (uint i = t; i < ONESWEEP_CONTROL_WORDS; i += 64u) {
    uint v = 0u;
    if (i == RADIX_CONTROL_N) v = pc.count != uvec2(0u) ? min(Words(pc.count).w[0], pc.n) : pc.n;
    if (i == RADIX_CONTROL_FINISH_ARGS + 1u) v = pc.finish_y;
    if (i == RADIX_CONTROL_FINISH_ARGS + 2u) v = pc.finish_z;
    if (i == ONESWEEP_CONTROL_FINISH_X) v = pc.finish_x;
    c.w[i] = v;
  }
  Words digits = Words(pc.digits);
  for (uint i = t; i < pc.passes * RADIX; i += 64u) digits.w[i] = 0u;
}
