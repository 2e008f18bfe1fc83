// SPDX-License-Identifier: MIT
// The device every GPU test runs on: the default device (lavapipe in CI), with the Khronos validation
// layer on wherever it is installed. Any validation message fails the test that caused it (raised as
// vksort::Error) and, if it was reported where nothing could raise it, the whole run (test_main.cpp).
#pragma once

#include <cstdint>

#include "vksort/vksort.hpp"

namespace vksort::test {

Device& device();
// Validation messages the current run deliberately provoked (to test that they are raised).
void expect_validation_messages(uint64_t count);

}  // namespace vksort::test
