// SPDX-License-Identifier: MIT
// Shared by the particle app's tests: the app's own Vulkan context (validation on where installed;
// every message fails the test) and a brute-force CPU neighbour search.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_context.hpp"
#include "model.hpp"
#include "simulation.hpp"

namespace particles::test {

// The app's Vulkan context for every test of the run, destroyed when the run ends (ContextReleaser).
inline std::unique_ptr<gpu::Context> g_context;

inline gpu::Context& context() {
  std::unique_ptr<gpu::Context>& ctx = g_context;
  if (!ctx) {
    gpu::ContextOptions o;
    o.validation = true;
    try {
      ctx = std::make_unique<gpu::Context>(o);
    } catch (const Error&) {  // layer not installed: run without (test_main says so too)
      o.validation = false;
      ctx = std::make_unique<gpu::Context>(o);
    }
  }
  return *ctx;
}

// Checked at the end of every test case: the validation layer said nothing.
struct NoValidationMessages {
  uint64_t before = gpu::validation_message_count();
  ~NoValidationMessages() {
    CHECK_MESSAGE(gpu::validation_message_count() == before, gpu::last_validation_message());
  }
};

// Squared minimum-image distance in float, the way the force kernel computes it.
inline float distance2(const Model& m, const State& s, uint32_t i, uint32_t j) {
  const float l[3] = {m.lx, m.ly, m.lz};
  const bool periodic[3] = {true, true, m.periodic_z};
  float r2 = 0;
  for (int k = 0; k < 3; ++k) {
    float d = s.pos[4 * i + k] - s.pos[4 * j + k];
    if (periodic[k]) d -= l[k] * std::nearbyint(d / l[k]);  // ties to even, like roundEven
    r2 += d * d;
  }
  return r2;
}

}  // namespace particles::test
