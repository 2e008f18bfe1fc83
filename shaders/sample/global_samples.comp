// SPDX-License-Identifier: MIT
#version 460
// Step 5: the s - 1 global samples (splitters) from the s * m sorted samples in a_*: the last of each
// run of m, b_*[j] = a_*[(j + 1) * m - 1]. Splitter j closes bucket j: bucket j holds the pairs in
// (splitter j - 1, splitter j], the last bucket everything above splitter s - 2. Taking every m-th of
// the samples is what bounds every bucket by 2 * m * TILE / s elements (see sample_sort.hpp).
#include "sample/sample_common.glsl"

void main() {
  Keys a_keys = Keys(pc.a_keys), b_keys = Keys(pc.b_keys);
  Words a_idx = Words(pc.a_idx), b_idx = Words(pc.b_idx);
  for (uint j = gl_LocalInvocationID.x; j + 1u < pc.samples; j += gl_WorkGroupSize.x) {
    const uint from = (j + 1u) * pc.sublists - 1u;
    b_keys.k[j] = a_keys.k[from];
    b_idx.w[j] = a_idx.w[from];
  }
}
