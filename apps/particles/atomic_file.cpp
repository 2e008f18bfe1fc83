// SPDX-License-Identifier: MIT
// The particle app's writers (text streams, libpng's FILE*) on vksort's one atomic file writer
// (runtime/src/io): each output is produced in memory, then written and renamed in one go, so a
// failure leaves the old file (or none) in place.
#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "io/atomic_file.hpp"
#include "model.hpp"

namespace particles {

namespace {
void write_file(const std::string& path, std::string_view contents) {
  try {
    vksort::io::write_file(path, "output", contents);
  } catch (const vksort::io::FileError& e) {
    throw Error(e.what());
  }
}
}  // namespace

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ostringstream out;
  write(out);
  write_file(path, out.view());
}

void check_output(const std::string& option, const std::string& path) {
  try {
    vksort::io::check_destination(path, option);
  } catch (const vksort::io::FileError& e) {
    throw Error(e.what());
  }
}

void check_seekable_output(const std::string& option, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) return;
  bool seekable = false;
  if (S_ISCHR(st.st_mode)) {  // /dev/null seeks, a terminal does not: ask the device
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    seekable = fd >= 0 && ::lseek(fd, 0, SEEK_CUR) >= 0;
    if (fd >= 0) ::close(fd);
  }
  if (!seekable)
    throw Error(option + ": '" + path + "' is a pipe, socket or device that cannot seek, and this file is completed "
                "by going back into it (a GSD index); name a regular file");
}

bool same_output(const std::string& a, const std::string& b) { return vksort::io::same_destination(a, b); }

std::ifstream open_input(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(what + " '" + path + "' is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  return in;
}

void remove_temporaries_on_signals() { vksort::io::install_cleanup_on_signals(); }

void write_atomically_c(const std::string& path, const std::function<void(std::FILE*)>& write) {
  // open_memstream: a FILE* that writes into memory, for writers that only take a FILE*.
  char* data = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  if (!f) throw Error("writing " + path + ": out of memory");
  struct Freed {
    char*& p;
    ~Freed() { std::free(p); }
  } freed{data};
  try {
    write(f);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  if (std::fclose(f) != 0) throw Error("writing " + path + ": out of memory");
  write_file(path, std::string_view(data, size));
}

}  // namespace particles
