// SPDX-License-Identifier: MIT
// output_png.hpp — a headless picture of the particles: two slices one above the other, the side view
// (x right, z up: particles within r_c / 2 of the box's middle in y) and the top view (x right, y up:
// within r_c / 2 of the middle in z), each with axes in units of r_c; light species blue, heavy red,
// brighter where denser; a header with the time stamp and the colour legend.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace particles {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // row-major, top row first
};

// The largest width and height write_png() writes: libpng's default limits (PNG_USER_WIDTH_MAX,
// PNG_USER_HEIGHT_MAX), which its readers keep too.
constexpr uint64_t kPngMaxSide = 1000000;
struct PictureSize {
  uint64_t width = 0, height = 0;
};
// The size of render_views()' picture of `m` (pixels_per_unit as there), without drawing it.
PictureSize frame_size(const Model& m, float pixels_per_unit = 0);
// The size of montage()'s picture of `count` frames of size `frame` in `columns` columns.
PictureSize montage_size(PictureSize frame, uint64_t count, uint32_t columns);
// `time` and `step` go into the header; `pixels_per_unit` 0 chooses about 900 pixels for the box width.
Image render_views(const Model& m, const std::vector<float>& pos, double time, uint64_t step,
                   float pixels_per_unit = 0);
// The colours the frames are drawn with, in at most 256 entries: the greys of background, axes and text,
// and the light-to-heavy colour map sampled over composition and brightness (for indexed formats: GIF).
std::vector<std::array<uint8_t, 3>> frame_palette();
// Frames side by side, `columns` per row (the last row may be short), on the background colour. Throws
// Error when that is wider or higher than kPngMaxSide.
Image montage(const std::vector<Image>& frames, uint32_t columns);
// Written atomically; throws Error.
void write_png(const std::string& path, const Image& image);

}  // namespace particles
