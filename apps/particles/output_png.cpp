// SPDX-License-Identifier: MIT
#include "output_png.hpp"

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <string>

#include <png.h>

#include "atomic_file.hpp"
#include "bitmap_font.hpp"

namespace particles {

namespace {
constexpr uint8_t kBackground = 24;
constexpr uint8_t kText[3] = {220, 220, 220};
constexpr uint8_t kAxis[3] = {150, 150, 150};
constexpr uint32_t kScale = 2;                   // font scale
constexpr uint32_t kLeft = 44, kRight = 16;      // margins: the vertical axis' numbers, and air
constexpr uint32_t kHeader = 34, kTitle = 18;    // time stamp and legend; a view's title line
constexpr uint32_t kBelow = 30;                  // a view's horizontal axis numbers and name

constexpr double kDimmest = 0.3;                  // brightness of the sparsest occupied pixel of a slice

// Light (f = 0) to heavy (f = 1): blue to red, at brightness `bright`.
void colour(float f, float bright, uint8_t* px) {
  px[0] = uint8_t(255 * bright * (0.15f + 0.85f * f));
  px[1] = uint8_t(255 * bright * 0.25f);
  px[2] = uint8_t(255 * bright * (0.15f + 0.85f * (1 - f)));
}

void put(Image& img, int x, int y, const uint8_t rgb[3]) {
  if (x < 0 || y < 0 || x >= int(img.width) || y >= int(img.height)) return;
  uint8_t* p = &img.rgb[(size_t(y) * img.width + size_t(x)) * 3];
  p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// Tick spacing in box units giving ticks at least ~60 pixels apart: 1, 2 or 5 times a power of 10.
double tick_step(float ppu) {
  const double want = 60.0 / ppu;
  double step = std::pow(10.0, std::floor(std::log10(want)));
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (f * step >= want) return f * step;
  return 10 * step;
}

// One slice: particles with coordinate `across` (1 = y, 2 = z) within `half` of `middle`, drawn with
// x to the right and `up` (2 = z, 1 = y) upwards into a w x h pixel window at (x0, y0), box-blurred
// over `radius` pixels so the colour shows the local composition rather than single dots.
void draw_slice(Image& img, const std::vector<float>& pos, int up, int across, float middle, float half, float ppu,
                uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int radius) {
  std::vector<float> counts(size_t(w) * h * 2, 0.0f);
  double in_slice = 0;
  for (size_t i = 0; i + 3 < pos.size(); i += 4) {
    if (std::abs(pos[i + across] - middle) > half) continue;
    const int px = std::clamp(int(pos[i] * ppu), 0, int(w) - 1);
    const int py = std::clamp(int(h) - 1 - int(pos[i + up] * ppu), 0, int(h) - 1);
    counts[(size_t(py) * w + px) * 2 + (pos[i + 3] != 0.0f ? 1 : 0)] += 1.0f;
    in_slice += 1;
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
  // Brightness relative to the mean blurred count, so a uniform fluid looks the same at any zoom.
  const double mean = in_slice / (double(w) * h) * double(2 * radius + 1) * double(2 * radius + 1);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const float l = counts[(size_t(y) * w + x) * 2], hv = counts[(size_t(y) * w + x) * 2 + 1];
      const float total = l + hv;
      if (total == 0) continue;
      const float bright = float(std::min(1.0, kDimmest + (1 - kDimmest) * total / (1.5 * mean)));
      colour(hv / total, bright, &img.rgb[(size_t(y0 + y) * img.width + x0 + x) * 3]);
    }
}

// A frame around the window, ticks with numbers along x (below) and along the vertical axis (left),
// the axes' names, and a title above.
void draw_axes(Image& img, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, float ppu, float lx, float lv,
               const char* vertical, const std::string& title) {
  for (uint32_t x = 0; x <= w + 1; ++x) put(img, int(x0 + x) - 1, int(y0) - 1, kAxis), put(img, int(x0 + x) - 1, int(y0 + h), kAxis);
  for (uint32_t y = 0; y <= h + 1; ++y) put(img, int(x0) - 1, int(y0 + y) - 1, kAxis), put(img, int(x0 + w), int(y0 + y) - 1, kAxis);
  const double step = tick_step(ppu);
  const int th = int(text_height(kScale));
  for (double t = 0; t <= lx + 1e-6; t += step) {
    const int px = int(x0) + int(std::lround(t * ppu));
    for (int k = 0; k < 5; ++k) put(img, px, int(y0 + h) + k, kAxis);
    const std::string s = number(t);
    draw_text(img, px - int(text_width(s, kScale)) / 2, int(y0 + h) + 7, s, kText, kScale);
  }
  draw_text(img, int(x0 + w) - int(text_width("x", kScale)), int(y0 + h) + 9 + th, "x", kText, kScale);
  for (double t = 0; t <= lv + 1e-6; t += step) {
    const int py = int(y0 + h) - int(std::lround(t * ppu));
    for (int k = 1; k <= 5; ++k) put(img, int(x0) - k, py, kAxis);
    const std::string s = number(t);
    draw_text(img, int(x0) - 8 - int(text_width(s, kScale)), py - th / 2, s, kText, kScale);
  }
  draw_text(img, int(x0) - 8 - int(text_width(vertical, kScale)), int(y0) - th - 4, vertical, kText, kScale);
  draw_text(img, int(x0), int(y0) - th - 4, title, kText, kScale);
}
}  // namespace

namespace {
// The scale and the views' sizes in pixels of a frame of `m`: the one rule of render_views() and frame_size().
struct FrameLayout {
  float ppu;
  uint32_t w, hz, hy;  // the views' width, the side view's height, the top view's height
  uint32_t side_y, top_y, width, height;
};
FrameLayout frame_layout(const Model& m, float ppu) {
  if (ppu <= 0) ppu = std::clamp(900.0f / m.lx, 2.0f, 24.0f);
  FrameLayout f{ppu, std::max(1u, uint32_t(std::ceil(m.lx * ppu))), std::max(1u, uint32_t(std::ceil(m.lz * ppu))),
                std::max(1u, uint32_t(std::ceil(m.ly * ppu))), 0, 0, 0, 0};
  f.width = kLeft + f.w + kRight;
  f.side_y = kHeader + kTitle;
  f.top_y = f.side_y + f.hz + kBelow + kTitle;
  f.height = f.top_y + f.hy + kBelow;
  return f;
}
}  // namespace

PictureSize frame_size(const Model& m, float pixels_per_unit) {
  const FrameLayout f = frame_layout(m, pixels_per_unit);
  return {f.width, f.height};
}

PictureSize montage_size(PictureSize frame, uint64_t count, uint32_t columns) {
  if (count == 0) return {};
  const uint64_t c = std::clamp<uint64_t>(columns, 1, count);
  return {frame.width * c, frame.height * ((count + c - 1) / c)};
}

Image render_views(const Model& m, const std::vector<float>& pos, double time, uint64_t step, float ppu) {
  const FrameLayout layout = frame_layout(m, ppu);
  ppu = layout.ppu;
  const int radius = std::max(1, int(ppu * 0.3f));  // patches about 0.6 r_c wide: a thin slice still fills
  const uint32_t w = layout.w, hz = layout.hz, hy = layout.hy, side_y = layout.side_y, top_y = layout.top_y;
  Image img;
  img.width = layout.width;
  img.height = layout.height;
  img.rgb.assign(size_t(img.width) * img.height * 3, kBackground);

  // Header: time stamp left, colour legend right.
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "t = %.2f   step %llu", time, static_cast<unsigned long long>(step));
  draw_text(img, int(kLeft), 10, stamp, kText, kScale);
  const uint32_t bar = 120, bar_h = 10;
  const int bar_x = int(img.width - kRight) - int(bar) - int(text_width("heavy", kScale)) - 8;
  const int label_x = bar_x - 8 - int(text_width("light", kScale));
  if (label_x > int(kLeft + text_width(stamp, kScale)) + 16) {
    draw_text(img, label_x, 10, "light", kText, kScale);
    for (uint32_t x = 0; x < bar; ++x)
      for (uint32_t y = 0; y < bar_h; ++y) {
        uint8_t px[3];
        colour(float(x) / float(bar - 1), 1.0f, px);
        put(img, bar_x + int(x), 10 + int(y), px);
      }
    draw_text(img, bar_x + int(bar) + 8, 10, "heavy", kText, kScale);
  }

