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
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vksort::cli {

// A pipe opened for reading and not yet read to its end: PipeInput::read takes it; a .npy pipe's header
// is read from it first (read_npy_pipe_header), so that its data are then read as a raw pipe's.
class PipeSource {
 public:
  // Opens the pipe `path` (`role` names it in errors: "input"); UsageError when it cannot be opened.
  PipeSource(const std::string& path, const std::string& role);
  ~PipeSource();
  PipeSource(PipeSource&& other) noexcept;
  PipeSource& operator=(PipeSource&&) = delete;
  PipeSource(const PipeSource&) = delete;
  PipeSource& operator=(const PipeSource&) = delete;

  // Up to `bytes` bytes into `buf`, waiting for some; 0 at the end. RuntimeFailure naming the pipe for a
  // failed read.
  size_t read_some(std::byte* buf, size_t bytes);
  // The descriptor, open for reading without blocking (PipeInput::read_all polls it).
  int fd() const { return fd_; }
  // "input '/dev/stdin'", for errors.
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  int fd_ = -1;
};

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
  // The same for a pipe opened already: what is left of it (a .npy pipe's data, past its header).
  static PipeInput read(PipeSource& source, uint64_t budget, const std::function<std::filesystem::path()>& spool_folder);
  // How many bytes a pipe's header takes in all, given its first bytes: the header is complete once it
  // asks for no more than it was given (npy_header_bytes).
  using HeaderBytes = std::function<uint64_t(std::span<const std::byte>)>;
  // Keys and values from two pipes, read as their data come, within one budget for both: one program
  // that writes both pipes in turns would wait forever on the pipe not read yet if they were read one
  // after the other. Past the budget both go on in spool files. A pipe with a header (`first_header`,
  // `second_header` given: .npy) keeps it apart from its data (header()); `on_headers` runs with both
  // headers (empty for a pipe without one) as soon as they are in, or their pipes ended: the caller's
  // checks of what they say, before the bulk of the data is read. The other pipe's data are read while
  // a header is awaited: a writer that fills one pipe before it writes the other (numpy.save to each in
  // turn) would wait forever on a reader that awaits the other's header first.
  static std::pair<PipeInput, PipeInput> read_both(PipeSource& first, PipeSource& second, uint64_t budget,
                                                   const std::function<std::filesystem::path()>& spool_folder,
                                                   const HeaderBytes& first_header = {}, const HeaderBytes& second_header = {},
                                                   const std::function<void(const std::vector<std::byte>& first_header,
                                                                            const std::vector<std::byte>& second_header)>& on_headers = {});

  // The header read apart from the data (read_both), or nothing.
  const std::vector<std::byte>& header() const { return header_; }
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
  static std::vector<PipeInput> read_all(std::span<PipeSource* const> sources, uint64_t budget,
                                         const std::function<std::filesystem::path()>& spool_folder,
                                         std::span<const HeaderBytes> headers = {},
                                         const std::function<void(std::span<const PipeInput>)>& on_headers = {});

  std::string name_;  // "input '/dev/stdin'", for errors
  std::vector<std::byte> header_;  // (not counted in size_)
  std::vector<std::byte> bytes_;
  uint64_t size_ = 0;
  int fd_ = -1;
};

}  // namespace vksort::cli
