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
//
// Two ways to scan, one workgroup either way. Without subgroup arithmetic each invocation scans a
// contiguous run of words, which serves a CPU driver well. With it (built with WG_SCAN_SUBGROUPS) each
// subgroup takes a contiguous segment and walks it in steps of two neighbouring words per lane: every
// read and write of a step is one contiguous block, where a run per invocation puts each lane's
// access in another cache line (on an H100 that spine took 0.5 ms a pass for 1024 groups).
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

#ifdef WG_SCAN_SUBGROUPS
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { uvec2 p[]; };
shared uint s_segment[WG];  // each subgroup's segment total, then its first prefix
const uint SPINE_AHEAD = 4u;  // steps whose loads are in flight together (a constant: unrolled)

// The lane's pair of each of the SPINE_AHEAD steps from word `base` (zero from `end` on), loaded before
// any is used: a step's subgroup scan waits for its load, and in-order GPUs would otherwise issue the
// next step's load only then, one memory latency per step.
void load_steps(Pairs pairs, uint base, uint end, uint live, uint lane, out uvec2 x[SPINE_AHEAD]) {
  for (uint u = 0u; u < SPINE_AHEAD; ++u) {
    const uint i = base + 2u * (live * u + lane);
    x[u] = i < end ? pairs.p[i / 2u] : uvec2(0u);
  }
}

// The exclusive prefix sum of counts[0, words) in place, s_row_start filled, and the sums of all counts
// and of the inversions (counts[words, words + groups)). Barriers inside: call in uniform control flow.
// Subgroup s takes the segment [s * seg, (s + 1) * seg) of the words; a step takes 2 * live words, two
// per lane in lane order, so segments and steps start on even words (8-byte aligned: the runtime
// aligns the counts to 16 bytes within the scratch, whose offset is a multiple of 8).
uvec2 scan_counts(Words counts, uint words, uint t) {
  const uint live = subgroupAdd(1u), lane = subgroupExclusiveAdd(1u);
  const uint seg = (words + 2u * gl_NumSubgroups - 1u) / (2u * gl_NumSubgroups) * 2u;
  const uint first = min(gl_SubgroupID * seg, words), end = min(first + seg, words);
  Pairs pairs = Pairs(counts);
  uint sum = 0u;
  for (uint base = first; base < end; base += 2u * live * SPINE_AHEAD) {
    uvec2 x[SPINE_AHEAD];
    load_steps(pairs, base, end, live, lane, x);
    // words is even (RADIX >= 4), so both words of a pair are counts
    for (uint u = 0u; u < SPINE_AHEAD; ++u) sum += x[u].x + x[u].y;
  }
  uint inversions = 0u;
  for (uint g = t; g < pc.groups; g += WG) inversions += counts.w[words + g];
  sum = subgroupAdd(sum);
  inversions = subgroupAdd(inversions);
  if (subgroupElect()) s_segment[gl_SubgroupID] = sum;
  // Every segment's total is in.
  barrier();
  uint prefix = 0u, total = 0u;
  for (uint s = 0u; s < gl_NumSubgroups; ++s) {
    if (s < gl_SubgroupID) prefix += s_segment[s];
    total += s_segment[s];
  }
  // Everyone read the totals before they are reused for the inversions.
  barrier();
  if (subgroupElect()) s_segment[gl_SubgroupID] = inversions;
  // Each step: the pairs' exclusive prefixes across the subgroup, written back in place.
  for (uint base = first; base < end; base += 2u * live * SPINE_AHEAD) {
    uvec2 x[SPINE_AHEAD];
    load_steps(pairs, base, end, live, lane, x);
    for (uint u = 0u; u < SPINE_AHEAD; ++u) {
      const uint i = base + 2u * (live * u + lane);
      const uint before = prefix + subgroupExclusiveAdd(x[u].x + x[u].y);
      if (i < end) {
        pairs.p[i / 2u] = uvec2(before, before + x[u].x);
        // A digit's row starts at word d * groups.
        if (i % pc.groups == 0u) s_row_start[i / pc.groups] = before;
        if ((i + 1u) % pc.groups == 0u) s_row_start[(i + 1u) / pc.groups] = before + x[u].x;
      }
      prefix += subgroupAdd(x[u].x + x[u].y);
    }
  }
  if (t == 0u) s_row_start[RADIX] = total;
  // Every row start and inversion total is in.
  barrier();
  uint all_inversions = 0u;
  for (uint s = 0u; s < gl_NumSubgroups; ++s) all_inversions += s_segment[s];
  return uvec2(total, all_inversions);
}
#else
// The same, one contiguous run of words per invocation (so rows straddle invocations, and the
// workgroup scan carries them across); each invocation also sums every WG-th inversion.
uvec2 scan_counts(Words counts, uint words, uint t) {
  const uint per = (words + WG - 1u) / WG;
  const uint first = min(t * per, words), end = min(first + per, words);
  uvec2 sums = uvec2(0u);
  for (uint i = first; i < end; ++i) sums.x += counts.w[i];
  for (uint g = t; g < pc.groups; g += WG) sums.y += counts.w[words + g];
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
  return total;
}
#endif

void main() {
  Words c = Words(pc.control);
  // Uniform: every invocation reads the word before invocation 0 may change it (after the barriers).
  if (c.w[RADIX_CONTROL_DONE] != 0u) return;
  invocation_rank_init();
  const uint t = invocation_rank();
  const uint n = c.w[RADIX_CONTROL_N];
  if (t == 0u) s_constant_digit = 0u;
  // scan_counts' barriers also make s_constant_digit's clearing visible.
  const uvec2 total = scan_counts(Words(pc.counts), RADIX * pc.groups, t);
  for (uint d = t; d < pc.digits; d += WG)
    if (s_row_start[d + 1u] - s_row_start[d] == n) atomicOr(s_constant_digit, 1u);
  // Every digit is checked, and every invocation's read of RADIX_CONTROL_DONE above is done before
  // invocation 0 may overwrite it: buffer memory, so barrier() needs memoryBarrierBuffer() to order it.
  memoryBarrierBuffer();
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
