// SPDX-License-Identifier: MIT
#version 460
// For the test of DeviceOptions::pretend.dirty_shared_memory (test_runtime): one workgroup copies the
// workgroup memory it finds, unwritten, to pc.dst, so the test sees what dirty_shared.comp left there.
// Reading unwritten workgroup memory is what no other vksort kernel may do.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_DIRTY_SHARED
#include "common/interface.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_SHARED_WORDS) const uint WORDS = 1;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

shared uint s_words[WORDS];

void main() {
  Words out_words = Words(pc.dst);
  for (uint i = gl_LocalInvocationID.x; i < WORDS; i += gl_WorkGroupSize.x) out_words.w[i] = s_words[i];
}
