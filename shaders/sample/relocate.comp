// SPDX-License-Identifier: MIT
#version 460
// Step 8: one workgroup per sublist (a_*) moves each of its buckets to its place in bucket j's
// segment of the b_* array (segment j = [j * segment, (j + 1) * segment), pre-filled with all-ones
// padding): at counts[j * m + sublist] - counts[j * m] (the step-7 prefix sums) past the segment's
// start. A bucket's elements are contiguous on both sides, so reads and writes are coalesced.
// Group 0 also records the largest bucket.
#include "sample/sample_common.glsl"
#include "common/store_any_wins.glsl"

// Start of bucket j inside this sublist (s_start[s] = TILE), and where it goes in b_*.
shared uint s_start[TILE + 1];
shared uint s_dest[TILE];

void main() {
  const uint sub = linear_group_id();
  if (sub >= pc.group_count) return;
  const uint base = sub * TILE, s = pc.samples, m = pc.sublists, tid = gl_LocalInvocationID.x;
  Keys a_keys = Keys(pc.a_keys), b_keys = Keys(pc.b_keys);
  Words a_idx = Words(pc.a_idx), b_idx = Words(pc.b_idx);
  Words counts = Words(pc.counts), starts = Words(pc.starts), control = Words(pc.control);

  for (uint j = tid; j < s; j += gl_WorkGroupSize.x) {
    s_start[j] = starts.w[sub * s + j];
    s_dest[j] = j * pc.segment + (counts.w[j * m + sub] - counts.w[j * m]);
    if (sub == 0u) atomicMax(control.w[SAMPLE_CONTROL_LARGEST], bucket_size(j));
  }
  if (tid == 0u) s_start[s] = TILE;
  barrier();  // the bucket table is complete before anyone looks elements up in it

  for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
    // The last bucket starting at or before i (empty buckets start where the next one does).
    uint lo = 0u, hi = s;  // invariant: s_start[lo] <= i < s_start[hi]
    while (hi - lo > 1u) {
      const uint mid = (lo + hi) / 2u;
      if (s_start[mid] <= i) lo = mid; else hi = mid;
    }
    const uint offset = i - s_start[lo];
    // Bucket sizes are at most 2 m TILE / s <= segment; guard anyway rather than write out of place.
    if (s_dest[lo] - lo * pc.segment + offset >= pc.segment) {
      store_any_wins(control.w[SAMPLE_CONTROL_OVERFLOW], 1u);  // any invocation that overflows
      continue;
    }
    b_keys.k[s_dest[lo] + offset] = a_keys.k[base + i];
    b_idx.w[s_dest[lo] + offset] = a_idx.w[base + i];
  }
}
