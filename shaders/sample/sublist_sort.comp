// SPDX-License-Identifier: MIT
#version 460
// Steps 1-3: each workgroup sorts one sublist of TILE keys in shared memory with a bitonic network
// and writes it as (encoded key, original index) pairs to a_*; with the write-back it takes the
// sublist's s equidistant samples (the last element of each of its s runs of TILE / s) to
// b_*[sublist * s + k]. Keys are encoded on load; values are copied aside (saved_values) because the
// last step overwrites the caller's buffer. Positions beyond n become (KEY_MAX, position): they sort
// after every real key and stay distinct.
#include "sample/sample_common.glsl"

shared Key s_key[TILE];
shared uint s_idx[TILE];
#include "common/bitonic.glsl"

void main() {
  const uint sub = linear_group_id();
  if (sub >= pc.group_count) return;
  const uint base = sub * TILE;
  const uint tid = gl_LocalInvocationID.x;
  Keys keys = Keys(pc.keys), a_keys = Keys(pc.a_keys), b_keys = Keys(pc.b_keys);
  Words values = Words(pc.values), saved = Words(pc.saved_values);
  Words a_idx = Words(pc.a_idx), b_idx = Words(pc.b_idx);

  for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
    const uint g = base + i;
    const bool live = g < pc.n;
    s_key[i] = live ? encode_key(keys.k[g]) : KEY_MAX;
    s_idx[i] = g;
    if (HAS_VALUES && live) saved.w[g] = values.w[g];
  }
  barrier();  // the tile is loaded before the network reads it
  bitonic_shared_sort(TILE);

  for (uint i = tid; i < TILE; i += gl_WorkGroupSize.x) {
    a_keys.k[base + i] = s_key[i];
    a_idx.w[base + i] = s_idx[i];
  }
  const uint run = TILE / pc.samples;
  for (uint k = tid; k < pc.samples; k += gl_WorkGroupSize.x) {
    const uint j = (k + 1u) * run - 1u;
    b_keys.k[sub * pc.samples + k] = s_key[j];
    b_idx.w[sub * pc.samples + k] = s_idx[j];
  }
}
