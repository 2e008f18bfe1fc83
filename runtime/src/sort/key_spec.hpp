// SPDX-License-Identifier: MIT
// Specialization values and shader-name suffixes that describe a key configuration to the shaders.
#pragma once

#include <string>

#include "../../shaders/common/interface.h"
#include "gpu/kernel.hpp"
#include "vksort/types.hpp"

namespace vksort::algo {

inline uint32_t key_kind(Key k) {
  if (is_floating(k)) return KEY_KIND_FLOAT;
  if (is_signed_integer(k)) return KEY_KIND_SIGNED;
  return KEY_KIND_UNSIGNED;
}

// "brick_tile_sort" -> "brick_tile_sort_k32" / "_k64" (see shaders/CMakeLists.txt).
inline std::string keyed_shader(const std::string& base, Key k) {
  return base + (key_bytes(k) == 8 ? "_k64" : "_k32");
}

}  // namespace vksort::algo
