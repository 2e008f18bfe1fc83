// SPDX-License-Identifier: MIT
#version 460
// Prefix scan, step 2 of a level: each workgroup replaces one chunk of WORKGROUP_SIZE * ITEMS words by
// its exclusive prefix sum, plus sums[chunk] (the scanned sum of all earlier chunks) when add_sums is
// set. With one chunk and add_sums = 0 it is the whole scan of the top level.
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

// The chunk, loaded coalesced; invocation t then owns the ITEMS consecutive words at t * ITEMS and
// reads and writes them four at a time (ITEMS is a multiple of 4).
shared uvec4 s_data[CHUNK / 4u];

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

  for (uint j = 0u; j < ITEMS; ++j) {
    const uint i = t + j * WG;
    uint x = 0u;
    if (i < count) x = data.w[base + i];
    s_data[i >> 2][i & 3u] = x;
  }
  // The chunk is in shared memory before invocations read each other's words, and every global read
  // of it is done before the write-back overwrites it in place (memoryBarrierBuffer: barrier() alone
  // does not order buffer memory).
  memoryBarrierBuffer();
  barrier();
  const uint mine = t * (ITEMS / 4u);
  uint sum = 0u;
  for (uint q = 0u; q < ITEMS / 4u; ++q) {
    const uvec4 v = s_data[mine + q];
    sum += v.x + v.y + v.z + v.w;
  }
  uint total;
  uint prefix = workgroup_exclusive_scan(sum, total);
  if (pc.add_sums != 0u) prefix += Words(pc.sums).w[chunk];
  // Own words only: nobody else reads them before the barrier below.
  for (uint q = 0u; q < ITEMS / 4u; ++q) {
    const uvec4 v = s_data[mine + q];
    uvec4 p;
    p.x = prefix;
    p.y = p.x + v.x;
    p.z = p.y + v.y;
    p.w = p.z + v.z;
    prefix = p.w + v.w;
    s_data[mine + q] = p;
  }
  // Every word's prefix is in place before the coalesced write-back reads other invocations' words.
  barrier();
  for (uint j = 0u; j < ITEMS; ++j) {
    const uint i = t + j * WG;
    if (i < count) data.w[base + i] = s_data[i >> 2][i & 3u];
  }
}
