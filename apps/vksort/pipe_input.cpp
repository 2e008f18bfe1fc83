// SPDX-License-Identifier: MIT
#include "pipe_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "cli_error.hpp"
#include "io/atomic_file.hpp"

namespace vksort::cli {

namespace {

void write_all(int fd, const std::byte* src, size_t bytes, const std::string& what) {
  while (bytes > 0) {
    const ssize_t w = write(fd, src, bytes);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw RuntimeFailure(what + ": " + std::strerror(errno));
    }
    src += w;
    bytes -= size_t(w);
  }
}

// Reads into buf; 0 at the end. Throws RuntimeFailure naming `name`.
size_t read_fd(int fd, std::byte* buf, size_t bytes, const std::string& name) {
  for (;;) {
    const ssize_t r = ::read(fd, buf, bytes);
    if (r >= 0) return size_t(r);
    if (errno != EINTR) throw RuntimeFailure("reading " + name + ": " + std::strerror(errno));
  }
}

}  // namespace

PipeInput::~PipeInput() {
  if (fd_ >= 0) close(fd_);
}

PipeInput::PipeInput(PipeInput&& other) noexcept
    : name_(std::move(other.name_)), bytes_(std::move(other.bytes_)), size_(other.size_), fd_(std::exchange(other.fd_, -1)) {}

PipeInput& PipeInput::operator=(PipeInput&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    name_ = std::move(other.name_);
    bytes_ = std::move(other.bytes_);
    size_ = other.size_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

bool PipeInput::is_pipe(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

PipeSource::PipeSource(const std::string& path, const std::string& role) : name_(role + " " + in_quotes(path)) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw UsageError("cannot open " + name_ + ": " + std::strerror(errno));
}

PipeSource::~PipeSource() {
  if (fd_ >= 0) close(fd_);
}

PipeSource::PipeSource(PipeSource&& other) noexcept : name_(std::move(other.name_)), fd_(std::exchange(other.fd_, -1)) {}

size_t PipeSource::read_some(std::byte* buf, size_t bytes) { return read_fd(fd_, buf, bytes, name_); }

PipeInput PipeInput::read(const std::string& path, const std::string& role, uint64_t budget,
                          const std::function<std::filesystem::path()>& spool_folder) {
  PipeSource source(path, role);
  return read(source, budget, spool_folder);
}

PipeInput PipeInput::read(PipeSource& source, uint64_t budget, const std::function<std::filesystem::path()>& spool_folder) {
  PipeInput p;
  p.name_ = source.name();
  // In memory, growing as the pipe delivers, up to the budget (and one byte past it, to tell a pipe of
  // exactly the budget from a larger one).
  size_t filled = 0;
  p.bytes_.resize(size_t(std::min<uint64_t>(budget + 1, uint64_t(1) << 20)));
  for (;;) {
    if (filled == p.bytes_.size()) {
      if (filled > budget) break;
      p.bytes_.resize(size_t(std::min<uint64_t>(budget + 1, uint64_t(filled) * 2)));
    }
    const size_t r = source.read_some(p.bytes_.data() + filled, p.bytes_.size() - filled);
    if (r == 0) {
      p.bytes_.resize(filled);
      p.size_ = filled;
      return p;  // whole, within the budget
    }
    filled += r;
  }
  // Past the budget: what was read, then the rest, through one buffer.
  p.bytes_.resize(filled);
  p.size_ = filled;
  const std::filesystem::path folder = spool_folder();
  p.spool(folder);
  std::vector<std::byte> buf(size_t(1) << 20);
  const std::string what = "writing " + p.name_ + " to a temporary file in " + in_quotes(folder.string());
  for (;;) {
    const size_t r = source.read_some(buf.data(), buf.size());
    if (r == 0) break;
    write_all(p.fd_, buf.data(), r, what);
    p.size_ += r;
  }
  return p;
}

void PipeInput::spool(const std::filesystem::path& folder) {
  if (fd_ >= 0) return;
  fd_ = io::unnamed_file(folder, ".vksort-pipe-");
  // Spooled because it outgrew --memory, or because the other input or the device sent the sort out of core.
  if (fd_ < 0)
    throw UsageError(name_ + " is a pipe to be sorted out of core, and no temporary file to hold it can be created in " +
                     in_quotes(folder.string()) + ": " + std::strerror(errno) + " (give a writable folder with --tmp-dir)");
  write_all(fd_, bytes_.data(), bytes_.size(),
            "writing " + name_ + " to a temporary file in " + in_quotes(folder.string()));
  std::vector<std::byte>().swap(bytes_);
}

std::string PipeInput::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

}  // namespace vksort::cli
