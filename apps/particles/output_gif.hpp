// SPDX-License-Identifier: MIT
// output_gif.hpp — an animated GIF of a run's frames (giflib): each frame is reduced to the frames'
// fixed 256-colour palette as it arrives (one byte a pixel kept, not three), and the whole file is
// written atomically at the end, looping forever (the NETSCAPE2.0 extension).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "output_png.hpp"

namespace particles {

class Animation {
 public:
  // `delay_cs`: the time each frame shows, in hundredths of a second.
  explicit Animation(uint16_t delay_cs);
  // Frames after the first must have its size; throws Error otherwise.
  void add(const Image& frame);
  size_t frames() const { return frames_.size(); }
  // Throws Error (the destination then holds what it held before).
  void write(const std::string& path) const;

 private:
  uint16_t delay_cs_;
  uint32_t width_ = 0, height_ = 0;
  std::vector<std::array<uint8_t, 3>> palette_;
  std::vector<uint8_t> nearest_;  // palette index of each colour with 6 bits a channel
  std::vector<std::vector<uint8_t>> frames_;
};

}  // namespace particles
