// SPDX-License-Identifier: MIT
#include "atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

#include "model.hpp"

namespace particles {

namespace {
std::string temp_name(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }

void finish(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error("writing " + path + ": " + why);
  }
}
}  // namespace

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = temp_name(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("writing " + path + ": cannot create " + tmp + ": " + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error("writing " + path + ": write failed");
    }
  }
  finish(tmp, path);
}

void write_atomically_c(const std::string& path, const std::function<void(std::FILE*)>& write) {
  const std::string tmp = temp_name(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error("writing " + path + ": cannot create " + tmp + ": " + std::strerror(errno));
  try {
    write(f);
  } catch (...) {
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  if (std::fclose(f) != 0) {
    std::remove(tmp.c_str());
    throw Error("writing " + path + ": write failed");
  }
  finish(tmp, path);
}

}  // namespace particles
