// SPDX-License-Identifier: MIT
// Digits of encoded keys for the radix sort: bit fields of the key as one unsigned integer (a 64-bit
// key is a uvec2, x = low word), and the order check restricted to the bits the sort orders by.
// Include after keys.glsl.
#ifndef VKSORT_RADIX_DIGITS_GLSL
#define VKSORT_RADIX_DIGITS_GLSL

#if KEY_WORDS == 1
// Bits [shift, shift + width) of k, width <= 8. Bits past the key's width read as zero.
uint key_digit(Key k, uint shift, uint width) { return (k >> shift) & ((1u << width) - 1u); }
Key key_range_mask(uint lo, uint hi) { return lo; }
#else
uint key_digit(Key k, uint shift, uint width) {
  uint low;
  if (shift >= 32u) low = k.y >> (shift - 32u);
  else if (shift == 0u) low = k.x;
  else low = (k.x >> shift) | (k.y << (32u - shift));  // a field may straddle the two words
  return low & ((1u << width) - 1u);
}
Key key_range_mask(uint lo, uint hi) { return uvec2(lo, hi); }
#endif

#endif
