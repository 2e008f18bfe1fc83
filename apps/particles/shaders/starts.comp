// SPDX-License-Identifier: MIT
#version 460
// Cell order: the first slot of every cell c in 0..cells, from the cell ids of the slots, which the
// spatial sort has just put in ascending order. starts[c] is the first slot whose cell id is >= c (n if
// none), so an empty cell starts where the next one does and cells c..d hold exactly the slots
// starts[c] .. starts[d + 1] - 1; starts[cells] is n, or the first slot of a particle outside the box
// (cell id DPD_NULL, sorted last).
//   One invocation per slot k, counting ids beyond the grid as `cells`: slot k is the first slot of
// cells prev + 1 .. c, where c is its cell and prev the cell of slot k - 1 (-1 before slot 0), and the
// last slot also ends cells c + 1 .. cells at n. So every start is written once, by one slot.
//   Why not a binary search per cell: on lavapipe each probe is a load whose address differs between
// lanes, i.e. a loop over the lanes; the search's ~17 probes per cell took 11% of a step (32000
// particles, 42592 cells). Here a slot loads two ids and writes ~cells / n starts.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

void main() {
  Params p = Params(pc.params);
  const uint cells = c_nx * c_ny * c_nz, n = c_n;
  const uint k = item_index();
  if (k >= n) return;
  const uint c = min(b_cell[k], cells);
  const uint first = k == 0u ? 0u : min(b_cell[k - 1u], cells) + 1u;
  for (uint b = first; b <= c; ++b) b_starts[b] = k;
  if (k == n - 1u) {
    for (uint b = c + 1u; b <= cells; ++b) b_starts[b] = n;
  }
}
