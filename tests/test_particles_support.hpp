// SPDX-License-Identifier: MIT
// Shared by the particle app's tests: the app's own Vulkan context (validation on where installed;
// every message fails the test), a brute-force CPU neighbour search, and running the `particles` binary
// (PARTICLES_CLI) in a temporary folder.
#pragma once

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_context.hpp"
#include "model.hpp"
#include "simulation.hpp"

namespace particles::test {

// The app's Vulkan context for every test of the run, destroyed when the run ends (ContextReleaser).
inline std::unique_ptr<gpu::Context> g_context;

// A context with validation where the layer is installed (test_main says so when not), its options
// adjusted by `adjust`.
template <class Adjust>
std::unique_ptr<gpu::Context> make_context(Adjust adjust) {
  gpu::ContextOptions o;
  adjust(o);
  o.validation = true;
  try {
    return std::make_unique<gpu::Context>(o);
  } catch (const Error&) {  // layer not installed: run without
    o.validation = false;
    return std::make_unique<gpu::Context>(o);
  }
}

inline gpu::Context& context() {
  if (!g_context) g_context = make_context([](gpu::ContextOptions&) {});
  return *g_context;
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

// The `particles` binary run with `args` in a shell, its exit code and output.
struct Run {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh folder, removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() / ("particles_cli_" + std::to_string(::getpid()) + "_" + std::to_string(count_++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  static inline int count_ = 0;
};

inline Run run(const TempDir& dir, const std::string& args) {
  const std::filesystem::path out = dir.path() / "stdout.txt", err = dir.path() / "stderr.txt";
  const std::string cmd = std::string(PARTICLES_CLI) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace particles::test
