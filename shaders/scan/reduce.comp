// SPDX-License-Identifier: MIT
#version 460
// Prefix scan, step 1 of a level: each workgroup sums one chunk of WORKGROUP_SIZE * ITEMS words and
// writes the sum to sums[chunk]. The next level scans those sums; scan_exclusive then adds them back.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_SCAN
#include "common/interface.h"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
const uint WG = gl_WorkGroupSize.x;
const uint CHUNK = WG * ITEMS;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

#define WG_SCAN_T uint
#include "common/workgroup_scan.glsl"

void main() {
  const uint chunk = linear_group_id();
  if (chunk >= pc.group_count) return;
  invocation_rank_init();
  const uint t = invocation_rank();
  const uint base = chunk * CHUNK;
  const uint count = min(CHUNK, pc.count - base);
  Words data = Words(pc.data);

  uint sum = 0u;
  for (uint j = 0u; j < ITEMS; ++j) {
    const uint i = t + j * WG;  // consecutive invocations read consecutive words
    if (i < count) sum += data.w[base + i];
  }
  uint total;
  workgroup_exclusive_scan(sum, total);
  if (t == 0u) Words(pc.sums).w[chunk] = total;
}
