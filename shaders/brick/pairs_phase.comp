// SPDX-License-Identifier: MIT
#version 460
// Element-wise brick sort (the seed's odd-even transposition), one phase per dispatch: invocation i
// compare-exchanges keys 2i + parity and 2i + parity + 1. Pairs of one phase are disjoint; the seed
// ran both phases in one dispatch, which races across workgroups, so the runtime dispatches each phase
// separately with a barrier between them. Swapping only strictly greater keys keeps the sort stable.
#define PUSH_BRICK
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"
#include "common/store_any_wins.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_HAS_VALUES) const bool HAS_VALUES = false;

void main() {
  const uint group = linear_group_id();
  if (group >= pc.group_count) return;
  const uint a = 2 * (group * gl_WorkGroupSize.x + gl_LocalInvocationID.x) + pc.parity;
  if (a + 1 >= pc.n) return;
  Keys keys = Keys(pc.keys);
  const Key raw_a = keys.k[a], raw_b = keys.k[a + 1];
  if (!key_less(encode_key(raw_b), encode_key(raw_a))) return;
  keys.k[a] = raw_b;
  keys.k[a + 1] = raw_a;
  if (HAS_VALUES) {
    Words values = Words(pc.values);
    const uint va = values.w[a];
    values.w[a] = values.w[a + 1];
    values.w[a + 1] = va;
  }
  store_any_wins(Words(pc.control).w[BRICK_CONTROL_CHANGED], 1u);  // every swapping invocation writes 1
}
