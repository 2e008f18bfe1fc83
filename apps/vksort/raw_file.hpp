// SPDX-License-Identifier: MIT
// raw_file.hpp — reading a whole input file into memory, with errors that name the file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace vksort::cli {

// The bytes of `path` (a regular file, or a pipe such as /dev/stdin). Throws UsageError naming `role`
// ("input") and the file when it does not exist, is a folder or cannot be opened; RuntimeFailure for
// an I/O error while reading.
std::vector<std::byte> read_whole_file(const std::filesystem::path& path, const std::string& role);

}  // namespace vksort::cli
