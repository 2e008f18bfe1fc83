// Bitonic sorting network over (encoded key, index) pairs in shared memory, in the "flip" form: the
// first step of every stage compares element o of a block with element size-1-o (a mirror), the later
// steps compare at a distance (half-cleaners). Every block of `size` then ends ascending, so no
// direction bit is needed and a network stopped at stage `size` leaves independent sorted segments.
//
// Before including, declare TILE (a power of two) and the shared arrays s_key[TILE] (Key) and
// s_idx[TILE] (uint), and include keys.glsl; or define BITONIC_PAIRS_ONLY for the pair arithmetic alone
// (kernels that run a step in global memory). Pairs are distinct (see interface.h), so the order of
// the result does not depend on how ties would be broken.
#ifndef VKSORT_BITONIC_GLSL
#define VKSORT_BITONIC_GLSL

// (key a, index ia) orders before (key b, index ib).
bool pair_less(Key a, uint ia, Key b, uint ib) { return key_less(a, b) || (a == b && ia < ib); }

// The lower element of compare-exchange t (0 <= t < count / 2) at distance `stride`, and its partner:
// the mirror inside its block of `size` on a stage's first step, lo + stride after.
uvec2 bitonic_pair(uint t, uint size, uint stride) {
  const uint lo = 2u * t - (t & (stride - 1u));  // t-th index whose `stride` bit is clear
  return uvec2(lo, stride == size / 2u ? lo ^ (size - 1u) : lo + stride);
}

#ifndef BITONIC_PAIRS_ONLY
// One step over the whole tile. Ends with a barrier: the next step reads what this one wrote.
void bitonic_shared_step(uint size, uint stride) {
  for (uint t = gl_LocalInvocationID.x; t < TILE / 2u; t += gl_WorkGroupSize.x) {
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

// Stages 2 .. last_size (a power of two <= TILE): sorts every block of last_size. The caller's
// writes to the arrays must be complete (a barrier) before the call.
void bitonic_shared_sort(uint last_size) {
  for (uint size = 2u; size <= last_size; size <<= 1)
    for (uint stride = size >> 1; stride > 0u; stride >>= 1) bitonic_shared_step(size, stride);
}

// The steps of stage `size` (> TILE) whose distance is inside the tile: TILE / 2 .. 1. Earlier steps
// of the stage ran in global memory.
void bitonic_shared_merge(uint size) {
  for (uint stride = TILE / 2u; stride > 0u; stride >>= 1) bitonic_shared_step(size, stride);
}
#endif

#endif
