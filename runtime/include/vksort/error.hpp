// SPDX-License-Identifier: MIT
// vksort/error.hpp — how vksort reports failure.
//
// The host convenience layer throws vksort::Error. The recording path (Sorter::record), which engines built
// without exceptions embed, returns a vksort::Status instead and never throws.
#pragma once

#include <stdexcept>
#include <string>

#include <vulkan/vulkan_core.h>

#include "vksort/export.hpp"

namespace vksort {

// One line saying what was being done and, where Vulkan failed, the VkResult's name:
// "allocating 3.0 GiB scratch for 400000000 u64 keys: VK_ERROR_OUT_OF_DEVICE_MEMORY".
class VKSORT_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, VkResult result = VK_SUCCESS)
      : std::runtime_error(what), result_(result) {}
  // The Vulkan result that caused the error, or VK_SUCCESS when vksort itself refused (bad argument,
  // missing feature, validation message).
  VkResult result() const noexcept { return result_; }

 private:
  VkResult result_;
};

// The exception-free form of an Error: ok() or a message and a result.
struct Status {
  VkResult result = VK_SUCCESS;
  std::string message;  // empty when ok
  bool ok() const noexcept { return message.empty(); }
  explicit operator bool() const noexcept { return ok(); }
};

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" for a VkResult: a static string, never null (a placeholder for
// values it does not know). Safe from any thread.
VKSORT_API const char* result_name(VkResult result) noexcept;

}  // namespace vksort
