// SPDX-License-Identifier: MIT
// atomic_file.hpp — write a file completely or not at all, for the particle app's writers
// (the implementation is vksort's one atomic file writer, runtime/src/io/atomic_file.hpp), and open
// an input file.
#pragma once

#include <cstdio>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>

namespace particles {

// Calls write(out) on an in-memory stream, then writes that to `path` through vksort's atomic file
// writer (a temporary beside it, renamed over it). Throws Error if writing or renaming fails; the
// destination then holds what it held before.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
// Throws Error when `path` cannot take an output file (no such folder, not a folder, not writable, a
// folder in the way), naming `option`: for outputs written at the end of a run, checked at its start.
void check_output(const std::string& option, const std::string& path);
// Throws Error, naming `option`, when `path` is an existing pipe, socket or device that cannot seek: a
// writer that goes back to complete what it wrote (GSD's index) cannot write there. /dev/null can.
void check_seekable_output(const std::string& option, const std::string& path);
// True when two output paths name one file (vksort::io::same_destination).
bool same_output(const std::string& a, const std::string& b);
// Makes SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files of outputs not yet complete
// (trajectories grow in one until the run ends).
void remove_temporaries_on_signals();
// The same for a writer that needs a C FILE* (libpng).
void write_atomically_c(const std::string& path, const std::function<void(std::FILE*)>& write);
// Opens `path` for reading (binary), or throws Error calling it `what` ("checkpoint", ...) when it is a
// folder or cannot be opened. A folder opens as a stream on Linux and fails only at the first read,
// with the library's exception (basic_filebuf::underflow), which is no message for bad input.
std::ifstream open_input(const std::string& path, const std::string& what);

}  // namespace particles
