// SPDX-License-Identifier: MIT
#include "bitmap_font.hpp"

namespace particles {

namespace {
// Five rows of three bits (left pixel = 4) per glyph, top row first.
struct Glyph {
  char c;
  uint8_t rows[5];
};
constexpr Glyph kGlyphs[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 2, 2}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'.', {0, 0, 0, 0, 2}}, {'-', {0, 0, 7, 0, 0}},
    {'=', {0, 7, 0, 7, 0}}, {':', {0, 2, 0, 2, 0}}, {'%', {5, 1, 2, 4, 5}}, {'+', {0, 2, 7, 2, 0}},
    {'(', {1, 2, 2, 2, 1}}, {')', {4, 2, 2, 2, 4}}, {' ', {0, 0, 0, 0, 0}}, {'a', {0, 3, 5, 5, 3}},
    {'c', {0, 3, 4, 4, 3}}, {'d', {1, 3, 5, 5, 3}}, {'e', {0, 6, 7, 4, 3}}, {'f', {3, 4, 6, 4, 4}},
    {'g', {3, 5, 3, 1, 6}}, {'h', {4, 4, 6, 5, 5}}, {'i', {2, 0, 2, 2, 2}}, {'l', {6, 2, 2, 2, 7}},
    {'m', {0, 5, 7, 5, 5}}, {'n', {0, 6, 5, 5, 5}}, {'o', {0, 2, 5, 5, 2}}, {'p', {0, 6, 5, 6, 4}},
    {'r', {0, 3, 4, 4, 4}}, {'s', {0, 3, 6, 1, 6}}, {'t', {2, 7, 2, 2, 1}}, {'u', {0, 5, 5, 5, 3}},
    {'v', {0, 5, 5, 5, 2}}, {'w', {0, 5, 5, 7, 5}}, {'x', {0, 5, 2, 2, 5}}, {'y', {0, 5, 7, 1, 6}},
    {'z', {0, 7, 2, 4, 7}},
};
constexpr uint8_t kMissing[5] = {7, 5, 5, 5, 7};

const uint8_t* rows_of(char c) {
  for (const Glyph& g : kGlyphs)
    if (g.c == c) return g.rows;
  return kMissing;
}
}  // namespace

uint32_t text_width(std::string_view text, uint32_t scale) {
  return text.empty() ? 0 : uint32_t(text.size()) * text_advance(scale) - scale;
}

void draw_text(Image& img, int x, int y, std::string_view text, const uint8_t rgb[3], uint32_t scale) {
  for (char c : text) {
    const uint8_t* rows = rows_of(c);
    for (int r = 0; r < 5; ++r)
      for (int b = 0; b < 3; ++b) {
        if (!(rows[r] & (4 >> b))) continue;
        for (uint32_t dy = 0; dy < scale; ++dy)
          for (uint32_t dx = 0; dx < scale; ++dx) {
            const int px = x + b * int(scale) + int(dx), py = y + r * int(scale) + int(dy);
            if (px < 0 || py < 0 || px >= int(img.width) || py >= int(img.height)) continue;
            uint8_t* p = &img.rgb[(size_t(py) * img.width + size_t(px)) * 3];
            p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
          }
      }
    x += int(text_advance(scale));
  }
}

}  // namespace particles
