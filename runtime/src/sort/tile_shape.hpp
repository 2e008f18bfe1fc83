// SPDX-License-Identifier: MIT
// How many keys one workgroup holds in shared memory, chosen from the device's limits.
#pragma once

#include <cstdint>
#include <string>

#include "vksort/device_types.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

struct TileShape {
  uint32_t workgroup_size = 0;
  uint32_t items_per_thread = 0;
  uint32_t tile() const { return workgroup_size * items_per_thread; }  // checked to fit 32 bits when chosen
};

// The largest power-of-two tile (up to `max_tile` keys) whose shared memory — `shared_bytes_per_key`
// bytes per key (may be 0) plus `fixed_shared_bytes` — fits the device, with a workgroup of up to
// `preferred_workgroup` invocations. Overrides in `tuning` are checked against the same limits and
// rejected with a message naming the limit. `what` names the kernel family in that message.
TileShape choose_tile_shape(const DeviceInfo& device, const Tuning& tuning, uint32_t shared_bytes_per_key,
                            uint32_t fixed_shared_bytes, uint32_t preferred_workgroup, uint32_t max_tile,
                            const std::string& what);

}  // namespace vksort::algo
