// SPDX-License-Identifier: MIT
// output_png.hpp — a headless picture of the particles: side view (x right, z up) and top view
// (x right, y up) next to each other, light species blue, heavy red, brighter where denser.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace particles {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // row-major, top row first
};

// `pixels_per_unit` 0 chooses about 1000 pixels of width in all.
Image render_views(const Model& m, const std::vector<float>& pos, float pixels_per_unit = 0);
// Written atomically; throws Error.
void write_png(const std::string& path, const Image& image);

}  // namespace particles
