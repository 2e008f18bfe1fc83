// SPDX-License-Identifier: MIT
// shader_code.hpp — the particle kernels' SPIR-V, compiled by glslc at build time and embedded.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace particles {
// "cells", "move", "forces", "forces_atomic64", "kick", "noise", "reorder"; empty if unknown.
std::span<const uint32_t> shader_code(std::string_view name);
}  // namespace particles
