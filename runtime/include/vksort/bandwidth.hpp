// SPDX-License-Identifier: MIT
// vksort/bandwidth.hpp — the device's own yardstick: how fast a plain copy kernel moves memory.
// Benchmarks report every sort as a fraction of it (a roofline), the one figure that compares
// across devices: any sort must at least read its input and write its output once, which is exactly
// what a copy of the same bytes does.
#pragma once

#include <cstdint>

#include "vksort/device.hpp"
#include "vksort/export.hpp"

namespace vksort {

struct CopyBandwidth {
  uint64_t bytes = 0;      // bytes copied per run (each read once and written once)
  double ms = -1.0;        // median GPU time of one copy; < 0 when the queue has no timestamps
  double ms_min = -1.0;    // fastest run
  // (bytes read + bytes written) / median time, in GB/s (10^9 bytes): 2 * bytes / ms / 10^6.
  double gb_per_s() const { return ms > 0 ? 2.0 * double(bytes) / ms / 1e6 : -1.0; }
  bool timed() const { return ms >= 0.0; }
};

// Copies `bytes` (rounded up to whole 32-bit words) between two device-local buffers `runs` times,
// each timed with GPU timestamps, after warm-up copies: at least one (first touch of the memory), and
// more until `warmup_ms` milliseconds have passed since the first, so that a GPU that idled has
// raised its clocks (an H200 copied 1 GiB at 1.08 TB/s after the host had kept it idle for seconds,
// 2.8-3.0 TB/s at 64 MiB moments after a sort). Allocates 2 * bytes of device memory for the duration;
// submits and waits on the device's queue (same thread rule as Sorter::sort). Throws vksort::Error
// (bytes = 0, runs < 1, warmup_ms < 0, out of memory, device lost).
VKSORT_API CopyBandwidth measure_copy_bandwidth(Device& device, uint64_t bytes, int runs = 5, double warmup_ms = 0.0);

}  // namespace vksort
