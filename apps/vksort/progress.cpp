// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace vksort::cli {

namespace {
size_t terminal_width() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}
}  // namespace

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

Progress::Progress(double total_work) : Progress(total_work, isatty(STDERR_FILENO) != 0) {}
Progress::Progress(double total_work, bool enabled)
    : total_(total_work), on_(enabled), t0_(std::chrono::steady_clock::now()) {}
Progress::~Progress() { clear(); }

std::string Progress::line(size_t step, double done, double total, double seconds, const std::string& what,
                           size_t width) {
  constexpr int bar = 20;
  const double fraction = total > 0 ? std::min(1.0, done / total) : 0.0;
  const int filled = int(fraction * bar);
  std::string text(1, '[');
  text.append(size_t(filled), '#').append(size_t(bar - filled), '-');
  char pct[16];
  std::snprintf(pct, sizeof pct, "] %3d%%", int(fraction * 100));
  text.append(pct);
  // Nothing is known about the speed before the first step finished.
  if (done > 0 && total > done) text.append("  ").append(format_duration(seconds * (total - done) / done)).append(" left");
  text.append("  #").append(std::to_string(step)).append(" ").append(what);
  if (text.size() > width) text.resize(width);
  return text;
}

void Progress::start(const std::string& what, double work) {
  if (!on_) return;
  done_ += current_;
  current_ = work;
  ++step_;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const std::string text = line(step_, done_, total_, seconds, what, terminal_width() - 1);
  clear();
  std::cerr << text << std::flush;
  width_ = text.size();
}

void Progress::done_so_far(double done, size_t step, const std::string& what) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  // A new phase is always shown; within one, redraws are limited to ten a second.
  if (width_ && what == last_what_ && now - last_draw_ < std::chrono::milliseconds(100) && done < total_) return;
  last_draw_ = now;
  last_what_ = what;
  done_ = done;
  current_ = 0;
  const double seconds = std::chrono::duration<double>(now - t0_).count();
  const std::string text = line(step, done_, total_, seconds, what, terminal_width() - 1);
  clear();
  std::cerr << text << std::flush;
  width_ = text.size();
}

void Progress::clear() {
  if (on_ && width_) std::cerr << '\r' << std::string(width_, ' ') << '\r' << std::flush;
  width_ = 0;
}

}  // namespace vksort::cli
