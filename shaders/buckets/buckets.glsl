// SPDX-License-Identifier: MIT
// Shared by the bucket-list kernels: buffer types, the tile each workgroup walks and a workgroup
// prefix sum (in shared memory, or with subgroup arithmetic where the device has it).
//
// Tiles are blocked: invocation t of group g owns list positions g * TILE + t * ITEMS + [0, ITEMS), so
// the order of positions inside a tile is (t, k) and a per-invocation exclusive sum is enough for a
// stable (order-keeping) compaction.
#ifndef VKSORT_BUCKETS_GLSL
#define VKSORT_BUCKETS_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#include "common/grid.glsl"
#include "common/store_any_wins.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 4;
const uint TILE = gl_WorkGroupSize.x * ITEMS;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

uint slot_word(uint slot, uint word) { return slot * BUCKET_SLOT_WORDS + word; }
uint tiles_for(uint count) { return (count + TILE - 1) / TILE; }
bool has_address(uvec2 a) { return a != uvec2(0); }

// The fallback's list: in kernels that run before their pass's gate (leftover_bits, split_count,
// link_runs), slot FALLBACK_SLOT ^ FALLBACK_MOVES; after it (compact), FALLBACK_SLOT. The fallback's
// kernels get slot 0's list as list_in and slot 1's as list_out.
uint fallback_slot(Words control, bool after_gate) {
  const uint s = control.w[BUCKET_CONTROL_FALLBACK_SLOT];
  return after_gate ? s : s ^ control.w[BUCKET_CONTROL_FALLBACK_MOVES];
}
Words slot_list(uint slot) { return Words(slot == 0u ? pc.list_in : pc.list_out); }

// The bucket an id asks for: itself, or BUCKET_INVALID (no list) for an id >= M.
uint bucket_of_id(uint id) { return id < pc.m ? id : BUCKET_INVALID; }

// What the fallback's radix sort orders by: the bucket, or M for an element without one. Partial update
// hands the parts not admitted yet straight to the fallback, bad ids included; ordered by their low
// bits they would land inside a bucket's run and split it in two, and link_runs would link only one
// half (both halves' first elements write the head). Ordered as M they come after every bucket, where
// link_runs skips them. Keys are below 2^bit_width(M): the host records that many split passes.
uint fallback_key(uint b) { return b == BUCKET_INVALID ? pc.m : b; }

#ifdef BUCKET_SUBGROUPS
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
// The subgroup variant (built with -DBUCKET_SUBGROUPS, used where the device has subgroup arithmetic in
// compute): a subgroup scan, then one shared word per subgroup. Two barriers instead of 2 log2(size).
// Kernels whose invocations own ordered parts of a tile (the compaction, the scan of block counts)
// number them with invocation_rank() (invocation_rank.glsl), which agrees with the sums' order.
#define INVOCATION_RANK_BY_SUBGROUPS
#include "common/invocation_rank.glsl"
shared uint s_sum[gl_WorkGroupSize.x];  // one word per subgroup; there are at most as many as invocations
shared uint s_and[gl_WorkGroupSize.x];  // workgroup_or_and's AND results, one per subgroup

uint workgroup_exclusive_sum(uint v, out uint total) {
  const uint in_subgroup = subgroupExclusiveAdd(v);
  const uint subgroup_total = subgroupAdd(v);
  if (subgroupElect()) s_sum[gl_SubgroupID] = subgroup_total;
  // Every subgroup's total is in s_sum.
  barrier();
  uint before = 0;
  total = 0;
  for (uint s = 0; s < gl_NumSubgroups; ++s) {
    const uint x = s_sum[s];
    if (s < gl_SubgroupID) before += x;
    total += x;
  }
  // Everyone has read s_sum before the next call overwrites it.
  barrier();
  return before + in_subgroup;
}

// Bitwise OR and AND of `o` and `a` over the workgroup. Every invocation must call it.
void workgroup_or_and(inout uint o, inout uint a) {
  o = subgroupOr(o);
  a = subgroupAnd(a);
  if (subgroupElect()) {
    s_sum[gl_SubgroupID] = o;
    s_and[gl_SubgroupID] = a;
  }
  // Every subgroup's results are in s_sum / s_and.
  barrier();
  for (uint s = 0; s < gl_NumSubgroups; ++s) {
    o |= s_sum[s];
    a &= s_and[s];
  }
  // Everyone has read them before the next call overwrites them.
  barrier();
}
#else
#include "common/invocation_rank.glsl"

// One word per invocation; reused by every call, hence the barrier before returning.
shared uint s_sum[gl_WorkGroupSize.x];
shared uint s_and[gl_WorkGroupSize.x];  // workgroup_or_and's second array

// Exclusive prefix sum of `v` over the workgroup's invocations (Hillis-Steele); `total` is the sum of
// all. Every invocation must call it (it contains barriers).
uint workgroup_exclusive_sum(uint v, out uint total) {
  const uint t = gl_LocalInvocationID.x;
  s_sum[t] = v;
  // s_sum holds every invocation's value.
  barrier();
  for (uint d = 1; d < gl_WorkGroupSize.x; d <<= 1) {
    const uint add = t >= d ? s_sum[t - d] : 0u;
    // Everyone read the previous step's sums before anyone overwrites them.
    barrier();
    s_sum[t] += add;
    // s_sum[t] is the inclusive sum over [t - 2d + 1, t] for the next step.
    barrier();
  }
  total = s_sum[gl_WorkGroupSize.x - 1];
  const uint inclusive = s_sum[t];
  // Everyone has read its result before the next call overwrites s_sum.
  barrier();
  return inclusive - v;
}

// Bitwise OR and AND of `o` and `a` over the workgroup (tree reduction; the size is a power of two).
// Every invocation must call it.
void workgroup_or_and(inout uint o, inout uint a) {
  const uint t = gl_LocalInvocationID.x;
  s_sum[t] = o;
  s_and[t] = a;
  // Both arrays hold every invocation's values.
  barrier();
  for (uint d = gl_WorkGroupSize.x / 2; d > 0; d >>= 1) {
    if (t < d) {
      s_sum[t] |= s_sum[t + d];
      s_and[t] &= s_and[t + d];
    }
    // Slots below d hold the reduction of twice as many values for the next step.
    barrier();
  }
  o = s_sum[0];
  a = s_and[0];
  // Everyone has read the result before the next call overwrites the arrays.
  barrier();
}
#endif

#endif
