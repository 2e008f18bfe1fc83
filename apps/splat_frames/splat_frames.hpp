// SPDX-License-Identifier: MIT
// splat_frames.hpp — one frame of a 3D Gaussian-splatting renderer's depth sort, in the application's
// own Vulkan (embed_example's app_vulkan): its culling pass projects every splat and appends the visible
// ones as 64-bit keys (screen tile id << 32 | view depth bits) with the splat index, counting them with
// an atomic (a count only the GPU knows); vksort's Sorter::record_indirect then sorts them on the bit
// range [0, 32 + tile bits). Shared by apps/splat_sort_example and `vksort bench-splat`, so both run the
// same scene, keys and check.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "app_vulkan.hpp"

namespace splat {

// The scene: `splats` centres uniformly in a 20-unit cube, seen by a camera of width x height pixels in
// 16x16-pixel tiles.
struct Scene {
  uint32_t splats = 1'000'000;
  uint32_t width = 1920, height = 1080;
};

// "" for a scene FrameSorter takes, else what is wrong with it, naming the field ("width 0: from 1 to
// 65536 pixels"): splats from 1 to 2^30 - 1 (keys are sorted with 32-bit positions),
// sides from 1 to 65536 pixels (tile ids must fit the key's high word).
std::string scene_problem(const Scene& scene);

// What one frame did. Times are GPU timestamps in milliseconds, < 0 when the queue has none; the check's
// copies are recorded between the cull and the sort and counted in neither.
struct Frame {
  uint32_t visible = 0;
  double cull_ms = -1.0;
  double sort_ms = -1.0;
  bool checked = false;
  std::string wrong;  // after a check: "" when the sort equals std::stable_sort of the pre-sort pairs
};

// Buffers, the culling pipeline and a vksort Sorter on the borrowed device, for frames of one scene.
// Throws std::exception (vksort::Error from vksort; std::invalid_argument for a bad scene); Vulkan
// failures of the application's own setup end the process (app::fail), as in embed_example.
class FrameSorter {
 public:
  FrameSorter(const app::Gpu& gpu, const Scene& scene);
  ~FrameSorter();
  FrameSorter(const FrameSorter&) = delete;
  FrameSorter& operator=(const FrameSorter&) = delete;

  uint32_t tiles() const;    // screen tiles
  uint32_t end_bit() const;  // the sort's bit range is [0, end_bit): 32 + the bits of a tile id

  // Culls and sorts frame `index` (the camera turns 0.3 radians about the vertical axis per frame, so
  // every frame sorts a different set), waiting for the GPU. With `check`, the pairs are copied out
  // before and after the sort and the sorted keys and indices must equal std::stable_sort of the
  // pre-sort pairs byte for byte, each index a distinct splat.
  Frame run(uint32_t index, bool check);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace splat
