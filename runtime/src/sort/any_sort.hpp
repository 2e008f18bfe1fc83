// SPDX-License-Identifier: MIT
// The algorithms a Sorter can hold, behind one set of calls. Each alternative offers the same
// members: tile(), scratch_bytes(n), check_size(n), record(rec, target), control_words() (how many
// 32-bit words at the start of scratch the convenience path reads back) and facts(control, n).
#pragma once

#include <variant>

#include "sort/brick_sort.hpp"
#include "sort/radix_sort.hpp"
#include "sort/sample_sort.hpp"

namespace vksort::algo {

using AnySort = std::variant<BrickSort, RadixSort, SampleSort>;

// Checks that options name an available algorithm and returns it; `automatic` gives radix, the choice
// for large n (Sorter picks per n from the device's AutoProfile, api/sorter.cpp). make_sort constructs one.
Algorithm resolve_algorithm(const SortOptions& options);
// `single_pass_shape`: radix sort's single-pass shape from the device's profile (RadixSort).
AnySort make_sort(gpu::Context& ctx, const SortOptions& options, Algorithm algorithm, TileShape single_pass_shape = {});

}  // namespace vksort::algo
