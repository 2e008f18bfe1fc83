// SPDX-License-Identifier: MIT
// progress.hpp — a progress bar with time left for long sweeps, on stderr, only when stderr is a
// terminal: redirected output and logs never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace vksort::cli {

class Progress {
 public:
  // `total_work` in any unit that grows with a step's cost (the benchmark uses keys x runs); the time
  // left is the time so far scaled by the work still to do.
  explicit Progress(double total_work);
  Progress(double total_work, bool enabled);  // for tests: force on or off
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return on_; }
  // Announces the step about to run, which will cost `work`.
  void start(const std::string& what, double work);
  // For work that reports what it has done rather than what it starts: `done` of the total so far,
  // shown as step `step` doing `what`. Redraws at most ten times a second.
  void done_so_far(double done, size_t step, const std::string& what);
  // Erases the line (before printing results, or on failure).
  void clear();

  // "[#####-----]  12/40  1m23s left  radix u32 uniform n=1048576", cut to `width` columns.
  static std::string line(size_t step, double done, double total, double seconds,
                          const std::string& what, size_t width);

 private:
  double total_, done_ = 0, current_ = 0;
  size_t step_ = 0, width_ = 0;
  bool on_;
  std::chrono::steady_clock::time_point t0_, last_draw_;
  std::string last_what_;
};

// "45s", "3m07s", "1h02m".
std::string format_duration(double seconds);

}  // namespace vksort::cli
