// SPDX-License-Identifier: MIT
// vksort/auto_profile.hpp — how Algorithm::automatic chooses on a device: by n, key width and values,
// from crossover sizes that `vksort tune` measured on that device (saved in the user's cache folder,
// keyed by the device's UUID and driver version), or from built-in defaults where none was measured.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vksort/device.hpp"
#include "vksort/export.hpp"
#include "vksort/types.hpp"

namespace vksort {

// The crossovers for one kind of sort (32- or 64-bit keys, with or without values).
struct AutoCrossovers {
  static constexpr uint64_t one_tile = ~uint64_t(0);
  // n <= brick_up_to: brick sort. one_tile: as many keys as one brick-sort workgroup holds in shared
  // memory on the device, where the whole sort is one dispatch. 0: never.
  uint64_t brick_up_to = one_tile;
  // n >= sample_from (and above brick_up_to): sample sort. 0: never. Otherwise radix sort.
  uint64_t sample_from = 0;
  // Radix sort's digit width (2, 4 or 8) where Tuning::radix_bits leaves it to the device; 0: the
  // built-in choice. Ha et al. suggest calibrating it per device: `vksort tune` does.
  uint32_t radix_bits = 0;
  // The single-pass radix sort's shape, workgroup invocations x keys per invocation, where its ranking
  // is by subgroup ballots or partitions (GPUs) and Tuning::workgroup_size and items_per_thread are
  // both left to the device; 0 x 0: the built-in choice. Tiles pay a fixed latency each, so larger ones
  // win until registers or shared memory cost the multiprocessor workgroups: where that turns depends
  // on the compiler and the chip, so `vksort tune` measures it. A shape the device then refuses (a
  // profile is a cache) falls back to the built-in one.
  uint32_t single_pass_workgroup = 0;
  uint32_t single_pass_items = 0;
  bool operator==(const AutoCrossovers&) const = default;
};

struct VKSORT_API AutoProfile {
  AutoCrossovers crossovers[2][2];            // [64-bit keys][with 32-bit values]
  std::string source = "built-in defaults";   // or the file the profile was read from

  const AutoCrossovers& of(Key key, bool values) const { return crossovers[key_bytes(key) == 8][values]; }
  AutoCrossovers& of(Key key, bool values) { return crossovers[key_bytes(key) == 8][values]; }
  // The algorithm for n keys; `brick_tile` resolves AutoCrossovers::one_tile.
  Algorithm choose(Key key, bool values, uint64_t n, uint32_t brick_tile) const;

  // The profile file: '#' comments, then "vksort-auto-profile 1", then one line per kind of sort:
  //   <32|64> <keys|values> brick_up_to <N|one_tile> sample_from <N> [radix_bits <2|4|8>]
  //     [single_pass_shape <W>x<I>]
  std::string to_text(const DeviceInfo& device) const;
  // Throws vksort::Error naming `source` and the line for anything else.
  static AutoProfile parse(std::string_view text, const std::string& source);
  // Throws vksort::Error naming the kind of sort and the setting for a value the file could not hold
  // (radix_bits not 0, 2, 4 or 8; a single-pass shape with one part 0 or above 65536).
  // Device::set_auto_profile calls it: a bad profile would otherwise fail every automatic sort later.
  void check() const;
};

// Where `vksort tune` saves the profile of a device and Device looks for it:
// $VKSORT_CACHE_DIR, else $XDG_CACHE_HOME/vksort, else $HOME/.cache/vksort; the file is named after the
// device's UUID and driver version. "" when none of these variables is set.
VKSORT_API std::string auto_profile_path(const DeviceInfo& device);

// Writes `profile` to `path` atomically (a temporary file renamed over it), creating the folder.
// Throws vksort::Error: invalid_argument for a path that cannot be written (a missing or read-only
// folder), io_error for a write that failed (a full disk).
VKSORT_API void save_auto_profile(const AutoProfile& profile, const DeviceInfo& device, const std::string& path);

// The profile in auto_profile_path(device) when it exists and parses, else the built-in defaults (a
// corrupt file is noted in `source` and otherwise ignored: a cache must never stop sorting).
VKSORT_API AutoProfile load_auto_profile(const DeviceInfo& device);

}  // namespace vksort
