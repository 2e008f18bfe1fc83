// SPDX-License-Identifier: MIT
#include "output_gif.hpp"

#include <memory>
#include <string_view>

#include <gif_lib.h>

#include "atomic_file.hpp"
#include "model.hpp"

namespace particles {

namespace {
constexpr int kLevels = 64;  // per channel in the nearest-colour table: 64^3 entries, 256 KiB

size_t cell(uint8_t r, uint8_t g, uint8_t b) { return (size_t(r >> 2) * kLevels + (g >> 2)) * kLevels + (b >> 2); }

// giflib's output callback: append to the std::string behind UserData.
int append(GifFileType* gif, const GifByteType* data, int size) {
  static_cast<std::string*>(gif->UserData)->append(reinterpret_cast<const char*>(data), size_t(size));
  return size;
}
}  // namespace

Animation::Animation(uint16_t delay_cs) : delay_cs_(delay_cs), palette_(frame_palette()) {
  // Every colour's nearest palette entry, once: the frames then map a pixel with one look-up.
  nearest_.resize(size_t(kLevels) * kLevels * kLevels);
  for (int r = 0; r < kLevels; ++r)
    for (int g = 0; g < kLevels; ++g)
      for (int b = 0; b < kLevels; ++b) {
        const int c[3] = {r * 4 + 2, g * 4 + 2, b * 4 + 2};
        int best = 0, best_d = 1 << 30;
        for (size_t k = 0; k < palette_.size(); ++k) {
          int d = 0;
          for (int i = 0; i < 3; ++i) d += (c[i] - palette_[k][i]) * (c[i] - palette_[k][i]);
          if (d < best_d) best = int(k), best_d = d;
        }
        nearest_[cell(uint8_t(c[0]), uint8_t(c[1]), uint8_t(c[2]))] = uint8_t(best);
      }
}

void Animation::add(const Image& frame) {
  if (frames_.empty()) width_ = frame.width, height_ = frame.height;
  if (frame.width != width_ || frame.height != height_) throw Error("animation frames differ in size");
  if (width_ > 65535 || height_ > 65535) throw Error("animation frames are larger than GIF allows (65535 pixels)");
  std::vector<uint8_t> indices(size_t(width_) * height_);
  for (size_t i = 0; i < indices.size(); ++i)
    indices[i] = nearest_[cell(frame.rgb[3 * i], frame.rgb[3 * i + 1], frame.rgb[3 * i + 2])];
  frames_.push_back(std::move(indices));
}

void Animation::write(const std::string& path) const {
  if (frames_.empty()) throw Error("writing " + path + ": no frames to animate");
  std::string bytes;
  int error = 0;
  GifFileType* gif = EGifOpen(&bytes, append, &error);
  if (!gif) throw Error("writing " + path + ": giflib: " + GifErrorString(error));
  auto fail = [&](const char* what) {
    const int code = gif->Error;
    EGifCloseFile(gif, nullptr);  // frees gif
    throw Error("writing " + path + ": giflib (" + what + "): " + GifErrorString(code));
  };
  EGifSetGifVersion(gif, true);  // GIF89a: needed for the delay and loop extensions
  std::unique_ptr<ColorMapObject, void (*)(ColorMapObject*)> map(GifMakeMapObject(256, nullptr), GifFreeMapObject);
  if (!map) fail("colour map");
  for (size_t k = 0; k < 256; ++k) {
    const std::array<uint8_t, 3> c = k < palette_.size() ? palette_[k] : palette_[0];
    map->Colors[k] = {c[0], c[1], c[2]};
  }
  if (EGifPutScreenDesc(gif, int(width_), int(height_), 8, 0, map.get()) == GIF_ERROR) fail("screen");
  // Loop forever: application extension "NETSCAPE2.0", sub-block {1, loop count 0 (little-endian)}.
  static constexpr std::string_view netscape = "NETSCAPE2.0";
  const GifByteType loop[3] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock(gif, int(netscape.size()), netscape.data()) == GIF_ERROR ||
      EGifPutExtensionBlock(gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
    fail("loop extension");
  GraphicsControlBlock control{};
  control.DisposalMode = DISPOSE_DO_NOT;
  control.DelayTime = delay_cs_;
  control.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType extension[4];
  const size_t extension_size = EGifGCBToExtension(&control, extension);
  for (const std::vector<uint8_t>& frame : frames_) {
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, int(extension_size), extension) == GIF_ERROR) fail("delay");
    if (EGifPutImageDesc(gif, 0, 0, int(width_), int(height_), false, nullptr) == GIF_ERROR) fail("image");
    for (uint32_t y = 0; y < height_; ++y)
      if (EGifPutLine(gif, const_cast<GifPixelType*>(&frame[size_t(y) * width_]), int(width_)) == GIF_ERROR)
        fail("pixels");
  }
  if (EGifCloseFile(gif, &error) == GIF_ERROR) throw Error("writing " + path + ": giflib: " + GifErrorString(error));
  write_atomically(path, [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

}  // namespace particles
