// SPDX-License-Identifier: MIT
// atomic_file.hpp — write a file completely or not at all: a temporary beside the destination,
// renamed over it once written and closed.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace particles {

// Calls write(out) on a temporary file "<path>.tmp-<pid>", then renames it to `path`. Throws Error
// (and removes the temporary) if writing or renaming fails.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
// The same for a writer that needs a C FILE* (libpng).
void write_atomically_c(const std::string& path, const std::function<void(std::FILE*)>& write);

}  // namespace particles
