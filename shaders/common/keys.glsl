// SPDX-License-Identifier: MIT
// Keys as shaders see them. KEY_WORDS (1 or 2, set by the build) fixes the storage type; the key kind
// and order are specialization constants.
//
// Every comparison happens on the *encoded* key, an unsigned integer whose order is the sort order:
//   unsigned: as is; signed: sign bit flipped; float: negative -> all bits inverted, positive -> sign bit
//   set (IEEE total order: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN); descending: inverted.
// A 64-bit key is a uvec2 (x = low word, y = high word) so no shaderInt64 is needed.
#ifndef VKSORT_KEYS_GLSL
#define VKSORT_KEYS_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(constant_id = SPEC_KEY_KIND) const uint KEY_KIND = KEY_KIND_UNSIGNED;
layout(constant_id = SPEC_DESCENDING) const bool DESCENDING = false;

#if KEY_WORDS == 1
#define Key uint
#define KEY_MAX 0xffffffffu
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Keys { uint k[]; };

Key encode_key(Key raw) {
  Key e = raw;
  if (KEY_KIND == KEY_KIND_SIGNED) e ^= 0x80000000u;
  if (KEY_KIND == KEY_KIND_FLOAT) e = (raw & 0x80000000u) != 0u ? ~raw : (raw | 0x80000000u);
  return DESCENDING ? ~e : e;
}
Key decode_key(Key e) {
  if (DESCENDING) e = ~e;
  if (KEY_KIND == KEY_KIND_SIGNED) return e ^ 0x80000000u;
  if (KEY_KIND == KEY_KIND_FLOAT) return (e & 0x80000000u) != 0u ? (e ^ 0x80000000u) : ~e;
  return e;
}
bool key_less(Key a, Key b) { return a < b; }

#elif KEY_WORDS == 2
#define Key uvec2
#define KEY_MAX uvec2(0xffffffffu)
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Keys { uvec2 k[]; };

Key encode_key(Key raw) {
  Key e = raw;
  if (KEY_KIND == KEY_KIND_SIGNED) e.y ^= 0x80000000u;
  if (KEY_KIND == KEY_KIND_FLOAT) e = (raw.y & 0x80000000u) != 0u ? ~raw : uvec2(raw.x, raw.y | 0x80000000u);
  return DESCENDING ? ~e : e;
}
Key decode_key(Key e) {
  if (DESCENDING) e = ~e;
  if (KEY_KIND == KEY_KIND_SIGNED) return uvec2(e.x, e.y ^ 0x80000000u);
  if (KEY_KIND == KEY_KIND_FLOAT) return (e.y & 0x80000000u) != 0u ? uvec2(e.x, e.y ^ 0x80000000u) : ~e;
  return e;
}
bool key_less(Key a, Key b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }

#else
#error KEY_WORDS must be 1 or 2
#endif

bool key_less_equal(Key a, Key b) { return !key_less(b, a); }

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };

#endif
