// SPDX-License-Identifier: MIT
#version 460
// The Verlet list's rebuild: copies what reorder.comp gathered into the staging buffers (DPD_BIND_TMP_*)
// back over the particle arrays. A kernel rather than the buffer copies of the every-step path, so that it can be dispatched
// indirectly: on the steps without a rebuild it runs no groups, and the arrays stay as they are.
#include "dpd.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

void main() {
  Params p = Params(pc.params);
  const uint n = c_n;
  const uint k = item_index();
  if (k >= n) return;
  b_pos[k] = b_tmp_pos[k];
  b_vel[k] = b_tmp_vel[k];
  b_vtilde[k] = b_tmp_vtilde[k];
  b_ids[k] = b_tmp_ids[k];
}
