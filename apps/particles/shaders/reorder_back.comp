// SPDX-License-Identifier: MIT
#version 460
// The Verlet list's rebuild: copies what reorder.comp gathered into pc.tmp back over the particle
// arrays. A kernel rather than the buffer copies of the every-step path, so that it can be dispatched
// indirectly: on the steps without a rebuild it runs no groups, and the arrays stay as they are.
#include "dpd.glsl"
#include "params_constants.glsl"

void main() {
  Params p = Params(pc.params);
  const uint n = c_n;
  const uint k = item_index();
  if (k >= n) return;
  Vec4s src = Vec4s(pc.tmp);
  Vec4s(pc.pos).v[k] = src.v[k];
  Vec4s(pc.vel).v[k] = src.v[n + k];
  Vec4s(pc.vtilde).v[k] = src.v[2u * n + k];
  Vec4s(pc.force).v[k] = src.v[3u * n + k];
  Uints(pc.ids).u[k] = Uints(pc.tmp).u[16u * n + k];
}
