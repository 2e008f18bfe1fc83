// SPDX-License-Identifier: MIT
// Bitonic sorting network over (encoded key, index) pairs in shared memory, in the "flip" form: the
// first step of every stage compares element o of a block with element size-1-o (a mirror), the later
// steps compare at a distance (half-cleaners). Every block of `size` then ends ascending, so no
// direction bit is needed and a network stopped at stage `size` leaves independent sorted segments.
//
// Before including, declare TILE (a power of two) and the shared arrays s_key[TILE] (Key) and
// s_idx[TILE] (uint), and include keys.glsl; optionally define BITONIC_EXTENT, an expression for the
// number of elements the network covers (a power of two <= TILE; default TILE), for a kernel whose
// data fills only the start of the tile; or define BITONIC_PAIRS_ONLY for the pair arithmetic alone
// (kernels that run a step in global memory). Pairs are distinct (see interface.h), so the order of
// the result does not depend on how ties would be broken.
#ifndef VKSORT_BITONIC_GLSL
#define VKSORT_BITONIC_GLSL
#extension GL_EXT_control_flow_attributes : require

// (key a, index ia) orders before (key b, index ib).
bool pair_less(Key a, uint ia, Key b, uint ib) { return key_less(a, b) || (a == b && ia < ib); }

// The lower element of compare-exchange t (0 <= t < count / 2) at distance `stride`, and its partner:
// the mirror inside its block of `size` on a stage's first step, lo + stride after.
uvec2 bitonic_pair(uint t, uint size, uint stride) {
  const uint lo = 2u * t - (t & (stride - 1u));  // t-th index whose `stride` bit is clear
  return uvec2(lo, stride == size / 2u ? lo ^ (size - 1u) : lo + stride);
}

#ifndef BITONIC_PAIRS_ONLY
#ifndef BITONIC_EXTENT
#define BITONIC_EXTENT TILE
#endif
// One step over the whole tile (its first BITONIC_EXTENT elements). Ends with a barrier: the next step reads what this one wrote.
void bitonic_shared_step(uint size, uint stride) {
  for (uint t = gl_LocalInvocationID.x; t < BITONIC_EXTENT / 2u; t += gl_WorkGroupSize.x) {
    const uvec2 p = bitonic_pair(t, size, stride);
    const Key a = s_key[p.x], b = s_key[p.y];
    const uint ia = s_idx[p.x], ib = s_idx[p.y];
    if (pair_less(b, ib, a, ia)) {
      s_key[p.x] = b; s_key[p.y] = a;
      s_idx[p.x] = ib; s_idx[p.y] = ia;
    }
  }
  barrier();
}

// Half-cleaner steps at distances d, d/2, ..., d >> (N - 1) in one pass: each invocation loads the
// 2^N elements one unit of them touches (the element b and b + i * (d >> (N - 1)) for i < 2^N),
// runs the N steps in registers and stores them. A step reads and writes every element once, so N
// steps per pass cut shared-memory traffic and barriers by N (lavapipe: shared memory is ordinary
// memory reached by gathers and scatters, which is what a bitonic sort spends its time on).
#define BITONIC_CLEANERS(N)                                                              \
  void bitonic_cleaners_##N(uint d) {                                                    \
    const uint low = d >> (N - 1u);                                                      \
    for (uint u = gl_LocalInvocationID.x; u < (BITONIC_EXTENT >> N); u += gl_WorkGroupSize.x) {  \
      /* u with N zero bits inserted at the bit of `low` */                               \
      const uint b = (u / low) * (low << N) + u % low;                                   \
      Key k[1 << N];                                                                     \
      uint x[1 << N];                                                                    \
      [[unroll]] for (uint i = 0u; i < (1u << N); ++i) {                                 \
        k[i] = s_key[b + i * low];                                                       \
        x[i] = s_idx[b + i * low];                                                       \
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
        s_key[b + i * low] = k[i];                                                       \
        s_idx[b + i * low] = x[i];                                                       \
      }                                                                                  \
    }                                                                                    \
    barrier();                                                                           \
  }
BITONIC_CLEANERS(1)
BITONIC_CLEANERS(2)
BITONIC_CLEANERS(3)

// The half-cleaner steps at distances d, d/2, ..., 1, three at a time. Each pass stays inside
// aligned blocks of 2d and ends with a barrier.
void bitonic_shared_cleaners(uint d) {
  uint steps = findMSB(d) + 1u;  // log2(d) + 1
  for (; steps >= 3u; steps -= 3u, d >>= 3) bitonic_cleaners_3(d);
  if (steps == 2u) bitonic_cleaners_2(d);
  if (steps == 1u) bitonic_cleaners_1(d);
}

// Stages 2 .. last_size (a power of two <= TILE): sorts every block of last_size. The caller's
// writes to the arrays must be complete (a barrier) before the call.
void bitonic_shared_sort(uint last_size) {
  for (uint size = 2u; size <= last_size; size <<= 1) {
    bitonic_shared_step(size, size >> 1);  // the mirror step
    if (size >= 4u) bitonic_shared_cleaners(size >> 2);
  }
}

// The steps of stage `size` (> TILE) whose distance is inside the tile: TILE / 2 .. 1. Earlier steps
// of the stage ran in global memory.
void bitonic_shared_merge(uint size) { bitonic_shared_cleaners(TILE / 2u); }
#endif

#endif