  // Slices one r_c thick (or the whole depth where the box is thinner) through the middle.
  const float half_y = std::min(0.5f * m.rc, 0.5f * m.ly), half_z = std::min(0.5f * m.rc, 0.5f * m.lz);
  draw_slice(img, pos, 2, 1, 0.5f * m.ly, half_y, ppu, kLeft, side_y, w, hz, radius);
  draw_slice(img, pos, 1, 2, 0.5f * m.lz, half_z, ppu, kLeft, top_y, w, hy, radius);
  draw_axes(img, kLeft, side_y, w, hz, ppu, m.lx, m.lz, "z",
            "side: slice y = " + number(0.5 * m.ly) + " +- " + number(half_y));
  draw_axes(img, kLeft, top_y, w, hy, ppu, m.lx, m.ly, "y",
            "top: slice z = " + number(0.5 * m.lz) + " +- " + number(half_z));
  return img;
}

std::vector<std::array<uint8_t, 3>> frame_palette() {
  // 16 greys, the three the frames use among them, and 16 compositions x 15 brightnesses of the map.
  std::vector<std::array<uint8_t, 3>> palette;
  for (int g : {0, int(kBackground), 40, 56, 72, 88, 104, 120, 135, int(kAxis[0]), 165, 180, 200, int(kText[0]), 238, 255})
    palette.push_back({uint8_t(g), uint8_t(g), uint8_t(g)});
  for (int b = 0; b < 15; ++b)
    for (int f = 0; f < 16; ++f) {
      std::array<uint8_t, 3> px;
      colour(float(f) / 15.0f, float(kDimmest + (1 - kDimmest) * b / 14.0), px.data());
      palette.push_back(px);
    }
  return palette;
}

Image montage(const std::vector<Image>& frames, uint32_t columns) {
  Image out;
  if (frames.empty()) return out;
  columns = std::clamp<uint32_t>(columns, 1, uint32_t(frames.size()));
  uint32_t w = 0, h = 0;
  for (const Image& f : frames) w = std::max(w, f.width), h = std::max(h, f.height);
  const PictureSize size = montage_size({w, h}, frames.size(), columns);
  if (size.width > kPngMaxSide || size.height > kPngMaxSide)
    throw Error("a montage of " + std::to_string(frames.size()) + " frames would be " + std::to_string(size.width) +
                " x " + std::to_string(size.height) + " pixels, more than PNG readers take");
  out.width = uint32_t(size.width);
  out.height = uint32_t(size.height);
  out.rgb.assign(size_t(out.width) * out.height * 3, kBackground);
  for (size_t k = 0; k < frames.size(); ++k) {
    const Image& f = frames[k];
    const size_t x0 = (k % columns) * w, y0 = (k / columns) * h;
    for (uint32_t y = 0; y < f.height; ++y)
      std::copy_n(&f.rgb[size_t(y) * f.width * 3], size_t(f.width) * 3, &out.rgb[((y0 + y) * out.width + x0) * 3]);
  }
  return out;
}

namespace {
// libpng's messages, kept for the one-line error instead of printed on stderr ("libpng warning: Image
// height exceeds user limit in IHDR", "libpng error: Invalid IHDR data", then only "libpng failed").
struct PngMessages {
  char error[200] = "";
  char warning[200] = "";  // the last: an error's cause (the limit behind "Invalid IHDR data")
};
void png_on_error(png_structp png, png_const_charp message) {
  auto* m = static_cast<PngMessages*>(png_get_error_ptr(png));
  std::snprintf(m->error, sizeof m->error, "%s", message);
  png_longjmp(png, 1);
}
void png_on_warning(png_structp png, png_const_charp message) {
  auto* m = static_cast<PngMessages*>(png_get_error_ptr(png));
  std::snprintf(m->warning, sizeof m->warning, "%s", message);
}
}  // namespace

void write_png(const std::string& path, const Image& image) {
  // Outside the lambda that calls setjmp: a local there that changes before the longjmp is indeterminate after.
  PngMessages messages;
  write_atomically_c(path, [&](std::FILE* f) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &messages, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
      png_destroy_write_struct(&png, nullptr);
      throw Error("writing " + path + ": libpng could not start");
    }
    if (setjmp(png_jmpbuf(png))) {  // libpng reports errors by longjmp; nothing with a destructor lives here
      png_destroy_write_struct(&png, &info);
      std::string what = messages.error[0] ? messages.error : "failed";
      if (messages.warning[0]) what += std::string(" (") + messages.warning + ")";
      throw Error("writing " + path + ": libpng: " + what);
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
