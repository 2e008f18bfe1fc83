// SPDX-License-Identifier: MIT
// Shared by the record-sorting kernels (index_fill, gather): how many records a sort orders.
#ifndef VKSORT_RECORDS_GLSL
#define VKSORT_RECORDS_GLSL

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer RecordCount { uint value; };

// pc.n, or with a GPU-side count (Sorter::record_indirect) min(*count, pc.n): the records past it are
// not the sort's, so every kernel leaves them alone.
uint records_in_play() {
  if (pc.count == uvec2(0)) return pc.n;
  return min(RecordCount(pc.count).value, pc.n);
}
#endif
