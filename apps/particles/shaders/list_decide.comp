// SPDX-License-Identifier: MIT
#version 460
// One invocation, after list_check.comp: whether this step rebuilds the Verlet list (some particle
// moved too far, or the host asks with pc.count = 1). The rebuild's passes read the answer as their
// dispatch sizes (all groups or none), the spatial sort as its key count, and the forces from the old
// list as theirs (none on a rebuild step, whose build computes the forces), so the host records every
// step the same way and never waits for the GPU to decide.
#include "dpd.glsl"

void main() {
  if (item_index() != 0u) return;
  Params p = Params(pc.params);
  Uints c = Uints(p.list_control);
  const bool rebuild = pc.count != 0u || c.u[DPD_LIST_MOVED] != 0u;
  c.u[DPD_LIST_MOVED] = 0u;
  c.u[DPD_LIST_SORT_COUNT] = rebuild ? p.n : 0u;
  for (uint k = 0; k < 3u; ++k) {
    c.u[DPD_LIST_ITEMS_ARGS + k] = rebuild ? c.u[DPD_LIST_ITEMS_FULL + k] : 0u;
    c.u[DPD_LIST_REUSE_ARGS + k] = rebuild ? 0u : c.u[DPD_LIST_ITEMS_FULL + k];
  }
  if (rebuild) c.u[DPD_LIST_BUILDS] += 1u;
}
