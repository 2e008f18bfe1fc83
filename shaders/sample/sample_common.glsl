// Declarations every sample sort kernel shares: the push constants, keys, the tile and pair arrays.
#ifndef VKSORT_SAMPLE_COMMON_GLSL
#define VKSORT_SAMPLE_COMMON_GLSL
#define PUSH_SAMPLE
#include "common/interface.h"
#include "common/keys.glsl"
#include "common/grid.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_ITEMS_PER_THREAD) const uint ITEMS = 8;
layout(constant_id = SPEC_HAS_VALUES) const bool HAS_VALUES = false;
// Keys in one sublist, one bitonic tile; the same for every kernel of a sort.
const uint TILE = gl_WorkGroupSize.x * ITEMS;
#endif
