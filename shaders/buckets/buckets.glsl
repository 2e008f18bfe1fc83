// SPDX-License-Identifier: MIT
// Shared by the bucket-list kernels: buffer types, the tile each workgroup walks, the workgroup prefix
// sum (common/workgroup_scan.glsl) and a workgroup OR/AND.
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

// The workgroup prefix sum is common/workgroup_scan.glsl's (workgroup_exclusive_scan), in its subgroup
// variant where the device has subgroup arithmetic in compute (built with -DBUCKET_SUBGROUPS). Kernels
// whose invocations own ordered parts of a tile (the compaction, the scan of block counts) number them
// with invocation_rank() (invocation_rank.glsl), which agrees with the sum's order.
#define WG_SCAN_T uint
#ifdef BUCKET_SUBGROUPS
#define WG_SCAN_SUBGROUPS
#endif
#include "common/workgroup_scan.glsl"

// workgroup_or_and's partial results: ORs in [0, N), ANDs in [N, 2N); one per subgroup (subgroup
// variant) or per invocation.
shared uint s_or_and[2u * gl_WorkGroupSize.x];

#ifdef BUCKET_SUBGROUPS
// Bitwise OR and AND of `o` and `a` over the workgroup. Every invocation must call it.
void workgroup_or_and(inout uint o, inout uint a) {
  o = subgroupOr(o);
  a = subgroupAnd(a);
  if (subgroupElect()) {
    s_or_and[gl_SubgroupID] = o;
    s_or_and[gl_WorkGroupSize.x + gl_SubgroupID] = a;
  }
  // Every subgroup's results are in.
  barrier();
  for (uint s = 0; s < gl_NumSubgroups; ++s) {
    o |= s_or_and[s];
    a &= s_or_and[gl_WorkGroupSize.x + s];
  }
  // Everyone has read them before the next call overwrites them.
  barrier();
}
#else
// Bitwise OR and AND of `o` and `a` over the workgroup (tree reduction; the size is a power of two).
// Every invocation must call it.
void workgroup_or_and(inout uint o, inout uint a) {
  const uint t = gl_LocalInvocationID.x, n = gl_WorkGroupSize.x;
  s_or_and[t] = o;
  s_or_and[n + t] = a;
  // Both halves hold every invocation's values.
  barrier();
  for (uint d = n / 2; d > 0; d >>= 1) {
    if (t < d) {
      s_or_and[t] |= s_or_and[t + d];
      s_or_and[n + t] &= s_or_and[n + t + d];
    }
    // Slots below d hold the reduction of twice as many values for the next step.
    barrier();
  }
  o = s_or_and[0];
  a = s_or_and[n];
  // Everyone has read the result before the next call overwrites the arrays.
  barrier();
}
#endif

#endif
