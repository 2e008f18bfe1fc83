// SPDX-License-Identifier: MIT
// splitters.hpp — the sampling half of Dehne & Zaboli's deterministic sample sort with one sublist per
// rank: regular samples of each sorted run, p - 1 splitters from all samples, each located in every run.
// Pure functions on encoded keys (unsigned order = the sort's order), no MPI, unit-tested alone.
//
// Elements are ordered by (encoded key, rank, position in the rank's sorted run). The local sort is
// stable, so a rank's position order among equal keys is its input order: this order is the stable
// order of the concatenated input, and it makes all elements distinct, which is what bounds the buckets
// even when every key is equal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

namespace vksort::mpi::detail {

struct Sample {
  uint64_t key = 0;       // encoded, widened
  uint64_t rank = 0;
  uint64_t position = 0;  // in the rank's sorted run
  friend bool operator<(const Sample& a, const Sample& b) {
    return std::tie(a.key, a.rank, a.position) < std::tie(b.key, b.rank, b.position);
  }
};

// s, samples per rank-share: `oversampling`, or for 0 max(p + 1, 64) (see vksort/mpi.hpp).
uint64_t samples_per_share(int p, uint32_t oversampling);

// d, the distance between a rank's samples: max(1, ceil(n / (p s))) for n keys on p ranks with s
// samples per rank-share. The same on every rank, since it depends only on n.
uint64_t sample_step(uint64_t n, int p, uint32_t oversampling);

// The guarantee on the keys a rank receives when S samples were taken with step d (see vksort/mpi.hpp):
// a bucket holds at most ceil(S/p) samples, and each of the p runs at most d - 1 keys beyond its samples
// in the bucket. Saturates at 2^64 - 1.
uint64_t bucket_bound(uint64_t samples, int p, uint64_t d);

// Rank `rank`'s samples: its keys at positions d-1, 2d-1, ... of its sorted run.
template <class U>
std::vector<Sample> take_samples(std::span<const U> run, int rank, uint64_t d) {
  std::vector<Sample> samples;
  samples.reserve(run.size() / d);
  for (uint64_t pos = d - 1; pos < run.size(); pos += d) samples.push_back({run[pos], uint64_t(rank), pos});
  return samples;
}

// The p - 1 splitters from all ranks' samples, sorted: samples floor(j S / p) for j = 1 .. p-1, so
// bucket j (the elements from splitter j, inclusive, to splitter j + 1, exclusive) holds the samples
// floor(j S/p) .. floor((j+1) S/p) - 1: at most ceil(S/p). Empty when there are no samples.
std::vector<Sample> choose_splitters(std::span<const Sample> sorted_samples, int p);

// Where the buckets begin in rank `rank`'s sorted run: p + 1 positions, 0 first and run.size() last;
// bucket j is [bounds[j], bounds[j + 1]). With no splitters (no keys anywhere) everything is bucket 0.
template <class U>
std::vector<uint64_t> locate_splitters(std::span<const U> run, int rank, std::span<const Sample> splitters, int p) {
  std::vector<uint64_t> bounds(size_t(p) + 1, run.size());
  bounds[0] = 0;
  for (size_t j = 0; j < splitters.size(); ++j) {
    const Sample& s = splitters[j];
    // The first element not below s: the run is sorted by (key, position) and its rank is fixed, so
    // among keys equal to s.key the rank decides, and on s's own rank the position does.
    const auto equal = std::equal_range(run.begin(), run.end(), U(s.key));
    if (uint64_t(rank) > s.rank) bounds[j + 1] = uint64_t(equal.first - run.begin());
    else if (uint64_t(rank) < s.rank) bounds[j + 1] = uint64_t(equal.second - run.begin());
    else bounds[j + 1] = s.position;
  }
  return bounds;
}

}  // namespace vksort::mpi::detail
