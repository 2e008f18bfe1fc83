// SPDX-License-Identifier: MIT
// pipe_input.hpp — `vksort sort` inputs that are pipes (stdin, a FIFO, a process substitution): they
// say no size up front and can be read only once. One is read into memory while it stays within the
// host budget (--memory); a pipe that delivers more goes on, with what was read before, into a
// temporary file without a name, which the out-of-core sort then reads by offset as it reads a regular
// file (through /proc/self/fd). Without this a pipe was read whole whatever its size, and a large one
// ended in the kernel's OOM killer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace vksort::cli {

class PipeInput {
 public:
  PipeInput() = default;
  ~PipeInput();
  PipeInput(PipeInput&& other) noexcept;
  PipeInput& operator=(PipeInput&& other) noexcept;
  PipeInput(const PipeInput&) = delete;
  PipeInput& operator=(const PipeInput&) = delete;

  // True when `path` exists and is neither a regular file nor a folder: what read() takes.
  static bool is_pipe(const std::string& path);

  // Reads the pipe `path` (`role` names it in errors: "input"). Up to `budget` bytes stay in memory;
  // past that, they and the rest go to a spool file in the folder `spool_folder()` names (asked
  // only then). Throws UsageError when the pipe
  // cannot be opened or no spool file can be created there, RuntimeFailure for a failed read or write
  // (a full disk names the folder).
  static PipeInput read(const std::string& path, const std::string& role, uint64_t budget,
                        const std::function<std::filesystem::path()>& spool_folder);
  // Data of the pipe `path` that were read already (a .npy pipe, read whole with its header), held as
  // read() holds a pipe within the budget: spooled as one when the sort goes out of core.
  static PipeInput held(const std::string& path, const std::string& role, std::vector<std::byte> bytes);

  uint64_t size() const { return size_; }
  bool spooled() const { return fd_ >= 0; }
  // The bytes, while not spooled (taken by the in-memory sort).
  std::vector<std::byte>& bytes() { return bytes_; }
  // Moves the bytes held in memory to a spool file in `folder` (the sort goes out of core after all:
  // the other input is large, or the device small). Throws as read() does: UsageError naming the pipe
  // and the folder when no file can be created there.
  void spool(const std::filesystem::path& folder);
  // A path the out-of-core sort opens the spool file by ("/proc/self/fd/N"); only when spooled().
  std::string path() const;

 private:
  std::string name_;  // "input '/dev/stdin'", for errors
  std::vector<std::byte> bytes_;
  uint64_t size_ = 0;
  int fd_ = -1;
};

}  // namespace vksort::cli
