// SPDX-License-Identifier: MIT
// files.hpp — the out-of-core sort's files: inputs read by offset, temporary run data that has no name
// (so nothing outlives the process), and outputs that appear whole or not at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "io/atomic_file.hpp"

namespace vksort::external::detail {

std::string quoted(const std::filesystem::path& p);

// A file's data, from byte `data_at` (past a header, e.g. a .npy file's) to its end, opened for reading
// at offsets (pread), with errors that name it.
class InputFile {
 public:
  // Throws InputError naming `role` when the file does not exist, is a folder, cannot be opened, or is
  // shorter than data_at.
  InputFile(const std::filesystem::path& path, std::string role, uint64_t data_at = 0);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  uint64_t size() const { return size_; }  // bytes of data (after data_at)
  // Reads exactly `bytes` at `offset` of the data; throws vksort::Error on an I/O error or a file that shrank.
  void read(uint64_t offset, std::byte* dst, uint64_t bytes) const;

 private:
  std::filesystem::path path_;
  std::string role_;
  int fd_ = -1;
  uint64_t data_at_ = 0;
  uint64_t size_ = 0;
};

// A temporary file in `folder` without a name: opened with O_TMPFILE, or created and unlinked at once
// where the filesystem lacks it. Its space returns to the disk when it is closed or the process dies.
class TempFile {
 public:
  // Throws InputError when the folder does not exist or no file can be created in it.
  explicit TempFile(const std::filesystem::path& folder);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  // Throws vksort::Error naming the folder (a full disk: ENOSPC or EFBIG).
  void write(uint64_t offset, const std::byte* src, uint64_t bytes);
  void read(uint64_t offset, std::byte* dst, uint64_t bytes) const;
  void clear();  // gives the space back (truncates to 0)

 private:
  std::filesystem::path folder_;
  int fd_ = -1;
};

// An output that appears whole or not at all: the project's one atomic writer (io::AtomicFile: a hidden
// temporary beside `destination`, renamed over it by commit_all(), removed by the destructor and, in the
// CLI, by its signal handlers), with the out-of-core sort's errors: InputError for a destination that
// cannot take a file, vksort::Error for a failed write.
class OutputFile {
 public:
  // Throws InputError naming `role` when the folder does not exist or is not writable, or the
  // destination is a folder.
  OutputFile(const std::filesystem::path& destination, const std::string& role);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Appends; throws vksort::Error naming the destination (a full disk: ENOSPC or EFBIG).
  void write(const std::byte* src, uint64_t bytes);
  bool stream() const { return file_->stream(); }  // a pipe or device, written straight through
  // Puts the keys output (and the values output) in place of their destinations, together
  // (io::AtomicFile::commit_all: both flushed to the disk before either gets a name). Throws vksort::Error.
  static void commit_all(OutputFile& keys, OutputFile* values);

 private:
  std::unique_ptr<io::AtomicFile> file_;
};

}  // namespace vksort::external::detail
