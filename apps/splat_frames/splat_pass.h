// SPDX-License-Identifier: MIT
// Push constants of the splat example's culling pass, shared by main.cpp and splat_keys.comp (valid C++
// and GLSL). Device addresses are uvec2 in GLSL, so the shader needs no shaderInt64.
#ifndef SPLAT_PASS_H
#define SPLAT_PASS_H

#ifdef __cplusplus
#include <cstdint>
#define uint uint32_t
#define ADDRESS uint64_t
#else
#define ADDRESS uvec2
#endif

// Screen tiles are TILE_PIXELS square, as in 3D Gaussian splatting's tile rasteriser.
#define TILE_PIXELS 16

struct SplatPass {
  ADDRESS positions;  // n splat centres, 3 floats each (world space)
  ADDRESS keys;       // written: one 64-bit key per visible splat: tile id << 32 | depth bits
  ADDRESS indices;    // written: the splat each key belongs to
  ADDRESS count;      // written: visible splats (one uint, zeroed before the pass)
  uint n;
  uint width, height;  // pixels
  uint tiles_x;        // width / TILE_PIXELS rounded up
  float cos_yaw, sin_yaw;  // the camera turns about the y axis ...
  float camera_z;          // ... standing at (0, 0, camera_z) looking down +z
  float focal;             // pixels
};

#ifdef __cplusplus
#undef uint
#endif
#undef ADDRESS
#endif
