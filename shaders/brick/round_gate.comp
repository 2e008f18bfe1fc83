// SPDX-License-Identifier: MIT
#version 460
// Early exit without a host round trip: before each odd+even round, one invocation reads whether the
// previous round moved anything and writes the indirect dispatch arguments of this round's two phases,
// zero workgroups once a round changed nothing. The rounds recorded after that cost only empty
// dispatches. It also clears the flag for this round and counts the rounds that ran.
#define PUSH_GATE
#include "common/interface.h"

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 1) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

void main() {
  Words c = Words(pc.control);
  const bool run = pc.force != 0u || c.w[BRICK_CONTROL_CHANGED] != 0u;
  c.w[BRICK_CONTROL_CHANGED] = 0u;
  if (run) c.w[BRICK_CONTROL_ROUNDS] += 1u;
  c.w[BRICK_CONTROL_EVEN_ARGS + 0] = run ? pc.even_x : 0u;
  c.w[BRICK_CONTROL_EVEN_ARGS + 1] = pc.even_y;
  c.w[BRICK_CONTROL_EVEN_ARGS + 2] = pc.even_z;
  c.w[BRICK_CONTROL_ODD_ARGS + 0] = run ? pc.odd_x : 0u;
  c.w[BRICK_CONTROL_ODD_ARGS + 1] = pc.odd_y;
  c.w[BRICK_CONTROL_ODD_ARGS + 2] = pc.odd_z;
}
