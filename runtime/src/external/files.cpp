// SPDX-License-Identifier: MIT
#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "vksort/external.hpp"

namespace vksort::external::detail {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

fs::path folder_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// Filesystems without O_TMPFILE answer with one of these (older kernels may say EISDIR or ENOENT).
bool tmpfile_unsupported(int err) { return err == EOPNOTSUPP || err == EISDIR || err == EINVAL || err == ENOENT; }

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
      throw Error(what + ": " + errno_text(errno));
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
      throw Error(what + ": " + errno_text(errno));
    }
    if (r == 0) throw Error(what + ": the file ended early (was it changed while being sorted?)");
    dst += r;
    bytes -= uint64_t(r);
    offset += uint64_t(r);
  }
}

// ".NAME.vksort-SUFFIX": hidden and named after the destination, as the CLI's AtomicFile names its
// temporaries, so a leftover explains itself; long names are cut so that the suffix fits NAME_MAX.
// Built by append: GCC 12's -Wrestrict misreads chains of string + once inlined.
std::string hidden_name(const fs::path& destination, const std::string& suffix) {
  std::string name = ".";
  name.append(destination.filename().string().substr(0, 200)).append(".vksort-").append(suffix);
  return name;
}

}  // namespace

// Built by append: GCC 12's -Wrestrict misreads "'" + string + "'" once inlined.
std::string quoted(const fs::path& p) {
  std::string s = "'";
  s.append(p.string()).append("'");
  return s;
}

InputFile::InputFile(const fs::path& path, std::string role) : path_(path), role_(std::move(role)) {
  std::error_code ec;
  if (!fs::exists(path_, ec)) throw InputError(role_ + " " + quoted(path_) + " does not exist");
  if (fs::is_directory(path_, ec)) throw InputError(role_ + " " + quoted(path_) + " is a folder, not a file");
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(role_ + " " + quoted(path_) + " cannot be opened: " + errno_text(errno));
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    // Offsets are read in any order (two runs in flight), which a pipe cannot give.
    throw InputError(role_ + " " + quoted(path_) + " is not a regular file (the out-of-core sort reads it by offset)");
  }
  size_ = uint64_t(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read(uint64_t offset, std::byte* dst, uint64_t bytes) const {
  read_all(fd_, offset, dst, bytes, "reading " + role_ + " " + quoted(path_));
}

TempFile::TempFile(const fs::path& folder) : folder_(folder) {
  check_folder(folder_, "temporary files");
  fd_ = ::open(folder_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0 && tmpfile_unsupported(errno)) {
    // Unlinked at once: the data stays reachable through fd_ only, and no name is ever left behind.
    std::string templ = (folder_ / ".vksort-run-XXXXXX").string();
    fd_ = mkstemp(templ.data());
    if (fd_ >= 0) {
      ::unlink(templ.c_str());
      fcntl(fd_, F_SETFD, FD_CLOEXEC);
    }
  }
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
  if (ftruncate(fd_, 0) != 0) throw Error("truncating temporary run data in " + quoted(folder_) + ": " + errno_text(errno));
}

OutputFile::OutputFile(fs::path destination, std::string role) : destination_(std::move(destination)), role_(std::move(role)) {
  const fs::path folder = folder_of(destination_);
  check_folder(folder, role_ + " " + quoted(destination_));
  std::error_code ec;
  if (fs::is_directory(destination_, ec)) throw InputError(role_ + " " + quoted(destination_) + " is a folder, not a file");
  // The replaced file's permissions, else what open(2) gives under the umask (O_TMPFILE applies it).
  struct stat st {};
  const bool replaces = ::stat(destination_.c_str(), &st) == 0;
  fd_ = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd_ < 0 && tmpfile_unsupported(errno)) {
    std::string templ = (folder / hidden_name(destination_, "XXXXXX")).string();
    fd_ = mkstemp(templ.data());
    if (fd_ >= 0) {
      named_temp_ = templ;
      fcntl(fd_, F_SETFD, FD_CLOEXEC);
      const mode_t mask = umask(0);  // umask can only be read by setting it
      umask(mask);
      fchmod(fd_, 0666 & ~mask);
    }
  }
  if (fd_ < 0)
    throw InputError(role_ + " " + quoted(destination_) + ": cannot create a file in " + quoted(folder) + ": " + errno_text(errno));
  if (replaces) fchmod(fd_, st.st_mode & 07777);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !named_temp_.empty()) ::unlink(named_temp_.c_str());
}

void OutputFile::write(const std::byte* src, uint64_t bytes) {
  write_all(fd_, UINT64_MAX, src, bytes, "writing " + role_ + " " + quoted(destination_));
}

void OutputFile::commit() {
  const std::string what = "writing " + role_ + " " + quoted(destination_);
  if (fsync(fd_) != 0) throw Error(what + " to disk: " + errno_text(errno));
  const fs::path folder = folder_of(destination_);
  if (named_temp_.empty()) {
    // An O_TMPFILE file gets a name only now: linkat cannot replace, so link it under a fresh hidden
    // name and rename that over the destination (atomic on one filesystem).
    static std::atomic<unsigned> counter{0};
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    for (int attempt = 0;; ++attempt) {
      const std::string name =
          (folder / hidden_name(destination_, std::to_string(getpid()) + "-" + std::to_string(counter++))).string();
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        named_temp_ = name;
        break;
      }
      if (errno != EEXIST || attempt > 100) throw Error(what + ": cannot link the finished file: " + errno_text(errno));
    }
  }
  const int fd = fd_;
  fd_ = -1;
  // close can report a delayed write error (NFS); the data would then not be complete.
  if (::close(fd) != 0) throw Error(what + ": " + errno_text(errno));
  if (std::rename(named_temp_.c_str(), destination_.c_str()) != 0)
    throw Error("replacing " + role_ + " " + quoted(destination_) + ": " + errno_text(errno));
  committed_ = true;
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);  // durability of the rename only; the contents are complete either way
    ::close(dir);
  }
}

}  // namespace vksort::external::detail
