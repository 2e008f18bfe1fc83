// SPDX-License-Identifier: MIT
// atomic_file.hpp — replacing a file so that it holds either its old contents or the complete new
// ones, never a part: after a failure, a crash or Ctrl-C the destination is as it was.
//
// The data goes to a temporary file in the destination's folder (same filesystem, so rename(2) is
// atomic), is fsynced, and only commit() renames it over the destination. Until then the temporary
// file is removed by the destructor, or by the signal handler that install_cleanup_on_signals() sets.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

namespace vksort::cli {

class AtomicFile {
 public:
  // Creates the temporary file next to `destination`. Throws UsageError, naming `role` ("output") and
  // the file, when the folder does not exist, is not writable, or the destination is a folder.
  AtomicFile(std::filesystem::path destination, std::string role);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::filesystem::path& destination() const { return destination_; }

  // Appends to the temporary file. Throws RuntimeFailure (disk full, I/O error).
  void write(std::span<const std::byte> data);
  // Flushes the data to the disk and closes the temporary file; what is left cannot fail half-way.
  // Throws RuntimeFailure.
  void finish();
  // Renames the finished temporary file over the destination and syncs the folder. Throws RuntimeFailure.
  void commit();

 private:
  std::filesystem::path destination_;
  std::string role_;
  std::string temp_path_;
  int fd_ = -1;
  int slot_ = -1;  // where the signal handler finds temp_path_
  bool committed_ = false;
};

// Makes SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files of live AtomicFiles before the
// process dies of the signal as it otherwise would.
void install_cleanup_on_signals();

}  // namespace vksort::cli
