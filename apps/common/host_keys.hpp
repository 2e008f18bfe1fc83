// SPDX-License-Identifier: MIT
// host_keys.hpp — the order-preserving key encoding that the GPU folds into its first and last pass,
// written once more for the host so that references and CPU baselines sort by exactly the same rule.
//
// After encoding, comparing keys as unsigned integers gives the key type's order:
//   unsigned: as is.  signed: sign bit flipped, so INT_MIN -> 0 and INT_MAX -> all ones.
//   float: IEEE total order (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN): a negative float's
//          bits grow as it falls, so all of them are inverted; a positive one only gains the sign bit.
//   descending: the ascending encoding inverted, so an ascending sort of it is a descending sort.
// Every step is a bijection on the bit pattern, so decode(encode(x)) == x for every x, NaNs included.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <vksort/types.hpp>

namespace vksort::workloads {

// Keys are defined as little-endian bytes (files, GPU buffers); reading them with memcpy into a native
// integer is only that on a little-endian host, which every target of a Vulkan sort is.
static_assert(std::endian::native == std::endian::little, "raw key bytes are little-endian");

// The encoding for one (Key, Order), on bit patterns of width U (uint32_t or uint64_t). Built once per
// sort so that inner loops see two masks and a flag instead of a switch.
template <class U>
struct KeyCodec {
  static_assert(std::is_same_v<U, uint32_t> || std::is_same_v<U, uint64_t>);
  static constexpr U sign_bit = U(1) << (sizeof(U) * 8 - 1);

  bool floating = false;
  U fixed = 0;   // xor for integer kinds: the sign bit for signed ones
  U invert = 0;  // all ones for descending

  static constexpr KeyCodec make(Key key, Order order) {
    assert(key_bytes(key) == sizeof(U));
    KeyCodec c;
    c.floating = is_floating(key);
    c.fixed = is_signed_integer(key) ? sign_bit : U(0);
    c.invert = order == Order::descending ? ~U(0) : U(0);
    return c;
  }
  constexpr U encode(U bits) const {
    const U m = floating ? ((bits & sign_bit) ? ~U(0) : sign_bit) : fixed;
    return bits ^ m ^ invert;
  }
  constexpr U decode(U encoded) const {
    const U a = encoded ^ invert;
    // An encoded float with the top bit set was positive (it only gained the sign bit).
    const U m = floating ? ((a & sign_bit) ? sign_bit : ~U(0)) : fixed;
    return a ^ m;
  }
};

constexpr uint32_t encode_key32(Key key, Order order, uint32_t bits) {
  return KeyCodec<uint32_t>::make(key, order).encode(bits);
}
constexpr uint32_t decode_key32(Key key, Order order, uint32_t encoded) {
  return KeyCodec<uint32_t>::make(key, order).decode(encoded);
}
constexpr uint64_t encode_key64(Key key, Order order, uint64_t bits) {
  return KeyCodec<uint64_t>::make(key, order).encode(bits);
}
constexpr uint64_t decode_key64(Key key, Order order, uint64_t encoded) {
  return KeyCodec<uint64_t>::make(key, order).decode(encoded);
}

// The raw bits of the key at `raw` (key_bytes(key) bytes, any alignment), zero-extended to 64 bits.
inline uint64_t load_key_bits(Key key, const std::byte* raw) {
  if (key_bytes(key) == 4) {
    uint32_t b;
    std::memcpy(&b, raw, 4);
    return b;
  }
  uint64_t b;
  std::memcpy(&b, raw, 8);
  return b;
}

// Writes the low key_bytes(key) bytes of `bits` to `raw`.
inline void store_key_bits(Key key, uint64_t bits, std::byte* raw) {
  if (key_bytes(key) == 4) {
    const auto b = static_cast<uint32_t>(bits);
    std::memcpy(raw, &b, 4);
  } else {
    std::memcpy(raw, &bits, 8);
  }
}

// The encoded key at `raw`, widened to 64 bits (32-bit kinds stay below 2^32, so widened encodings of
// one kind still compare correctly).
inline uint64_t encode_key(Key key, Order order, const std::byte* raw) {
  const uint64_t bits = load_key_bits(key, raw);
  return key_bytes(key) == 4 ? encode_key32(key, order, static_cast<uint32_t>(bits))
                             : encode_key64(key, order, bits);
}

// The bits [begin, end) of an encoded key (end 0: the key's width), shifted down: what a sort by a bit
// range (SortOptions::begin_bit, end_bit) orders by; the whole encoded key for [0, 0).
template <class U>
constexpr U bit_field(U encoded, uint32_t begin, uint32_t end) {
  const uint32_t width = sizeof(U) * 8;
  if (end == 0 || end > width) end = width;
  if (begin >= end) return 0;
  const uint32_t bits = end - begin;
  const U mask = bits == width ? ~U(0) : (U(1) << bits) - 1;
  return (encoded >> begin) & mask;
}

// What a sort of `key` in `order` by bits [begin_bit, end_bit) orders the key at `raw` by, widened to
// 64 bits: smaller goes first, equal keeps input order.
inline uint64_t ordering_key(Key key, Order order, uint32_t begin_bit, uint32_t end_bit, const std::byte* raw) {
  return key_bytes(key) == 4 ? bit_field<uint32_t>(static_cast<uint32_t>(encode_key(key, order, raw)), begin_bit, end_bit)
                             : bit_field<uint64_t>(encode_key(key, order, raw), begin_bit, end_bit);
}

// Inverse of encode_key: writes the raw key whose encoding is `encoded` to `raw`.
inline void decode_key(Key key, Order order, uint64_t encoded, std::byte* raw) {
  const uint64_t bits = key_bytes(key) == 4 ? decode_key32(key, order, static_cast<uint32_t>(encoded))
                                            : decode_key64(key, order, encoded);
  store_key_bits(key, bits, raw);
}

// The C++ type of a key kind, for code that wants to look at keys as numbers (tests, printing).
template <Key K>
struct key_type;
template <> struct key_type<Key::u32> { using type = uint32_t; };
template <> struct key_type<Key::i32> { using type = int32_t; };
template <> struct key_type<Key::f32> { using type = float; };
template <> struct key_type<Key::u64> { using type = uint64_t; };
template <> struct key_type<Key::i64> { using type = int64_t; };
template <> struct key_type<Key::f64> { using type = double; };
template <Key K>
using key_type_t = typename key_type<K>::type;

// Calls f(T{}) with T the C++ type of `key`, and returns what it returns.
template <class F>
decltype(auto) with_key_type(Key key, F&& f) {
  switch (key) {
    case Key::element:  // unset reads u32 wherever no element type says otherwise
    case Key::u32: return f(uint32_t{});
    case Key::i32: return f(int32_t{});
    case Key::f32: return f(float{});
    case Key::u64: return f(uint64_t{});
    case Key::i64: return f(int64_t{});
    case Key::f64: break;
  }
  return f(double{});
}

// Typed access to raw key arrays: the i-th key as T (T must be key_bytes wide).
template <class T>
T load_key_as(const std::byte* raw, size_t i) {
  T v;
  std::memcpy(&v, raw + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace vksort::workloads
