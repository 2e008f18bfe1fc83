// SPDX-License-Identifier: MIT
// Device addresses in shaders are two 32-bit words (x low, y high: shaderInt64 is not required of the
// device), so arithmetic on them must carry from the low word into the high one: an offset added to
// the low word alone points 4 GiB below its target once the sum wraps, which happens wherever a
// buffer's range crosses a multiple of 4 GiB (tests/test_address_boundary.cpp places them so).
#ifndef VKSORT_ADDRESS_GLSL
#define VKSORT_ADDRESS_GLSL

// base + count * stride bytes, over the whole 64-bit range.
uvec2 address_at(uvec2 base, uint count, uint stride) {
  uint hi, lo, carry;
  umulExtended(count, stride, hi, lo);
  lo = uaddCarry(base.x, lo, carry);
  return uvec2(lo, base.y + hi + carry);
}

#endif
