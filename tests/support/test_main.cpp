// SPDX-License-Identifier: MIT
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "gpu/context.hpp"
#include "support/test_device.hpp"

namespace vksort::test {

namespace {
std::unique_ptr<Device> g_device;
uint64_t g_expected_messages = 0;
bool g_skipped = false;
}  // namespace

Device& device() {
  if (!g_device) {
    DeviceOptions options;
    options.validation = validation_layer_available() ? 1 : 0;
    // The shared-memory (no subgroup) paths of every kernel, forced on a device that has subgroups.
    if (const char* v = std::getenv("VKSORT_TEST_NO_SUBGROUPS"); v && std::string(v) == "1") {
      options.pretend.no_subgroups = true;
      std::fprintf(stderr, "note: VKSORT_TEST_NO_SUBGROUPS=1: the device pretends to have no subgroup operations\n");
    }
    // The shapes and choices vksort makes for GPUs (DeviceOptions::pretend.gpu), on a CPU driver.
    if (const char* v = std::getenv("VKSORT_TEST_PRETEND_GPU"); v && std::string(v) == "1") {
      options.pretend.gpu = true;
      std::fprintf(stderr, "note: VKSORT_TEST_PRETEND_GPU=1: the device poses as a GPU\n");
    }
    // Every device-local buffer starts with stale nonzero bytes (DeviceOptions::pretend.dirty_memory),
    // as a GPU driver's recycled memory does; lavapipe's fresh memory is mostly zeroed.
    if (const char* v = std::getenv("VKSORT_TEST_DIRTY_MEMORY"); v && std::string(v) == "1") {
      options.pretend.dirty_memory = true;
      std::fprintf(stderr, "note: VKSORT_TEST_DIRTY_MEMORY=1: new device buffers hold stale bytes\n");
    }
    // Workgroup memory holds another kernel's bytes when each kernel starts
    // (DeviceOptions::pretend.dirty_shared_memory), as on a GPU.
    if (const char* v = std::getenv("VKSORT_TEST_DIRTY_SHARED"); v && std::string(v) == "1") {
      options.pretend.dirty_shared_memory = true;
      std::fprintf(stderr, "note: VKSORT_TEST_DIRTY_SHARED=1: workgroup memory is dirty when each kernel starts\n");
    }
    g_device = std::make_unique<Device>(options);
  }
  return *g_device;
}

DeviceOptions options_like_device() {
  DeviceOptions options;
  options.validation = device().validation_enabled() ? 1 : 0;
  return options;
}

void expect_validation_messages(uint64_t count) { g_expected_messages += count; }

void skip(const std::string& why) {
  g_skipped = true;
  std::fprintf(stderr, "SKIPPED: %s\n", why.c_str());
}

}  // namespace vksort::test

int main(int argc, char** argv) {
  // Algorithm::automatic must choose the same on every machine: a profile that `vksort tune` saved in
  // this user's cache would change it. The CLI under test inherits this too.
  setenv("VKSORT_CACHE_DIR", "/nonexistent/vksort-tests-use-built-in-profiles", 1);
  if (!vksort::validation_layer_available())
    std::fprintf(stderr, "note: VK_LAYER_KHRONOS_validation is not installed; tests run without validation\n");
  doctest::Context context(argc, argv);
  int result = context.run();
  // Destroying the device reports leaked Vulkan objects through the validation callback.
  vksort::test::g_device.reset();
  const uint64_t messages = vksort::gpu::validation_message_count();
  if (messages != vksort::test::g_expected_messages) {
    std::fprintf(stderr, "FAILED: %llu unexpected Vulkan validation message(s); last: %s\n",
                 static_cast<unsigned long long>(messages - vksort::test::g_expected_messages),
                 vksort::gpu::last_validation_message().c_str());
    return 1;
  }
  if (result == 0 && vksort::test::g_skipped) return vksort::test::skip_exit_code;
  return result;
}
