// SPDX-License-Identifier: MIT
// The device every GPU test runs on: the default device (lavapipe in CI), with the Khronos validation
// layer on wherever it is installed. Any validation message fails the test that caused it (raised as
// vksort::Error) and, if it was reported where nothing could raise it, the whole run (test_main.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "vksort/vksort.hpp"

namespace vksort::test {

Device& device();
// Options for a further Device in a test: validation as on device() (add the pretend limits to test).
DeviceOptions options_like_device();
// Validation messages the current run deliberately provoked (to test that they are raised).
void expect_validation_messages(uint64_t count);

// Exit code of a run in which a test case could not check anything here (tests/CMakeLists.txt
// registers it as SKIP_RETURN_CODE, so ctest lists the test as skipped, never as passed).
constexpr int skip_exit_code = 77;
// Marks the current test case as skipped for `why` (printed); the caller returns from the test case.
// The run then exits with skip_exit_code unless something failed. A test case that may skip must
// therefore be a ctest test of its own, or its skip would hide the passes of the cases beside it.
void skip(const std::string& why);

}  // namespace vksort::test
