// SPDX-License-Identifier: MIT
// Preconditions of the public objects' calls that the library can see cheaply, checked first in every
// call that would otherwise crash. Throws vksort::Error (a record() returns it as its Status). (A
// command buffer of another VkDevice is refused by gpu::Recorder, at the first thing it records.)
#pragma once

#include <string>

#include "vksort/error.hpp"

namespace vksort::api {

// `impl` is the object's implementation pointer: null once the object was moved from (its contract
// allows only assignment and destruction then; anything else dereferenced null).
inline void check_not_moved(const void* impl, const char* call) {
  if (!impl) throw Error(std::string(call) + ": this object was moved from (assign it another before use)");
}

}  // namespace vksort::api
