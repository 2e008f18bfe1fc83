// SPDX-License-Identifier: MIT
// The segment a key position lies in, by binary search in segmented sort's offsets (segments + 1
// non-decreasing words, read when the kernel runs, so an earlier GPU pass may have written them).
// Whatever the offsets hold, the result is in [0, segments): a permutation sorted by it stays one.
#ifndef VKSORT_SEGMENT_SEARCH_GLSL
#define VKSORT_SEGMENT_SEARCH_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer SegmentOffsets { uint w[]; };

// The last s in [first, segments) with offsets[s] <= position, or `first` if there is none: the
// first s in [first + 1, segments) with offsets[s] > position, less one. At most 32 steps: far below
// any driver's loop limit.
uint segment_search(SegmentOffsets offsets, uint segments, uint position, uint first) {
  uint lo = first + 1u, hi = segments;
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2u;
    if (offsets.w[mid] <= position) lo = mid + 1u;
    else hi = mid;
  }
  return lo - 1u;
}

#endif
