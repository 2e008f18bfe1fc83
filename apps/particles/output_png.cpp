// SPDX-License-Identifier: MIT
#include "output_png.hpp"

#include <algorithm>
#include <cmath>
#include <csetjmp>

#include <png.h>

#include "atomic_file.hpp"

namespace particles {

namespace {
constexpr uint32_t kGap = 8;  // pixels between the two views

// Per-pixel counts per species for one view, horizontal axis x, vertical axis `v` (1 = y, 2 = z),
// then box-blurred over `radius` pixels each way, so a particle paints a patch about r_c / 2 wide
// and the colour shows the local composition rather than single dots.
void splat(const std::vector<float>& pos, int v, float ppu, uint32_t w, uint32_t h, int radius,
           std::vector<float>& counts) {
  counts.assign(size_t(w) * h * 2, 0.0f);
  for (size_t i = 0; i + 3 < pos.size(); i += 4) {
    const int px = std::clamp(int(pos[i] * ppu), 0, int(w) - 1);
    const int py = std::clamp(int(h) - 1 - int(pos[i + v] * ppu), 0, int(h) - 1);
    counts[(size_t(py) * w + px) * 2 + (pos[i + 3] != 0.0f ? 1 : 0)] += 1.0f;
  }
  std::vector<float> tmp(counts.size());
  for (int pass = 0; pass < 2; ++pass) {  // horizontal, then vertical; clamped at the edges
    const int len = pass == 0 ? int(w) : int(h), lines = pass == 0 ? int(h) : int(w);
    for (int line = 0; line < lines; ++line)
      for (int k = 0; k < len; ++k)
        for (int c = 0; c < 2; ++c) {
          float sum = 0;
          for (int d = -radius; d <= radius; ++d) {
            const int q = std::clamp(k + d, 0, len - 1);
            sum += counts[(pass == 0 ? size_t(line) * w + q : size_t(q) * w + line) * 2 + c];
          }
          tmp[(pass == 0 ? size_t(line) * w + k : size_t(k) * w + line) * 2 + c] = sum;
        }
    counts.swap(tmp);
  }
}
}  // namespace

Image render_views(const Model& m, const std::vector<float>& pos, float ppu) {
  if (ppu <= 0) ppu = std::clamp(800.0f / (2.0f * m.lx), 2.0f, 24.0f);
  const int radius = std::max(1, int(ppu * 0.25f));
  const uint32_t w = std::max(1u, uint32_t(std::ceil(m.lx * ppu)));
  const uint32_t hz = std::max(1u, uint32_t(std::ceil(m.lz * ppu)));
  const uint32_t hy = std::max(1u, uint32_t(std::ceil(m.ly * ppu)));
  Image img;
  img.width = 2 * w + kGap;
  img.height = std::max(hz, hy);
  img.rgb.assign(size_t(img.width) * img.height * 3, 24);  // dark background
  const double n = double(pos.size() / 4);
  const int views[2] = {2, 1};
  const uint32_t heights[2] = {hz, hy};
  std::vector<float> counts;
  for (int k = 0; k < 2; ++k) {
    const uint32_t h = heights[k];
    splat(pos, views[k], ppu, w, h, radius, counts);
    // Brightness relative to the mean blurred count, so a uniform fluid looks the same at any zoom.
    const double mean = n / (double(w) * h) * double(2 * radius + 1) * double(2 * radius + 1);
    const uint32_t x0 = k * (w + kGap);
    const uint32_t y0 = img.height - h;  // views sit on the bottom edge
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const float l = counts[(size_t(y) * w + x) * 2], hv = counts[(size_t(y) * w + x) * 2 + 1];
        const float total = l + hv;
        if (total == 0) continue;
        const float bright = float(std::min(1.0, 0.3 + 0.7 * total / (1.5 * mean)));
        const float f = hv / total;  // heavy fraction: red; light: blue
        uint8_t* px = &img.rgb[((size_t(y0 + y)) * img.width + x0 + x) * 3];
        px[0] = uint8_t(255 * bright * (0.15f + 0.85f * f));
        px[1] = uint8_t(255 * bright * 0.25f);
        px[2] = uint8_t(255 * bright * (0.15f + 0.85f * (1 - f)));
      }
  }
  return img;
}

void write_png(const std::string& path, const Image& image) {
  write_atomically_c(path, [&](std::FILE* f) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
      png_destroy_write_struct(&png, nullptr);
      throw Error("writing " + path + ": libpng could not start");
    }
    if (setjmp(png_jmpbuf(png))) {  // libpng reports errors by longjmp; nothing with a destructor lives here
      png_destroy_write_struct(&png, &info);
      throw Error("writing " + path + ": libpng failed");
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < image.height; ++y)
      png_write_row(png, const_cast<png_bytep>(&image.rgb[size_t(y) * image.width * 3]));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
  });
}

}  // namespace particles
