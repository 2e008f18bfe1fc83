// SPDX-License-Identifier: MIT
#version 460
// Radix sort, before the first pass: one invocation writes the control words (RADIX_CONTROL_*): state
// cleared, the data in the caller's buffers, the per-slot grids as templates and as live arguments
// (the first pass always counts), scatter and finish empty until a spine opens them.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_RADIX_INIT
#include "common/interface.h"

layout(local_size_x = 1) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

void main() {
  Words c = Words(pc.control);
  for (uint i = 0u; i < RADIX_CONTROL_SLOT_ARGS; ++i) c.w[i] = 0u;
  // The keys this sort orders; every later kernel reads them here (a GPU-side count is only known now).
  const bool gpu_count = pc.count != uvec2(0u);
  c.w[RADIX_CONTROL_N] = gpu_count ? min(Words(pc.count).w[0], pc.n) : pc.n;
  for (uint s = 0u; s < RADIX_MAX_SLOTS; ++s) {
    const bool used = s < pc.slots;
    for (uint a = 0u; a < 3u; ++a) {
      const uint v = used ? pc.grids[3u * s + a] : (a == 0u ? 0u : 1u);
      c.w[RADIX_CONTROL_SLOT_GRIDS + 4u * s + a] = v;
      c.w[RADIX_CONTROL_SLOT_ARGS + 4u * s + a] = v;
    }
    c.w[RADIX_CONTROL_SLOT_GRIDS + 4u * s + 3u] = 0u;
    c.w[RADIX_CONTROL_SLOT_ARGS + 4u * s + 3u] = 0u;
  }
  // Scatter and finish run on the passes' grid once a spine sets x.
  for (uint a = 1u; a < 3u; ++a) {
    c.w[RADIX_CONTROL_SCATTER_ARGS + a] = pc.grids[3u * RADIX_SLOT_PASSES + a];
    c.w[RADIX_CONTROL_FINISH_ARGS + a] = pc.grids[3u * RADIX_SLOT_PASSES + a];
  }
}
