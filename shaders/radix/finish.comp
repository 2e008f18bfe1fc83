// SPDX-License-Identifier: MIT
#version 460
// Radix sort, after the last pass, only when the data ended in scratch (an odd number of scatters ran,
// because passes were skipped, the sort stopped early, or an odd number was recorded): copies the
// encoded scratch keys (and values) into the caller's buffers, decoding. Its indirect arguments are
// zero otherwise, so the normal case records it but runs no workgroup. Workgroup g copies the tiles
// [g * tiles_per_group, (g + 1) * tiles_per_group) of pc.blocks (the single pass: one tile each).
#define PUSH_RADIX
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_HAS_VALUES) const bool HAS_VALUES = false;
const uint WG = gl_WorkGroupSize.x;
const uint BLOCK = WG * ITEMS;

void main() {
  const uint group = linear_group_id();
  if (group >= pc.groups) return;
  const uint t = gl_LocalInvocationID.x;
  Keys src = Keys(pc.alt_keys), dst = Keys(pc.keys);
  Words src_values = Words(pc.alt_values), dst_values = Words(pc.values);
  const uint n = Words(pc.control).w[RADIX_CONTROL_N];
  const uint first_tile = group * pc.tiles_per_group;
  const uint end_tile = min(first_tile + pc.tiles_per_group, pc.blocks);
  for (uint tile = first_tile; tile < end_tile; ++tile) {
    const uint base = tile * BLOCK;
    // Tiles past the keys (a GPU-side count below the most keys) hold none.
    const uint count = base < n ? min(BLOCK, n - base) : 0u;
    for (uint j = 0u; j < ITEMS; ++j) {
      const uint i = t + j * WG;
      if (i < count) {
        dst.k[base + i] = decode_key(src.k[base + i]);
        if (HAS_VALUES) dst_values.w[base + i] = src_values.w[base + i];
      }
    }
  }
}
