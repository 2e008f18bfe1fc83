// SPDX-License-Identifier: MIT
// invocation_rank(): the invocation's place in the order of the workgroup-wide sums and scans, for
// kernels whose invocations own ordered parts of the data. Define INVOCATION_RANK_BY_SUBGROUPS before
// including where those sums are built from subgroup operations (workgroup_scan.glsl and buckets.glsl
// in their subgroup variants); otherwise the order is LocalInvocationIndex.
//
// Subgroup sums run in the order (subgroup, lane), which Vulkan does not tie to LocalInvocationIndex,
// and a subgroup need not be full (that takes Vulkan 1.3's full-subgroup guarantees). So
// invocation_rank_init() numbers the invocations in that order, counting each subgroup's active
// invocations: a numbering of [0, WORKGROUP_SIZE) that agrees with the sums whatever the subgroup size
// and layout. Call it once, in uniform control flow, before invocation_rank().
#ifndef VKSORT_INVOCATION_RANK_GLSL
#define VKSORT_INVOCATION_RANK_GLSL

#ifdef INVOCATION_RANK_BY_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

shared uint s_rank_subgroup_size[gl_WorkGroupSize.x];  // active invocations of each subgroup
uint g_invocation_rank;

void invocation_rank_init() {
  const uint live = subgroupAdd(1u);
  if (subgroupElect()) s_rank_subgroup_size[gl_SubgroupID] = live;
  // Every subgroup's size is in (and never written again).
  barrier();
  uint before = 0u;
  for (uint s = 0u; s < gl_SubgroupID; ++s) before += s_rank_subgroup_size[s];
  g_invocation_rank = before + subgroupExclusiveAdd(1u);
}
uint invocation_rank() { return g_invocation_rank; }
#else
void invocation_rank_init() {}
uint invocation_rank() { return gl_LocalInvocationID.x; }
#endif

#endif
