// SPDX-License-Identifier: MIT
// The key of element i: a 32-bit integer hash (good enough to look random, cheap to recompute).
uint element_key(uint i, uint mask) {
  uint x = i * 0x9E3779B9u + 0x7F4A7C15u;
  x ^= x >> 16; x *= 0x85EBCA6Bu;
  x ^= x >> 13; x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x & mask;
}
