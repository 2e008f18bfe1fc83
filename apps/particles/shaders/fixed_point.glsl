// SPDX-License-Identifier: MIT
// Forces summed in 64-bit two's complement fixed point (2^-32 units) held as (lo, hi) words, so no
// shaderInt64 is needed. Addition there is exact, so a sum does not depend on the order of its terms:
// the force kernels stay deterministic whatever order pairs are found or atomics land in.
#ifndef PARTICLES_FIXED_POINT_GLSL
#define PARTICLES_FIXED_POINT_GLSL

// The fixed value of f: |f| split into whole and fraction (both exact: trunc is exact in float and so
// is the difference; scaling by 2^32 is exact), negated by its sign, so fixed(-f) == -fixed(f).
uvec2 fixed_of(float f) {
  const float m = abs(f);
  const uint hi = uint(m);
  const uint lo = uint((m - float(hi)) * 4294967296.0);
  return f < 0.0 ? uvec2(-lo, ~hi + uint(lo == 0u)) : uvec2(lo, hi);
}

void fixed_add(inout uvec2 acc, float f) {
  const uvec2 v = fixed_of(f);
  uint carry;
  acc.x = uaddCarry(acc.x, v.x, carry);
  acc.y += v.y + carry;
}

float fixed_value(uvec2 acc) { return float(int(acc.y)) + float(acc.x) * (1.0 / 4294967296.0); }

#endif
