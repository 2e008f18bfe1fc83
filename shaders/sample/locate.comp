// SPDX-License-Identifier: MIT
#version 460
// Step 6: one workgroup per sorted sublist (a_*) finds where each splitter (b_*, s - 1 of them, in
// ascending order) falls in it, by the paper's parallel binary search: splitter s/2 first over the
// whole sublist, then s/4 and 3s/4 inside the halves that left, and so on; log2(s) rounds of at most
// s/2 searches, each in a range that the earlier rounds narrowed. Bucket j of the sublist is
// [bound j, bound j + 1); its size goes to counts[j * m + sublist] (bucket-major: the order of the
// step-7 prefix sum) and its start to starts[sublist * s + j].
#include "sample/sample_common.glsl"

// bound[k] (0 <= k <= s): elements of the sublist <= splitter k - 1, with bound[0] = 0 and bound[s] =
// TILE. Round h writes the odd multiples of h, reading the bounds 2h apart written before.
shared uint s_bound[TILE + 1];
#define BITONIC_PAIRS_ONLY
#include "common/bitonic.glsl"

void main() {
  const uint sub = linear_group_id();
  if (sub >= pc.group_count) return;
  const uint base = sub * TILE, s = pc.samples, tid = gl_LocalInvocationID.x;
  Keys a_keys = Keys(pc.a_keys), b_keys = Keys(pc.b_keys);
  Words a_idx = Words(pc.a_idx), b_idx = Words(pc.b_idx);
  Words counts = Words(pc.counts), starts = Words(pc.starts);

  if (tid == 0u) {
    s_bound[0] = 0u;
    s_bound[s] = TILE;
  }
  barrier();
  for (uint h = s / 2u; h > 0u; h >>= 1) {
    for (uint q = tid; q < s / (2u * h); q += gl_WorkGroupSize.x) {
      const uint k = (2u * q + 1u) * h;
      const Key g = b_keys.k[k - 1u];
      const uint gi = b_idx.w[k - 1u];
      uint lo = s_bound[k - h], hi = s_bound[k + h];
      // First position in [lo, hi) whose pair is after the splitter.
      while (lo < hi) {
        const uint mid = (lo + hi) / 2u;
        if (pair_less(g, gi, a_keys.k[base + mid], a_idx.w[base + mid])) hi = mid; else lo = mid + 1u;
      }
      s_bound[k] = lo;
    }
    // This round's bounds are visible to the next, which searches between them.
    barrier();
  }
  for (uint j = tid; j < s; j += gl_WorkGroupSize.x) {
    starts.w[sub * s + j] = s_bound[j];
    counts.w[j * pc.sublists + sub] = s_bound[j + 1u] - s_bound[j];
  }
}
