// SPDX-License-Identifier: MIT
#version 460
// The renderer's culling pass: projects each splat centre, drops those behind the near plane or off
// screen, and appends the visible ones (an atomic counter: their number is known only on the GPU) as
// key = screen tile id << 32 | view depth's float bits (positive floats order as their bits), with the
// splat index beside it. Sorting by the key then groups splats by tile, front to back within each.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_GOOGLE_include_directive : require
#include "splat_pass.h"

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Positions { float p[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer Keys { uvec2 k[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(push_constant) uniform Push { SplatPass pc; };

const float near_plane = 0.1;

void main() {
  // Dispatched as a 2-D grid: at most 65535 groups in x on every device.
  const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i >= pc.n) return;
  Positions p = Positions(pc.positions);
  const vec3 world = vec3(p.p[3 * i], p.p[3 * i + 1], p.p[3 * i + 2]);
  const vec3 view = vec3(pc.cos_yaw * world.x - pc.sin_yaw * world.z, world.y,
                         pc.sin_yaw * world.x + pc.cos_yaw * world.z - pc.camera_z);
  if (view.z <= near_plane) return;
  const vec2 pixel = vec2(pc.width, pc.height) * 0.5 + pc.focal * view.xy / view.z;
  if (pixel.x < 0.0 || pixel.y < 0.0 || pixel.x >= float(pc.width) || pixel.y >= float(pc.height)) return;
  const uint tile = uint(pixel.y) / TILE_PIXELS * pc.tiles_x + uint(pixel.x) / TILE_PIXELS;
  const uint slot = atomicAdd(Words(pc.count).w[0], 1u);
  Keys(pc.keys).k[slot] = uvec2(floatBitsToUint(view.z), tile);
  Words(pc.indices).w[slot] = i;
}
