// SPDX-License-Identifier: MIT
// Where the library's exceptions become a Status: the one boundary between the throwing internals and
// the exception-free entry points (create(), record()), and back again for the throwing constructors.
#pragma once

#include <exception>
#include <new>
#include <optional>
#include <utility>

#include "vksort/error.hpp"

namespace vksort::api {

// Runs f; ok, or the Status of what it threw. Nothing escapes.
template <class F>
Status status_of(F&& f) noexcept {
  try {
    std::forward<F>(f)();
    return {};
  } catch (const Error& e) {
    return e.status();
  } catch (const std::bad_alloc&) {
    return {Status::Code::out_of_memory, VK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory"};
  } catch (const std::exception& e) {
    return {Status::Code::vulkan_error, VK_ERROR_UNKNOWN, e.what()};
  }
}

// The object `make` returns, or the Status of what it threw.
template <class T, class F>
Result<T> result_of(F&& make) noexcept {
  std::optional<T> made;
  Status s = status_of([&] { made.emplace(std::forward<F>(make)()); });
  if (!s.ok()) return s;
  return std::move(*made);
}

// The throwing constructors' side: the object, or an Error with the same code, result and message.
template <class T>
T value_or_throw(Result<T>&& r) {
  if (!r.ok()) throw Error(r.status());
  return std::move(r).value();
}

}  // namespace vksort::api
