// SPDX-License-Identifier: MIT
// How many loop iterations one invocation of a kernel may spend. lavapipe (gallivm) ends every loop of
// an invocation once they have iterated 65535 times in all (its LP_MAX_TGSI_LOOP_ITERATIONS, one
// counter shared by every loop of a shader), silently: a kernel that loops longer gives wrong results
// there. Kernels that loop over many keys per invocation size their work to stay within half of that,
// which leaves room for their other loops.
#pragma once

#include <cstdint>

namespace vksort::algo {

constexpr uint32_t loop_budget = 32768;

}  // namespace vksort::algo
