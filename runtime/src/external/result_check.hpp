// SPDX-License-Identifier: MIT
// result_check.hpp — ExternalOptions::check: proves an out-of-core result right without holding it.
// The output's keys must come in order, and input and output must hold the same (key, value) records:
// both are summed as 64-bit hashes of each record, so a lost, duplicated or altered record changes
// the output's sum (a wrong result passes only if its hashes happen to cancel: chance ~2^-64).
#pragma once

#include <cstddef>
#include <cstdint>

#include "vksort/types.hpp"

namespace vksort::external::detail {

class ResultCheck {
 public:
  // Keys are in order when their bits [begin_bit, end_bit) of the encoded key never decrease (end_bit 0:
  // the key's width), as SortOptions' bit range orders them.
  ResultCheck(Key key, Order order, uint32_t key_bytes, uint32_t value_bytes, uint32_t begin_bit = 0, uint32_t end_bit = 0)
      : key_(key), order_(order), kb_(key_bytes), vb_(value_bytes), begin_bit_(begin_bit), end_bit_(end_bit) {}
  // The records as read (in any order, from one thread at a time).
  void input(const std::byte* keys, const std::byte* values, uint64_t count);
  // The records as written, in output order; throws vksort::Error at the first key out of order.
  void output(const std::byte* keys, const std::byte* values, uint64_t count);
  // Throws vksort::Error when the output holds other records than the input.
  void finish() const;

 private:
  uint64_t sum(const std::byte* keys, const std::byte* values, uint64_t count) const;

  Key key_;
  Order order_;
  uint32_t kb_, vb_;
  uint32_t begin_bit_, end_bit_;
  uint64_t in_count_ = 0, in_sum_ = 0, out_count_ = 0, out_sum_ = 0;
  uint64_t last_ = 0;  // ordering key (ordered bits of the encoded key) of the last record written
};

}  // namespace vksort::external::detail
