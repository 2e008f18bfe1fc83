// SPDX-License-Identifier: MIT
// Push constants of the example's own two passes, shared by main.cpp and the shaders (valid C++ and GLSL).
#ifndef EMBED_PASSES_H
#define EMBED_PASSES_H

// Device addresses are uvec2 in GLSL (GL_EXT_buffer_reference_uvec2), so the shaders need no shaderInt64.
#ifdef __cplusplus
#include <cstdint>
#define uint uint32_t
#define ADDRESS uint64_t
#else
#define ADDRESS uvec2
#endif

// Keys are hash(i) & key_mask: a mask below 2^32 makes many equal keys, so the check also sees whether
// the sort kept equal keys in input order (it is stable).
// With a GPU-side count (--gpu-count) the fill pass also decides on the GPU how many of the n keys are
// live (the first n - n / 3, as a simulation's surviving particles might be) and writes that number to
// `live`; vksort sorts only those (Sorter::record_indirect) and the check expects the rest untouched.
struct PassConstants {
  ADDRESS keys;      // device addresses of n u32 keys ...
  ADDRESS values;    // ... n u32 values ...
  ADDRESS counters;  // ... the check's 4 u32 counters ...
  ADDRESS live;      // ... and the GPU-side count (one u32), or 0: all n keys are sorted
  uint n;
  uint key_mask;
};

#ifdef __cplusplus
#undef uint
#endif
#undef ADDRESS
#endif
