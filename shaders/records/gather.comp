// SPDX-License-Identifier: MIT
#version 460
// dst record i = src record index[i] for every record in play (index 0: the identity, a plain copy).
// Records are record_bytes long (a multiple of 4 * CHUNK_WORDS); they move in chunks of CHUNK_WORDS
// words (uint, uvec2 or uvec4: one variant each, the widest the records' size and alignment allow).
//
// A workgroup moves WORKGROUP_SIZE consecutive destination records. Its invocations take consecutive
// chunks of that run, so neighbours read and write neighbouring bytes: each source record is read as
// one contiguous run and the destination is written contiguously, whatever the record size.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_RECORDS
#include "common/interface.h"
#include "common/grid.glsl"
#include "common/address.glsl"
#include "records/records.glsl"

#if CHUNK_WORDS == 4
#define CHUNK uvec4
#elif CHUNK_WORDS == 2
#define CHUNK uvec2
#else
#define CHUNK uint
#endif

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(buffer_reference, std430, buffer_reference_align = CHUNK_WORDS * 4) buffer Chunks { CHUNK c[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Indices { uint i[]; };

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint first = group * gl_WorkGroupSize.x;
  const uint records = records_in_play();
  if (first >= records) return;
  const uint chunks = min(gl_WorkGroupSize.x, records - first) * pc.record_chunks;
  const bool identity = pc.index == uvec2(0);
  for (uint c = gl_LocalInvocationID.x; c < chunks; c += gl_WorkGroupSize.x) {
    const uint r = c / pc.record_chunks, part = c - r * pc.record_chunks;
    const uint i = first + r;
    const uint from = identity ? i : Indices(pc.index).i[i];
    Chunks(address_at(pc.dst, i, pc.record_bytes)).c[part] = Chunks(address_at(pc.src, from, pc.record_bytes)).c[part];
  }
}
