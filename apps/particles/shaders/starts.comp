// SPDX-License-Identifier: MIT
#version 460
// Cell order: the first slot of every cell c in 0..cells (starts[cells] = n), by binary search in the
// cell ids of the slots, which the spatial sort has just put in ascending order. An empty cell starts
// where the next one does, so cells c..d hold exactly the slots starts[c] .. starts[d + 1] - 1.
#include "dpd.glsl"

void main() {
  Params p = Params(pc.params);
  const uint cells = p.nx * p.ny * p.nz;
  const uint c = item_index();
  if (c > cells) return;
  UintsIn cell = UintsIn(pc.cell);
  uint lo = 0, hi = p.n;  // the first slot whose cell id is >= c
  while (lo < hi) {
    const uint mid = (lo + hi) / 2u;
    if (cell.u[mid] < c) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  Uints(pc.starts).u[c] = lo;
}
