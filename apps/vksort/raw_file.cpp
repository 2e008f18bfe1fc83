// SPDX-License-Identifier: MIT
#include "raw_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli_error.hpp"

namespace vksort::cli {

namespace {
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};
}  // namespace

std::vector<std::byte> read_whole_file(const std::filesystem::path& path, const std::string& role) {
  const std::string name = role + " " + in_quotes(path.string());
  Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw UsageError(name + " does not exist");
    throw UsageError("cannot open " + name + ": " + std::strerror(err));
  }
  struct stat st {};
  if (fstat(f.fd, &st) != 0) throw RuntimeFailure("cannot read " + name + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw UsageError(name + " is a folder, not a file");

  std::vector<std::byte> data;
  // Regular files are read into one exact allocation; pipes grow as they deliver.
  const bool regular = S_ISREG(st.st_mode);
  data.resize(regular ? size_t(st.st_size) : size_t(1) << 20);
  size_t filled = 0;
  for (;;) {
    if (filled == data.size()) {
      if (regular) {
        // The file grew while we read it: take the rest too, but never loop on a file that keeps growing.
        std::byte probe;
        const ssize_t r = read(f.fd, &probe, 1);
        if (r == 0) break;
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw RuntimeFailure("reading " + name + ": " + std::strerror(errno));
        throw RuntimeFailure(name + " changed while it was being read");
      }
      data.resize(data.size() * 2);
    }
    const ssize_t r = read(f.fd, data.data() + filled, data.size() - filled);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw RuntimeFailure("reading " + name + ": " + std::strerror(errno));
    }
    if (r == 0) break;
    filled += size_t(r);
  }
  if (regular && filled != data.size()) throw RuntimeFailure(name + " changed while it was being read");
  data.resize(filled);
  return data;
}

}  // namespace vksort::cli
