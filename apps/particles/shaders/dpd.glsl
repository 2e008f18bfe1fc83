// SPDX-License-Identifier: MIT
// Shared by the particle kernels: buffer types, the parameter block, the linear item index over the
// 2-D dispatch grid, cell coordinates and the pair noise.
#ifndef PARTICLES_DPD_GLSL
#define PARTICLES_DPD_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x_id = 0) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Uvec2s { uvec2 u[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Ivec4s { ivec4 v[]; };
// Read-only views for the force kernel's gathers: no store in that kernel can alias them, so the
// compiler may keep loads in registers across the neighbour loop.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly restrict buffer Vec4sIn { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly restrict buffer UintsIn { uint u[]; };

#include "dpd_interface.h"

// The host splits large dispatches over y so x stays within maxComputeWorkGroupCount[0].
uint item_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

// Cell coordinate of `x` on an axis of `cells` cells of edge `edge`. A coordinate exactly on the upper
// face (x == L after float wrapping) belongs to the last cell, which is where it is in space.
uint cell_coord(float x, float edge, uint cells) {
  precise const float q = x / edge;  // precise: the same cell wherever it is computed (params_constants.glsl)
  return min(uint(q), cells - 1u);
}

// --- random numbers -----------------------------------------------------------------------------
// A bijective 32-bit mixer (xor-shift-multiply, constants with low bias); chaining it over the key's
// words gives a counter-based generator: no state, any pair's number computed in any order.
uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
uint pair_hash(uint seed, uint step, uint lo, uint hi) {
  uint h = mix32(seed ^ 0x9e3779b9u);
  h = mix32(h ^ step);
  h = mix32(h ^ lo);
  return mix32(h ^ (hi * 0x85ebca6bu));
}
// Uniform on (0, 1) from the top 24 bits: every value exactly representable, never 0 or 1.
float unit_float(uint h) { return (float(h >> 8) + 0.5) * (1.0 / 16777216.0); }
// Uniform with mean 0 and variance 1 (Groot & Warren use a uniform, not a Gaussian, for Theta_ij).
float unit_noise(float u) { return 1.7320508 * (2.0 * u - 1.0); }

// Theta_ij: symmetric in i and j by construction, so F_R(ij) = -F_R(ji) exactly.
float pair_noise(uint seed, uint rng, uint step, uint i, uint j, float state_i, float state_j) {
  if (rng == DPD_RNG_PAPER) return unit_noise(fract(state_i + state_j));
  return unit_noise(unit_float(pair_hash(seed, step, min(i, j), max(i, j))));
}

// The paper's generator (Karpinski's floating-point test): one step of a particle's stream. In float32
// it falls into short cycles, which is why it is only an option.
float paper_next(float r) {
  const float y = r + 1.7320508;
  const float y2 = y * y;
  const float x = 1.000005 * (y2 * y2 * y);
  return fract(x);
}

#endif
