// SPDX-License-Identifier: MIT
// Logical workgroup ids over the 3-D grids the runtime uses when one dimension would exceed
// maxComputeWorkGroupCount (gpu::grid_for). gl_NumWorkGroups also holds for indirect dispatches.
#ifndef VKSORT_GRID_GLSL
#define VKSORT_GRID_GLSL
uint linear_group_id() {
  return (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}
#endif
