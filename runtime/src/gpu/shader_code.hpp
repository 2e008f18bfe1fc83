// SPDX-License-Identifier: MIT
// The SPIR-V the build embedded (see shaders/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace vksort::gpu {

// Words of the embedded shader `name` ("brick_tile_sort_k32", ...), or an empty span if unknown.
std::span<const uint32_t> shader_code(std::string_view name);

}  // namespace vksort::gpu
