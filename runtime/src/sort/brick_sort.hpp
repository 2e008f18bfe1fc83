// SPDX-License-Identifier: MIT
// Brick (odd-even transposition) sort, seed 001, made correct at every size and cheap on nearly
// sorted input. Records dispatches only; owns nothing but its kernels.
//
// Block variant (default): tiles of T keys are sorted in shared memory, then neighbouring tiles
// merge-split in alternating even/odd phases. p = ceil(n / T) tiles need at most p phases (Baudet &
// Stevenson's block odd-even transposition), i.e. ceil(p / 2) rounds; a pair already in order is
// skipped after reading two keys.
// Pairs variant: the seed's element-wise compare-exchange, one dispatch per phase, n phases at most.
// Both stop early: a gate kernel before each round turns "the last round moved nothing" into empty
// indirect dispatches, so no host round trip is needed.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/kernel.hpp"
#include "gpu/recorder.hpp"
#include "sort/sort_target.hpp"
#include "sort/tile_shape.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

class BrickSort {
 public:
  BrickSort(gpu::Context& ctx, const SortOptions& options);

  uint32_t tile() const { return shape_.tile(); }
  // Scratch holds only the control words (BRICK_CONTROL_*); the sort is in place.
  VkDeviceSize scratch_bytes(uint64_t n) const;
  uint32_t control_words() const;
  // Throws vksort::Error for a size this configuration cannot sort.
  void check_size(uint64_t n) const;
  // Rounds recorded for n keys (the worst case; most stop early on the GPU).
  uint32_t rounds_for(uint32_t n) const;
  void record(gpu::Recorder& rec, const SortTarget& target) const;
  // Facts of a finished sort from its control words (read back by the caller).
  std::vector<std::pair<std::string, double>> facts(const uint32_t* control, uint32_t n) const;

 private:
  gpu::Context& ctx_;
  SortOptions options_;
  TileShape shape_;
  gpu::Kernel tile_sort_, merge_split_, pairs_phase_, gate_;
};

}  // namespace vksort::algo
