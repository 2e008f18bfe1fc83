#version 460
// One step of a bitonic stage in global memory, for distances >= TILE that a tile cannot hold: each
// workgroup does TILE / 2 compare-exchanges of the pair array a_* (see common/bitonic.glsl for the
// flip form: the stage's first step pairs mirrors, the later ones lo and lo + stride).
#include "sample/sample_common.glsl"
#define BITONIC_PAIRS_ONLY
#include "common/bitonic.glsl"

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  // The TILE / 2 pairs of this group have consecutive lower elements inside one block of 2 * stride
  // (stride >= TILE): one test for all of them.
  const uint first = group * (TILE / 2u);
  if (padding_only(bitonic_pair(first, pc.size, pc.stride).x & ~(2u * pc.stride - 1u))) return;
  Keys keys = Keys(pc.a_keys);
  Words idx = Words(pc.a_idx);
  for (uint t = gl_LocalInvocationID.x; t < TILE / 2u; t += gl_WorkGroupSize.x) {
    const uvec2 p = bitonic_pair(group * (TILE / 2u) + t, pc.size, pc.stride);
    const Key a = keys.k[p.x], b = keys.k[p.y];
    const uint ia = idx.w[p.x], ib = idx.w[p.y];
    if (pair_less(b, ib, a, ia)) {
      keys.k[p.x] = b; keys.k[p.y] = a;
      idx.w[p.x] = ib; idx.w[p.y] = ia;
    }
  }
}
