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
// Double buffer: step k reads buffer k % 2 and writes the other, so a step never overwrites what
// another invocation may still read in the same step.
shared WG_SCAN_T s_wg_scan[2 * WG_SCAN_N];

// Returns the sum of the values of invocations < this one; `total` receives the sum over all. Contains
// barriers (call it in uniform control flow); every shared-memory read a caller issued before the
// call happens before every write the caller issues after it.
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

#endif
