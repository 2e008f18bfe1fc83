// SPDX-License-Identifier: MIT
// reference_sort.hpp — the CPU reference that every GPU result is compared with, byte for byte.
//
// Keys are raw little-endian bytes of one vksort::Key kind (n = keys.size() / key_bytes(key)); values,
// when present, are one uint32_t per key. Order is that of the encoded key (host_keys.hpp), so floats
// follow IEEE total order and NaNs have a defined place instead of breaking the comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <vksort/types.hpp>

namespace vksort::workloads {

// Sorts `keys` in place, stably, and permutes `values` (empty, or exactly one per key) with them.
// Descending is an ascending sort of the inverted encoding, so it is stable too: equal keys keep their
// input order in both orders. Throws std::invalid_argument if the sizes do not fit together.
// begin_bit/end_bit order by those bits of the encoded key only, as SortOptions' bit range does
// (end_bit 0: the key's width).
void reference_sort(Key key, Order order, std::span<std::byte> keys, std::span<uint32_t> values, uint32_t begin_bit = 0,
                    uint32_t end_bit = 0);

// Empty if `got` equals `expected` byte for byte (keys and values). Otherwise one line naming the first
// differing index with both keys (in their type; floats also as hex bits) and values, and how many
// positions differ. Different sizes are a difference. Pass empty value spans to compare keys only.
std::string first_difference(Key key, std::span<const std::byte> expected, std::span<const std::byte> got,
                             std::span<const uint32_t> expected_values = {},
                             std::span<const uint32_t> got_values = {});

// True if the encoded keys never decrease, i.e. `keys` is sorted in `order` by the reference's rule
// (by bits [begin_bit, end_bit) of the encoded key only, where given).
bool is_sorted_encoded(Key key, Order order, std::span<const std::byte> keys, uint32_t begin_bit = 0, uint32_t end_bit = 0);

// One key printed as first_difference prints it ("-1.5 (0xbfc00000)", "-7", ...).
std::string format_key(Key key, const std::byte* raw);

}  // namespace vksort::workloads
