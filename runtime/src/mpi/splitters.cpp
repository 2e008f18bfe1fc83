// SPDX-License-Identifier: MIT
#include "mpi/splitters.hpp"

namespace vksort::mpi::detail {

uint64_t samples_per_share(int p, uint32_t oversampling) {
  return oversampling ? oversampling : std::max<uint64_t>(uint64_t(p) + 1, 64);
}

uint64_t sample_step(uint64_t n, int p, uint32_t oversampling) {
  const uint64_t s = samples_per_share(p, oversampling);
  const uint64_t share = uint64_t(p) * s;
  return std::max<uint64_t>(1, n / share + (n % share != 0));
}

uint64_t bucket_bound(uint64_t samples, int p, uint64_t d) {
  const uint64_t per_bucket = samples / uint64_t(p) + (samples % uint64_t(p) != 0);
  // With few samples per share (s < p + 1) and n near 2^64 the bound passes 2^64: saturated.
  uint64_t samples_part = 0, spread_part = 0, bound = 0;
  if (__builtin_mul_overflow(per_bucket, d, &samples_part) || __builtin_mul_overflow(uint64_t(p), d - 1, &spread_part) ||
      __builtin_add_overflow(samples_part, spread_part, &bound))
    return UINT64_MAX;
  return bound;
}

std::vector<Sample> choose_splitters(std::span<const Sample> sorted_samples, int p) {
  std::vector<Sample> splitters;
  const uint64_t S = sorted_samples.size();
  if (S == 0) return splitters;
  // j S / p < S for j < p, so every index is a sample; 128-bit-free: S is at most about p s.
  for (uint64_t j = 1; j < uint64_t(p); ++j) splitters.push_back(sorted_samples[j * S / uint64_t(p)]);
  return splitters;
}

}  // namespace vksort::mpi::detail
