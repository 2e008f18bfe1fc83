// SPDX-License-Identifier: MIT
#include "result_check.hpp"

#include <cstring>
#include <string>

#include "host_keys.hpp"
#include "vksort/error.hpp"

namespace vksort::external::detail {

namespace {

// splitmix64's finaliser: every input bit changes about half of the output bits.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t load(const std::byte* p, uint32_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  return v;
}

}  // namespace

uint64_t ResultCheck::sum(const std::byte* keys, const std::byte* values, uint64_t count) const {
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t h = mix(load(keys + i * kb_, kb_) + 0x9e3779b97f4a7c15ull);
    const std::byte* v = values + i * vb_;
    for (uint32_t at = 0; at < vb_; at += 8) h = mix(h ^ load(v + at, vb_ - at < 8 ? vb_ - at : 8)) + at;
    total += h;
  }
  return total;
}

void ResultCheck::input(const std::byte* keys, const std::byte* values, uint64_t count) {
  in_count_ += count;
  in_sum_ += sum(keys, values, count);
}

void ResultCheck::output(const std::byte* keys, const std::byte* values, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t e = workloads::ordering_key(key_, order_, begin_bit_, end_bit_, keys + i * kb_);
    if (out_count_ + i > 0 && e < last_)
      throw Error("--check: output key " + std::to_string(out_count_ + i) + " is out of order; output left untouched, "
                  "please report this");
    last_ = e;
  }
  out_count_ += count;
  out_sum_ += sum(keys, values, count);
}

void ResultCheck::finish() const {
  if (in_count_ != out_count_ || in_sum_ != out_sum_)
    throw Error("--check: the output holds " + std::to_string(out_count_) + " records that are not the input's " +
                std::to_string(in_count_) + " (keys or values lost, repeated or changed); output left untouched, "
                "please report this");
}

}  // namespace vksort::external::detail
