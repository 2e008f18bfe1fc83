// SPDX-License-Identifier: MIT
// Exclusive prefix sum of one value per invocation across the workgroup, in shared memory. Define
// WG_SCAN_T (uint, uvec2, ...: any type with + and a zero constructor) before including; the file
// declares the shared array it uses, so include it once per shader.
//
// Ha et al. scan their four counters with the up-sweep / down-sweep tree of Algorithms 5 and 6, one
// flag per key. Callers here first count serially over the keys each invocation holds, so only the
// per-invocation totals are scanned, and the scan is Hillis and Steele's: log2(WORKGROUP_SIZE) steps
// in which every invocation does the same work. The tree's levels leave most invocations idle, and
// where a compiler executes both sides of a divergent branch for every group of lanes (CPU drivers
// such as lavapipe) idle invocations cost as much as busy ones; it also needs twice the barriers.
// Needs a power-of-two workgroup size (the runtime only builds those).
#ifndef VKSORT_WORKGROUP_SCAN_GLSL
#define VKSORT_WORKGROUP_SCAN_GLSL

const uint WG_SCAN_N = gl_WorkGroupSize.x;

#ifdef WG_SCAN_SUBGROUPS
// The subgroup variant (built with -DWG_SCAN_SUBGROUPS; the runtime uses it where the device has
// subgroup arithmetic in compute): a subgroup scan, then one shared word per subgroup. Two barriers
// instead of Hillis and Steele's log2(WORKGROUP_SIZE) + 1.
// Callers number invocations with invocation_rank() (invocation_rank.glsl), which agrees with the
// scan's (subgroup, lane) order.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define INVOCATION_RANK_BY_SUBGROUPS
#include "common/invocation_rank.glsl"

shared WG_SCAN_T s_wg_scan[WG_SCAN_N];  // one entry per subgroup; there are at most as many as invocations

WG_SCAN_T workgroup_exclusive_scan(WG_SCAN_T value, out WG_SCAN_T total) {
  const WG_SCAN_T in_subgroup = subgroupExclusiveAdd(value);
  const WG_SCAN_T subgroup_total = subgroupAdd(value);
  // A previous call's readers finished before its last barrier.
  if (subgroupElect()) s_wg_scan[gl_SubgroupID] = subgroup_total;
  // Every subgroup's total is in.
  barrier();
  WG_SCAN_T before = WG_SCAN_T(0u), all = WG_SCAN_T(0u);
  for (uint s = 0u; s < gl_NumSubgroups; ++s) {
    const WG_SCAN_T x = s_wg_scan[s];
    if (s < gl_SubgroupID) before += x;
    all += x;
  }
  total = all;
  // Everyone has read the totals before the next call overwrites them.
  barrier();
  return before + in_subgroup;
}
#else
#include "common/invocation_rank.glsl"

// Double buffer: step k reads buffer k % 2 and writes the other, so a step never overwrites what
// another invocation may still read in the same step.
shared WG_SCAN_T s_wg_scan[2 * WG_SCAN_N];

// Returns the sum of the values of invocations before this one (in invocation_rank() order); `total`
// receives the sum over all. Contains barriers (call it in uniform control flow); every shared-memory
// read a caller issued before the call happens before every write the caller issues after it. (Both
// variants.)
WG_SCAN_T workgroup_exclusive_scan(WG_SCAN_T value, out WG_SCAN_T total) {
  const uint t = gl_LocalInvocationID.x;
  uint side = 0u;
  WG_SCAN_T inclusive = value;
  // Own entry only; its last reader (a previous call's) finished before that call's last barrier.
  s_wg_scan[t] = inclusive;
  barrier();
  for (uint d = 1u; d < WG_SCAN_N; d <<= 1) {
    // Every invocation reads (its own entry when there is nothing d to the left), so no lane idles.
    const WG_SCAN_T left = s_wg_scan[side * WG_SCAN_N + (t >= d ? t - d : t)];
    if (t >= d) inclusive += left;
    side ^= 1u;
    s_wg_scan[side * WG_SCAN_N + t] = inclusive;
    // This step's writes are visible to the next step; this step's reads of the other buffer are
    // done before the next step overwrites it.
    barrier();
  }
  total = s_wg_scan[side * WG_SCAN_N + WG_SCAN_N - 1u];
  // With an even number of steps the result sits in buffer 0, which the next call writes first:
  // everyone must have read the total before.
  if (side == 0u && WG_SCAN_N > 1u) barrier();
  return inclusive - value;
}

#endif  // WG_SCAN_SUBGROUPS

#endif
