// SPDX-License-Identifier: MIT
#version 460
// Single-pass radix sort, between the histograms and the first pass: turns every pass's histogram into
// each digit's first position (an exclusive scan over the digits) and decides, without a host round
// trip, what each pass does through its indirect arguments:
//  - no adjacent inversion on entry: the data is sorted, no pass runs;
//  - one digit holds all n keys: the pass would move nothing (it is stable): it does not run;
//  - otherwise it runs from where the data is into the other buffer, on tile-state region
//    (passes run before it) % 2.
// Where the data ends decides the finish copy (scratch: copy home, decoding).
#define PUSH_ONESWEEP
#include "common/interface.h"
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 64) in;
layout(constant_id = SPEC_RADIX_BITS) const uint RADIX_BITS = 8;
layout(constant_id = SPEC_ONESWEEP_TILE) const uint TILE = 4096;  // keys per tile of the passes
const uint RADIX = 1u << RADIX_BITS;
const uint PER = (RADIX + 63u) / 64u;  // digits per invocation
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

#define WG_SCAN_T uint
#include "common/workgroup_scan.glsl"

shared uint s_constant[ONESWEEP_MAX_PASSES];

void main() {
  const uint t = gl_LocalInvocationID.x;
  Words c = Words(pc.control);
  Words digits = Words(pc.digits);
  const uint n = c.w[RADIX_CONTROL_N];
  for (uint p = t; p < pc.passes; p += 64u) s_constant[p] = 0u;
  barrier();
  for (uint p = 0u; p < pc.passes; ++p) {
    uint sum = 0u;
    for (uint b = t * PER; b < min(RADIX, (t + 1u) * PER); ++b) {
      const uint keys_here = digits.w[p * RADIX + b];
      if (keys_here == n) atomicOr(s_constant[p], 1u);  // every digit does when n is 0
      sum += keys_here;
    }
    uint total;
    uint at = workgroup_exclusive_scan(sum, total);
    for (uint b = t * PER; b < min(RADIX, (t + 1u) * PER); ++b) {
      const uint keys_here = digits.w[p * RADIX + b];
      digits.w[p * RADIX + b] = at;
      at += keys_here;
    }
  }
  // Every pass's constant-digit verdict is in.
  barrier();
  if (t != 0u) return;
  const bool sorted = c.w[ONESWEEP_CONTROL_INVERSIONS] == 0u;
  c.w[RADIX_CONTROL_CHECKS] = 1u;
  c.w[RADIX_CONTROL_DONE] = sorted ? 1u : 0u;
  c.w[RADIX_CONTROL_SORTED_ON_ENTRY] = sorted ? 1u : 0u;
  const uint tiles = (n + TILE - 1u) / TILE;
  // A grid of at least `tiles` workgroups (the passes take tile ids from a counter, so any shape does).
  const uint x = max(1u, min(tiles, pc.max_x));
  const uint y = min((tiles + x - 1u) / x, pc.max_y);
  const uint z = (tiles + x * y - 1u) / (x * y);
  uint current = 0u, ran = 0u, skipped = 0u;
  for (uint p = 0u; p < pc.passes; ++p) {
    const uint at = ONESWEEP_CONTROL_PASSES + p * ONESWEEP_PASS_WORDS;
    const bool run = !sorted && s_constant[p] == 0u;
    c.w[at + ONESWEEP_PASS_ARGS + 0u] = run ? x : 0u;
    c.w[at + ONESWEEP_PASS_ARGS + 1u] = y;
    c.w[at + ONESWEEP_PASS_ARGS + 2u] = z;
    c.w[at + ONESWEEP_PASS_SOURCE] = current;
    c.w[at + ONESWEEP_PASS_REGION] = ran & 1u;
    c.w[at + ONESWEEP_PASS_TILE_COUNTER] = 0u;
    if (run) {
      current ^= 1u;
      ++ran;
    } else if (!sorted) {
      ++skipped;
    }
  }
  c.w[RADIX_CONTROL_PASSES_RUN] = ran;
  c.w[RADIX_CONTROL_PASSES_SKIPPED] = skipped;
  c.w[RADIX_CONTROL_CURRENT] = current;
  c.w[RADIX_CONTROL_FINISH_ARGS] = current != 0u ? c.w[ONESWEEP_CONTROL_FINISH_X] : 0u;
}
