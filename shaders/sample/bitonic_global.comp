// SPDX-License-Identifier: MIT
#version 460
// Steps of a bitonic stage in global memory, for distances >= TILE that a tile cannot hold (see
// common/bitonic.glsl for the flip form). Each workgroup covers TILE elements of the pair array a_*.
// The stage's first step (stride == size / 2) pairs mirrors, one step per dispatch; the half-cleaner
// steps after it run STEPS = flags >> SAMPLE_STEPS_SHIFT (1-3) at a time: distances stride,
// stride / 2, ... on units of 2^STEPS elements held in registers, so each element is read and
// written once per STEPS steps.
#include "sample/sample_common.glsl"
#extension GL_EXT_control_flow_attributes : require
#define BITONIC_PAIRS_ONLY
#include "common/bitonic.glsl"

#define GLOBAL_CLEANERS(N)                                                               \
  void global_cleaners_##N(uint group) {                                                 \
    const uint low = pc.stride >> (N - 1u);                                              \
    const uint units = TILE >> N;                                                        \
    /* A group's units lie in one block of 2 * stride (low >= TILE > units) */         \
    const uint first = group * units;                                                    \
    if (padding_only((first / low) * (low << N))) return;                                \
    Keys keys = Keys(pc.a_keys);                                                         \
    Words idx = Words(pc.a_idx);                                                         \
    for (uint u = first + gl_LocalInvocationID.x; u < first + units; u += gl_WorkGroupSize.x) { \
      const uint b = (u / low) * (low << N) + u % low;                                   \
      Key k[1 << N];                                                                     \
      uint x[1 << N];                                                                    \
      [[unroll]] for (uint i = 0u; i < (1u << N); ++i) {                                 \
        k[i] = keys.k[b + i * low];                                                      \
        x[i] = idx.w[b + i * low];                                                       \
      }                                                                                  \
      [[unroll]] for (uint step = 0u; step < N; ++step) {                                \
        const uint h = (1u << (N - 1u)) >> step;                                         \
        [[unroll]] for (uint i = 0u; i < (1u << N); ++i)                                 \
          if ((i & h) == 0u && pair_less(k[i + h], x[i + h], k[i], x[i])) {              \
            const Key tk = k[i]; k[i] = k[i + h]; k[i + h] = tk;                         \
            const uint tx = x[i]; x[i] = x[i + h]; x[i + h] = tx;                        \
          }                                                                              \
      }                                                                                  \
      [[unroll]] for (uint i = 0u; i < (1u << N); ++i) {                                 \
        keys.k[b + i * low] = k[i];                                                      \
        idx.w[b + i * low] = x[i];                                                       \
      }                                                                                  \
    }                                                                                    \
  }
GLOBAL_CLEANERS(1)
GLOBAL_CLEANERS(2)
GLOBAL_CLEANERS(3)

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint steps = pc.flags >> SAMPLE_STEPS_SHIFT;
  if (steps == 1u && pc.stride != pc.size / 2u) global_cleaners_1(group);
  if (steps == 2u) global_cleaners_2(group);
  if (steps == 3u) global_cleaners_3(group);
  if (pc.stride != pc.size / 2u) return;

  // The mirror step. The TILE / 2 pairs of this group have consecutive lower elements inside one
  // block of `size`: one test for all of them.
  const uint first = group * (TILE / 2u);
  if (padding_only(bitonic_pair(first, pc.size, pc.stride).x & ~(pc.size - 1u))) return;
  Keys keys = Keys(pc.a_keys);
  Words idx = Words(pc.a_idx);
  for (uint t = gl_LocalInvocationID.x; t < TILE / 2u; t += gl_WorkGroupSize.x) {
    const uvec2 p = bitonic_pair(first + t, pc.size, pc.stride);
    const Key a = keys.k[p.x], b = keys.k[p.y];
    const uint ia = idx.w[p.x], ib = idx.w[p.y];
    if (pair_less(b, ib, a, ia)) {
      keys.k[p.x] = b; keys.k[p.y] = a;
      idx.w[p.x] = ib; idx.w[p.y] = ia;
    }
  }
}
