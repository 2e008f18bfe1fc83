// SPDX-License-Identifier: MIT
#version 460
// Radix sort, between the scan and the scatter of each pass: one invocation reads the scanned counts
// and decides, without a host round trip, what the following dispatches do (through their indirect
// arguments):
//  - the count's order check found no inversion (sum of the inversion row is 0; the scan's total is
//    then exactly n): the data is sorted. This scatter and every later count, scan and scatter become
//    empty dispatches. Ha et al. section 4.2's check before each pass, here at no extra read.
//  - one digit's total is n: the scatter would move nothing (the split is stable): skip it.
//  - otherwise the scatter runs from the current buffer into the other one.
// The gate of the last recorded pass also opens the finish copy when the data ended in scratch.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_RADIX_GATE
#include "common/interface.h"

layout(local_size_x = 1) in;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint RADIX = 1u << RADIX_BITS;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

void main() {
  Words c = Words(pc.control);
  Words counts = Words(pc.counts);
  const uint n = c.w[RADIX_CONTROL_N];
  bool done = c.w[RADIX_CONTROL_DONE] != 0u;
  if (!done) {
    // Fresh counts exist only while not done: an earlier verdict emptied this pass's count and scan.
    c.w[RADIX_CONTROL_CHECKS] += 1u;
    // The exclusive scan's last entry is the sum of every digit row (n) and the inversion row.
    if (counts.w[(RADIX + 1u) * pc.blocks] == n) {
      done = true;
      c.w[RADIX_CONTROL_DONE] = 1u;
      if ((pc.flags & RADIX_GATE_FIRST) != 0u) c.w[RADIX_CONTROL_SORTED_ON_ENTRY] = 1u;
    }
  }
  bool run = false;
  if (!done) {
    // Row d starts at counts[d * blocks]; the row after the last digit row starts at n's position.
    bool constant_digit = false;
    for (uint d = 0u; d < pc.digits && !constant_digit; ++d)
      constant_digit = counts.w[(d + 1u) * pc.blocks] - counts.w[d * pc.blocks] == n;
    if (constant_digit) {
      c.w[RADIX_CONTROL_PASSES_SKIPPED] += 1u;
    } else {
      run = true;
      c.w[RADIX_CONTROL_PASSES_RUN] += 1u;
      const uint current = c.w[RADIX_CONTROL_CURRENT];
      c.w[RADIX_CONTROL_PASS_SOURCE] = current;
      c.w[RADIX_CONTROL_CURRENT] = 1u - current;
    }
  }
  const uint blocks_x = c.w[RADIX_CONTROL_SLOT_GRIDS];
  c.w[RADIX_CONTROL_SCATTER_ARGS] = run ? blocks_x : 0u;
  for (uint s = 0u; s < pc.slots; ++s)
    c.w[RADIX_CONTROL_SLOT_ARGS + 4u * s] = done ? 0u : c.w[RADIX_CONTROL_SLOT_GRIDS + 4u * s];
  if ((pc.flags & RADIX_GATE_LAST) != 0u)
    c.w[RADIX_CONTROL_FINISH_ARGS] = c.w[RADIX_CONTROL_CURRENT] != 0u ? blocks_x : 0u;
}
