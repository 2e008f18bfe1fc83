// SPDX-License-Identifier: MIT
#version 460
// Radix sort (reduce-then-scan), step 2 of a pass: ONE workgroup scans the spine and decides, without a
// host round trip, what the following dispatches do (through their indirect arguments).
//
// The spine is small: the count leaves one digit histogram per workgroup of the pass (each of which
// sorts a contiguous range of tiles), digit-major, counts[d * groups + g], then the groups' inversions.
// Its exclusive prefix sum in place gives every group's first output position per digit, P_d[g] (Ha et
// al. section 4.4, over groups instead of blocks), in one dispatch instead of a multi-level scan.
// The same pass over the counts decides, in parallel across the workgroup:
//  - no inversion in any group (the count's order check): the data is sorted. This scatter and every
//    later count become empty dispatches and later spines return at once. Ha et al. section 4.2's
//    check before each pass, at no extra read.
//  - one digit's total is n: the scatter would move nothing (the split is stable): skip it.
//  - otherwise the scatter runs from the current buffer into the other one.
// It also opens the finish copy whenever the data now ends in scratch (the last verdict stands: a
// spine that returns because the data is sorted leaves CURRENT as it was).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_RADIX_SPINE
#include "common/interface.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
const uint WG = gl_WorkGroupSize.x;
const uint RADIX = 1u << RADIX_BITS;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

// s_row_start[d]: the scanned count where digit d's row starts; s_row_start[RADIX]: all keys.
shared uint s_row_start[RADIX + 1u];
shared uint s_constant_digit;  // non-zero once some digit's row holds all n keys

// x: digit counts, y: inversions.
#define WG_SCAN_T uvec2
#include "common/workgroup_scan.glsl"

void main() {
  Words c = Words(pc.control);
  // Uniform: every invocation reads the word before invocation 0 may change it (after the barriers).
  if (c.w[RADIX_CONTROL_DONE] != 0u) return;
  invocation_rank_init();
  const uint t = invocation_rank();
  Words counts = Words(pc.counts);
  const uint n = c.w[RADIX_CONTROL_N];
  // Invocation t scans the consecutive words [first, end) of the digit rows (so rows straddle
  // invocations, and the workgroup scan carries them across) and sums every WG-th inversion.
  const uint words = RADIX * pc.groups;
  const uint per = (words + WG - 1u) / WG;
  const uint first = min(t * per, words), end = min(first + per, words);
  uvec2 sums = uvec2(0u);
  for (uint i = first; i < end; ++i) sums.x += counts.w[i];
  for (uint g = t; g < pc.groups; g += WG) sums.y += counts.w[words + g];
  if (t == 0u) s_constant_digit = 0u;
  // The scan's barriers also make s_constant_digit's clearing visible.
  uvec2 total;
  uint prefix = workgroup_exclusive_scan(sums, total).x;
  // Own words only, each read and then written by this invocation alone.
  uint row = first / pc.groups, next_row = (row + 1u) * pc.groups;
  if (first < end && first == row * pc.groups) s_row_start[row] = prefix;
  for (uint i = first; i < end; ++i) {
    if (i == next_row) s_row_start[++row] = prefix, next_row += pc.groups;
    const uint x = counts.w[i];
    counts.w[i] = prefix;
    prefix += x;
  }
  if (t == 0u) s_row_start[RADIX] = total.x;
  // Every row start is in.
  barrier();
  for (uint d = t; d < pc.digits; d += WG)
    if (s_row_start[d + 1u] - s_row_start[d] == n) atomicOr(s_constant_digit, 1u);
  // Every digit is checked.
  barrier();
  if (t != 0u) return;

  c.w[RADIX_CONTROL_CHECKS] += 1u;
  const bool sorted = total.y == 0u;
  bool run = false;
  if (sorted) {
    c.w[RADIX_CONTROL_DONE] = 1u;
    if ((pc.flags & RADIX_SPINE_FIRST) != 0u) c.w[RADIX_CONTROL_SORTED_ON_ENTRY] = 1u;
    c.w[RADIX_CONTROL_SLOT_ARGS + 4u * RADIX_SLOT_PASSES] = 0u;  // later counts run no workgroup
  } else if (s_constant_digit != 0u) {
    c.w[RADIX_CONTROL_PASSES_SKIPPED] += 1u;
  } else {
    run = true;
    c.w[RADIX_CONTROL_PASSES_RUN] += 1u;
    const uint current = c.w[RADIX_CONTROL_CURRENT];
    c.w[RADIX_CONTROL_PASS_SOURCE] = current;
    c.w[RADIX_CONTROL_CURRENT] = 1u - current;
  }
  c.w[RADIX_CONTROL_SCATTER_ARGS] = run ? c.w[RADIX_CONTROL_SLOT_GRIDS + 4u * RADIX_SLOT_PASSES] : 0u;
  c.w[RADIX_CONTROL_FINISH_ARGS] =
      c.w[RADIX_CONTROL_CURRENT] != 0u ? c.w[RADIX_CONTROL_SLOT_GRIDS + 4u * RADIX_SLOT_PASSES] : 0u;
}
