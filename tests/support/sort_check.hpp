// SPDX-License-Identifier: MIT
// Runs one GPU sort and compares it byte for byte with the CPU reference (std::stable_sort on the
// encoded key), keys and values.
#pragma once

#include <string>
#include <vector>

#include "distributions.hpp"
#include "vksort/vksort.hpp"

namespace vksort::test {

struct SortCase {
  workloads::DistributionSpec input;
  uint64_t n = 0;
  uint64_t seed = 1;
};

// Sorts the case's input with `sorter` (keys, and values = original index when the sorter carries
// 32-bit values; records of value_bytes > 4 whose words are all distinct) and returns "" when the result equals the reference, else a description of the first
// difference that names the case. `stats`, if given, receives the sort's statistics.
std::string check_sort(Sorter& sorter, const SortCase& c, SortStats* stats = nullptr);

// Sizes that break sorts: 0-3, around `workgroup` and common workgroup widths (64, 256), around one and
// two `tile`s, around powers of two, and primes — all up to `largest`, ascending, without repeats.
std::vector<uint64_t> awkward_sizes(uint32_t workgroup, uint32_t tile, uint64_t largest);

// "u32 descending +values n=1025 uniform seed=7 tile=16"
std::string describe(const Sorter& sorter, const SortCase& c);

// check_sort as a doctest CHECK that names the case when it fails.
void check_case(Sorter& sorter, const SortCase& c, SortStats* stats = nullptr);

// "" when sorting `keys` (values = original index) with `sorter` on `gpu` gives the reference result
// (by the sorter's key bits) byte for byte: check_sort for devices other than test::device(), and for keys made by the caller.
// `stats`, if given, receives the sort's statistics.
std::string check_on(Device& gpu, Sorter& sorter, std::vector<std::byte> keys, SortStats* stats = nullptr);

// Every kind of input the generators make, for the per-algorithm matrices.
inline constexpr workloads::Distribution all_distributions[] = {
    workloads::Distribution::uniform,    workloads::Distribution::sorted,     workloads::Distribution::reverse,
    workloads::Distribution::all_equal,  workloads::Distribution::few_unique, workloads::Distribution::nearly_sorted,
    workloads::Distribution::special,    workloads::Distribution::organ_pipe, workloads::Distribution::zipf,
    workloads::Distribution::gaussian,   workloads::Distribution::entropy};

// The inputs that spread digits over tiles differently (every digit in every tile; a few digits, most of a
// tile's counts zero; skewed counts), for the matrices' sizes of hundreds of tiny tiles: every input runs
// at a few dozen tiles as well, and the sorted ones end before the first pass at any size.
inline constexpr workloads::Distribution many_tile_distributions[] = {
    workloads::Distribution::uniform, workloads::Distribution::few_unique, workloads::Distribution::zipf};

// Radix sorts by a key bit range with records, for both radix paths' tests: 32- and 64-bit keys, 12-
// and 16-byte records, odd and even numbers of passes, ties within the field (stability).
struct RecordBitRange {
  Key key;
  Order order;
  uint32_t record_bytes, begin, end;
  workloads::Distribution input;
};
inline constexpr RecordBitRange record_bit_ranges[] = {
    {Key::u32, Order::ascending, 12, 8, 24, workloads::Distribution::uniform},
    {Key::f32, Order::descending, 16, 20, 32, workloads::Distribution::special},
    {Key::u64, Order::ascending, 16, 5, 37, workloads::Distribution::few_unique},
    {Key::i64, Order::descending, 12, 0, 40, workloads::Distribution::uniform}};

}  // namespace vksort::test
