// SPDX-License-Identifier: MIT
#include "shader_code.hpp"

namespace {
// Each .spv.inc is a braced list of words written by shaders/embed_spirv.cmake.
const uint32_t k_cells[] =
#include "cells.spv.inc"
    ;
const uint32_t k_move[] =
#include "move.spv.inc"
    ;
const uint32_t k_forces[] =
#include "forces.spv.inc"
    ;
const uint32_t k_forces_atomic64[] =
#include "forces_atomic64.spv.inc"
    ;
const uint32_t k_forces_total[] =
#include "forces_total.spv.inc"
    ;
const uint32_t k_kick[] =
#include "kick.spv.inc"
    ;
const uint32_t k_noise[] =
#include "noise.spv.inc"
    ;
const uint32_t k_reorder[] =
#include "reorder.spv.inc"
    ;
const uint32_t k_starts[] =
#include "starts.spv.inc"
    ;
const uint32_t k_reorder_back[] =
#include "reorder_back.spv.inc"
    ;
const uint32_t k_list_check[] =
#include "list_check.spv.inc"
    ;
const uint32_t k_list_decide[] =
#include "list_decide.spv.inc"
    ;
}  // namespace

namespace particles {
std::span<const uint32_t> shader_code(std::string_view name) {
  if (name == "cells") return k_cells;
  if (name == "move") return k_move;
  if (name == "forces") return k_forces;
  if (name == "forces_atomic64") return k_forces_atomic64;
  if (name == "forces_total") return k_forces_total;
  if (name == "kick") return k_kick;
  if (name == "noise") return k_noise;
  if (name == "reorder") return k_reorder;
  if (name == "starts") return k_starts;
  if (name == "reorder_back") return k_reorder_back;
  if (name == "list_check") return k_list_check;
  if (name == "list_decide") return k_list_decide;
  return {};
}
}  // namespace particles
