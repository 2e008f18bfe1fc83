// SPDX-License-Identifier: MIT
// npy_path.hpp — whether a path names a NumPy .npy file, for the apps that read them (vksort sort) and
// the ones that refuse them (vksort-mpi, vksort sort --mpi: raw files only).
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

namespace vksort::cli {

// True if `path` names a .npy file (by its extension, any case).
inline bool is_npy_path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".npy";
}

}  // namespace vksort::cli
