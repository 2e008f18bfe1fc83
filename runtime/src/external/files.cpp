// SPDX-License-Identifier: MIT
#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "vksort/external.hpp"

namespace vksort::external::detail {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

void check_folder(const fs::path& folder, const std::string& what) {
  std::error_code ec;
  if (!fs::exists(folder, ec)) throw InputError(what + ": folder " + quoted(folder) + " does not exist");
  if (!fs::is_directory(folder, ec)) throw InputError(what + ": " + quoted(folder) + " is not a folder");
}

void write_all(int fd, uint64_t offset, const std::byte* src, uint64_t bytes, const std::string& what) {
  while (bytes > 0) {
    const ssize_t w = offset == UINT64_MAX ? ::write(fd, src, bytes) : ::pwrite(fd, src, bytes, off_t(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(Status::Code::io_error, what + ": " + errno_text(errno));
    }
    src += w;
    bytes -= uint64_t(w);
    if (offset != UINT64_MAX) offset += uint64_t(w);
  }
}

void read_all(int fd, uint64_t offset, std::byte* dst, uint64_t bytes, const std::string& what) {
  while (bytes > 0) {
    const ssize_t r = ::pread(fd, dst, bytes, off_t(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(Status::Code::io_error, what + ": " + errno_text(errno));
    }
    if (r == 0) throw Error(Status::Code::io_error, what + ": the file ended early (was it changed while being sorted?)");
    dst += r;
    bytes -= uint64_t(r);
    offset += uint64_t(r);
  }
}

}  // namespace

// Built by append: GCC 12's -Wrestrict misreads "'" + string + "'" once inlined.
std::string quoted(const fs::path& p) {
  std::string s = "'";
  s.append(p.string()).append("'");
  return s;
}

InputFile::InputFile(const fs::path& path, std::string role, uint64_t data_at)
    : path_(path), role_(std::move(role)), data_at_(data_at) {
  std::error_code ec;
  if (!fs::exists(path_, ec)) throw InputError(role_ + " " + quoted(path_) + " does not exist");
  if (fs::is_directory(path_, ec)) throw InputError(role_ + " " + quoted(path_) + " is a folder, not a file");
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever if none comes, before
  // the check below can refuse it. It means nothing for the regular files that pass.
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw InputError(role_ + " " + quoted(path_) + " cannot be opened: " + errno_text(errno));
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    // Offsets are read in any order (two runs in flight), which a pipe cannot give.
    throw InputError(role_ + " " + quoted(path_) + " is not a regular file (the out-of-core sort reads it by offset)");
  }
  if (uint64_t(st.st_size) < data_at_) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(role_ + " " + quoted(path_) + " holds " + std::to_string(st.st_size) + " bytes, fewer than its " +
                     std::to_string(data_at_) + "-byte header");
  }
  size_ = uint64_t(st.st_size) - data_at_;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read(uint64_t offset, std::byte* dst, uint64_t bytes) const {
  read_all(fd_, data_at_ + offset, dst, bytes, "reading " + role_ + " " + quoted(path_));
}

TempFile::TempFile(const fs::path& folder) : folder_(folder) {
  check_folder(folder_, "temporary files");
  fd_ = io::unnamed_file(folder_, ".vksort-run-");
  if (fd_ < 0) throw InputError("cannot create a temporary file in " + quoted(folder_) + ": " + errno_text(errno));
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
}

void TempFile::write(uint64_t offset, const std::byte* src, uint64_t bytes) {
  write_all(fd_, offset, src, bytes, "writing temporary run data in " + quoted(folder_));
}

void TempFile::read(uint64_t offset, std::byte* dst, uint64_t bytes) const {
  read_all(fd_, offset, dst, bytes, "reading temporary run data in " + quoted(folder_));
}

void TempFile::clear() {
  if (ftruncate(fd_, 0) != 0) throw Error(Status::Code::io_error, "truncating temporary run data in " + quoted(folder_) + ": " + errno_text(errno));
}

namespace {

// The atomic writer's errors as the out-of-core sort reports them.
template <class F>
auto as_external_errors(F&& f) {
  try {
    return f();
  } catch (const io::FileError& e) {
    if (e.kind() == io::FileError::Kind::destination) throw InputError(e.what());
    throw Error(Status::Code::io_error, e.what());
  }
}

}  // namespace

OutputFile::OutputFile(const fs::path& destination, const std::string& role)
    : file_(as_external_errors([&] { return std::make_unique<io::AtomicFile>(destination, role); })) {}

OutputFile::~OutputFile() = default;

void OutputFile::write(const std::byte* src, uint64_t bytes) {
  as_external_errors([&] { file_->write(std::span(src, size_t(bytes))); });
}

void OutputFile::commit_all(OutputFile& keys, OutputFile* values) {
  as_external_errors([&] {
    if (values) io::AtomicFile::commit_all({keys.file_.get(), values->file_.get()});
    else keys.file_->commit();
  });
}

}  // namespace vksort::external::detail
