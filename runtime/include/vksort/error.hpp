// SPDX-License-Identifier: MIT
// vksort/error.hpp — how vksort reports failure.
//
// Two forms of one report. The exception-free entry points (Device::create, Sorter::create,
// BucketLists::create, Sorter::record, ...) return a vksort::Status and never throw, so an engine built
// with -fno-exceptions can create and record everything it embeds. The convenient forms (constructors,
// Sorter::sort, the host sorts) throw a vksort::Error carrying the same code, result and message.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <vulkan/vulkan_core.h>

#include "vksort/export.hpp"

namespace vksort {

// ok(), or what went wrong: a code to branch on, the VkResult where Vulkan failed, and one line saying
// what was being done ("allocating 3.0 GiB scratch for 400000000 u64 keys: VK_ERROR_OUT_OF_DEVICE_MEMORY").
struct Status {
  enum class Code : uint8_t {
    ok,
    invalid_argument,  // the caller's mistake: a bad option, buffer, range or count (result: VK_SUCCESS)
    unsupported,       // the device (or system) lacks a feature, limit, layer or loader vksort needs for this
                       // (result: VK_SUCCESS, or the call that found it missing)
    out_of_memory,     // VK_ERROR_OUT_OF_DEVICE_MEMORY / _HOST_MEMORY, a pretend budget, or std::bad_alloc
    device_lost,       // VK_ERROR_DEVICE_LOST: every later use of the device fails the same way
    vulkan_error,      // any other failed Vulkan call (result says which), or a validation layer message
                       // (result VK_ERROR_VALIDATION_FAILED_EXT)
    io_error,          // reading or writing a file failed while doing valid work: a full disk, an I/O error,
                       // a file that changed while being sorted (the out-of-core sort, saving a profile;
                       // the message names the file; result: VK_SUCCESS)
  };
  Code code = Code::ok;
  VkResult result = VK_SUCCESS;
  std::string message;  // empty when ok

  bool ok() const noexcept { return code == Code::ok; }
  explicit operator bool() const noexcept { return ok(); }

  // The code a failed Vulkan call means: out_of_memory, device_lost or vulkan_error (ok for
  // VK_SUCCESS).
  static Code code_of(VkResult result) noexcept {
    switch (result) {
      case VK_SUCCESS: return Code::ok;
      case VK_ERROR_OUT_OF_HOST_MEMORY:
      case VK_ERROR_OUT_OF_DEVICE_MEMORY: return Code::out_of_memory;
      case VK_ERROR_DEVICE_LOST: return Code::device_lost;
      default: return Code::vulkan_error;
    }
  }
};

// "invalid_argument" for a Status::Code ("invalid" for a value outside the enum).
VKSORT_API std::string_view to_string(Status::Code code);

// The exception form of a failed Status. what() is Status::message.
class VKSORT_API Error : public std::runtime_error {
 public:
  // vksort refusing (result VK_SUCCESS: Code::invalid_argument), or a failed Vulkan call (the code
  // follows the result: Status::code_of).
  explicit Error(const std::string& what, VkResult result = VK_SUCCESS)
      : Error(result == VK_SUCCESS ? Status::Code::invalid_argument : Status::code_of(result), what, result) {}
  Error(Status::Code code, const std::string& what, VkResult result = VK_SUCCESS)
      : std::runtime_error(what), code_(code == Status::Code::ok ? Status::Code::invalid_argument : code), result_(result) {}
  explicit Error(const Status& status) : Error(status.code, status.message, status.result) {}

  Status::Code code() const noexcept { return code_; }
  // The Vulkan result that caused the error, or VK_SUCCESS when vksort itself refused.
  VkResult result() const noexcept { return result_; }
  Status status() const { return {code_, result_, what()}; }

 private:
  Status::Code code_;
  VkResult result_;
};

// An object made by an exception-free create(): the object, or the Status saying why there is none.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}           // NOLINT: implicit, so create() can return either
  Result(Status status) : status_(std::move(status)) {}   // NOLINT
  bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const Status& status() const noexcept { return status_; }
  // The object; only when ok() (calling it otherwise ends the program: there is nothing to return).
  T& value() & noexcept { return get(); }
  T&& value() && noexcept { return std::move(get()); }

 private:
  T& get() noexcept {
    if (!value_) std::abort();
    return *value_;
  }
  Status status_;
  std::optional<T> value_;
};

namespace detail {
// Throws Error(message) (invalid_argument). The header templates' refusals (the typed sort, argsort,
// segmented_sort) throw through this library function, never with a throw expression of their own:
// clang refuses any throw expression under -fno-exceptions, even in a template never instantiated, and
// the headers must compile in such an engine (it uses the create()/record() forms, which never throw).
[[noreturn]] VKSORT_API void throw_error(const std::string& message);
}  // namespace detail

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" for a VkResult: a static string, never null (a placeholder for
// values it does not know). Safe from any thread.
VKSORT_API const char* result_name(VkResult result) noexcept;

}  // namespace vksort
