// SPDX-License-Identifier: MIT
#include "sort/tile_shape.hpp"

#include <algorithm>
#include <bit>

#include "vksort/error.hpp"

namespace vksort::algo {

TileShape choose_tile_shape(const DeviceInfo& dev, const Tuning& tuning, uint32_t per_key, uint32_t fixed,
                            uint32_t preferred_workgroup, uint32_t max_tile, const std::string& what) {
  const uint32_t budget = dev.max_shared_memory > fixed ? dev.max_shared_memory - fixed : 0;
  // Keys that fit in shared memory (per_key 0: the tile keeps no keys there, only the fixed part).
  const uint32_t fit = per_key ? budget / per_key : (dev.max_shared_memory >= fixed ? UINT32_MAX : 0);
  if (fit < 2)
    throw Error(Status::Code::unsupported, what + " needs at least " + std::to_string(2 * per_key + fixed) + " bytes of shared memory; \"" +
                dev.name + "\" offers " + std::to_string(dev.max_shared_memory));
  TileShape s;
  if (tuning.workgroup_size) {
    // A size the device cannot run is unsupported (Sorter::create's contract), one that is no power of
    // two the caller's mistake.
    if (!std::has_single_bit(tuning.workgroup_size) || tuning.workgroup_size > dev.max_workgroup_invocations)
      throw Error(std::has_single_bit(tuning.workgroup_size) ? Status::Code::unsupported : Status::Code::invalid_argument,
                  what + ": workgroup size " + std::to_string(tuning.workgroup_size) +
                  " must be a power of two no larger than maxComputeWorkGroupInvocations (" +
                  std::to_string(dev.max_workgroup_invocations) + ")");
    s.workgroup_size = tuning.workgroup_size;
  } else {
    s.workgroup_size = std::bit_floor(std::max(1u, std::min(preferred_workgroup, dev.max_workgroup_invocations)));
  }
  if (tuning.items_per_thread) {
    if (!std::has_single_bit(tuning.items_per_thread))
      throw Error(what + ": items per thread " + std::to_string(tuning.items_per_thread) + " must be a power of two");
    s.items_per_thread = tuning.items_per_thread;
    // In 64 bits: the product of two 32-bit overrides wrapped to a tile of 0 keys.
    const uint64_t tile = uint64_t(s.workgroup_size) * s.items_per_thread;
    if (tile > UINT32_MAX)
      throw Error(what + ": a tile of " + std::to_string(s.workgroup_size) + " x " + std::to_string(s.items_per_thread) +
                  " keys (workgroup size x items per thread) is more than 2^32 - 1 keys");
    if (tile > fit)
      throw Error(Status::Code::unsupported, what + ": a tile of " + std::to_string(tile) + " keys needs " + std::to_string(tile * per_key + fixed) +
                  " bytes of shared memory; \"" + dev.name + "\" offers maxComputeSharedMemorySize = " +
                  std::to_string(dev.max_shared_memory));
    return s;
  }
  const uint32_t tile = std::bit_floor(std::min(fit, max_tile));
  if (!tuning.workgroup_size) s.workgroup_size = std::min(s.workgroup_size, std::max(1u, tile / 2));
  s.items_per_thread = std::max(1u, tile / s.workgroup_size);
  if (uint64_t(s.tile()) > fit)
    throw Error(Status::Code::unsupported, what + ": workgroup size " + std::to_string(s.workgroup_size) + " needs more shared memory than \"" +
                dev.name + "\" offers (" + std::to_string(dev.max_shared_memory) + " bytes)");
  return s;
}

}  // namespace vksort::algo
