// SPDX-License-Identifier: MIT
// bitmap_font.hpp — labels on the particle pictures (time stamps, axes, legend) without a font library:
// a 3 x 5 pixel font of the digits, a few signs and the lower-case letters the labels use.
#pragma once

#include <cstdint>
#include <string_view>

#include "output_png.hpp"

namespace particles {

// Pixels one character advances at `scale` (glyph 3 scale wide, one scale of space).
constexpr uint32_t text_advance(uint32_t scale) { return 4 * scale; }
constexpr uint32_t text_height(uint32_t scale) { return 5 * scale; }
uint32_t text_width(std::string_view text, uint32_t scale);

// Draws `text` with its top-left corner at (x, y), clipped to the image. Characters without a glyph
// (upper case, most punctuation) are drawn as a hollow box, so a missing one is visible, not silent.
void draw_text(Image& img, int x, int y, std::string_view text, const uint8_t rgb[3], uint32_t scale = 2);

}  // namespace particles
