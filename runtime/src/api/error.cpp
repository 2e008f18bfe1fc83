// SPDX-License-Identifier: MIT
// The one throw of the public headers' templates (vksort/error.hpp: detail::throw_error), compiled
// here so that those headers hold no throw expression and compile with -fno-exceptions.
#include "vksort/error.hpp"

namespace vksort::detail {

void throw_error(const std::string& message) { throw Error(message); }

}  // namespace vksort::detail
