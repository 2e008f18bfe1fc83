// SPDX-License-Identifier: MIT
// The depth sort of a 3D Gaussian-splatting renderer, per frame, in the application's own Vulkan
// (embed_example's app_vulkan: its instance, device, buffers, pipelines and command buffer; the frame
// itself is ../splat_frames, which `vksort bench-splat` runs too):
//   1. its culling pass projects every splat, drops those behind the camera or off screen, and appends
//      the visible ones as 64-bit keys (screen tile id << 32 | view depth bits) with the splat index; how
//      many are visible only the GPU knows (an atomic counter);
//   2. vksort sorts them by Sorter::record_indirect, which reads that count on the GPU, on the bit range
//      [0, 32 + tile bits): the tile ids use only the low bits of the high word, so the passes over the
//      unused high bits are skipped;
//   3. (a renderer would rasterise tile by tile, front to back.)
// Every frame the pairs are copied out before and after the sort and checked on the host: the sorted
// keys and indices must equal std::stable_sort of the pre-sort pairs byte for byte, and the indices
// must be distinct splats. The camera turns between frames, so every frame sorts a different set.
// Reports the GPU time per frame (application timestamps): cull, sort, and their sum (the check's copies
// are recorded between them and not counted). Exit status 0 when every
// frame is right and no validation message was seen, 1 otherwise, 2 for bad arguments (numbers read whole,
// within 32 bits; a --json that cannot be written, checked before the frames run). --json is written
// whole or not at all.
//
//   splat_sort_example [--splats N] [--frames F] [--width W] [--height H] [--validate] [--device NAME]
//                      [--json FILE]
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "app_vulkan.hpp"
#include "splat_frames.hpp"

namespace {

struct Args {
  splat::Scene scene;
  uint32_t frames = 5;
  bool validate = false;
  std::string device, json;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    bool valid = true;
    // The whole value as a decimal number that fits 32 bits: no sign, nothing after it (strtoul read
    // "-1" frames as 2^32 - 1, 4294967297 splats as 1 and "1000abc" as 1000).
    auto number = [&](uint32_t& out) {
      const std::string_view text = argv[++i];
      const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), out);
      valid = error == std::errc() && stop == text.data() + text.size();
    };
    if (arg == "--validate") a.validate = true;
    else if (arg == "--splats" && has_value) number(a.scene.splats);
    else if (arg == "--frames" && has_value) number(a.frames);
    else if (arg == "--width" && has_value) number(a.scene.width);
    else if (arg == "--height" && has_value) number(a.scene.height);
    else if (arg == "--device" && has_value) a.device = argv[++i];
    else if (arg == "--json" && has_value) a.json = argv[++i];
    else return false;
    // An empty --device or --json (a script's unset variable) names nothing: it ran on the default
    // device, or wrote no file, with exit 0.
    if ((arg == "--device" || arg == "--json") && argv[i][0] == '\0') return false;
    if (!valid) return false;
  }
  return a.frames >= 1 && splat::scene_problem(a.scene).empty();
}

// --json, written whole or not at all: a temporary file beside it, synced, then renamed over it. Kept
// here, small, rather than taken from vksort's internal file helpers (runtime/src/io): the example
// uses vksort's public API only, as an application would.
class JsonFile {
 public:
  explicit JsonFile(std::string path) : path_(std::move(path)) {
    const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
    folder_ = folder.empty() ? std::string(".") : folder.string();
  }

  // Before the run: why the file cannot be written, or "" (a temporary file could be made beside it).
  std::string check() const {
    struct stat st;
    if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return path_ + (S_ISDIR(st.st_mode) ? " is a folder" : " is not a regular file");
    std::string temp = folder_ + "/.splat_sort_example.XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) return "cannot write " + path_ + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(temp.c_str());
    return "";
  }
  // After it: the whole text in place of the file, or false with errno set (the file as it was).
  bool write(const std::string& text) const {
    std::string temp = folder_ + "/.splat_sort_example.XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) return false;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    bool ok = ::fchmod(fd, 0666 & ~mask) == 0;  // as open() would make it, not mkstemp's 0600
    for (size_t done = 0; ok && done < text.size();) {
      const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
      ok = w > 0 || (w < 0 && errno == EINTR);
      if (w > 0) done += size_t(w);
    }
    ok = ok && ::fsync(fd) == 0;
    ok = ::close(fd) == 0 && ok;
    ok = ok && std::rename(temp.c_str(), path_.c_str()) == 0;
    if (!ok) {
      const int error = errno;
      ::unlink(temp.c_str());
      errno = error;
    }
    return ok;
  }

 private:
  std::string path_, folder_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(const Args& args, const JsonFile* json) {
  app::set_program_name("splat_sort_example");
  app::Gpu gpu = app::create_gpu(args.validate, args.device);
  const std::string device_name = gpu.name;  // for the report, after the device is gone
  int status = 0;
  std::vector<double> cull_ms, sort_ms, frame_ms, visible;
  {
    splat::FrameSorter frames(gpu, args.scene);
    std::printf("device: %s, %u splats, %ux%u pixels in %u tiles: keys sorted on bits [0, %u)\n", gpu.name.c_str(),
                args.scene.splats, args.scene.width, args.scene.height, frames.tiles(), frames.end_bit());
    for (uint32_t frame = 0; frame < args.frames && status == 0; ++frame) {
      const splat::Frame f = frames.run(frame, true);
      std::printf("frame %u: %u visible, cull %.2f ms, sort %.2f ms: %s\n", frame, f.visible, f.cull_ms, f.sort_ms,
                  f.wrong.empty() ? "sorted right" : f.wrong.c_str());
      if (!f.wrong.empty()) status = 1;
      cull_ms.push_back(f.cull_ms);
      sort_ms.push_back(f.sort_ms);
      frame_ms.push_back(f.cull_ms + f.sort_ms);
      visible.push_back(f.visible);
    }
  }
  app::destroy_gpu(gpu);
  if (app::validation_messages() > 0) {
    std::fprintf(stderr, "splat_sort_example: %u validation message(s)\n", app::validation_messages());
    status = 1;
  }
  if (status == 0 && !cull_ms.empty()) {
    std::printf("median of %zu frames: cull %.2f ms, sort %.2f ms, cull + sort %.2f ms, %.0f visible\n", frame_ms.size(),
                median(cull_ms), median(sort_ms), median(frame_ms), median(visible));
    if (json) {
      std::ostringstream out;
      out << "{\"device\": \"" << device_name << "\", \"splats\": " << args.scene.splats << ", \"frames\": " << frame_ms.size()
          << ", \"width\": " << args.scene.width << ", \"height\": " << args.scene.height << ", \"visible_median\": " << median(visible)
          << ", \"cull_ms_median\": " << median(cull_ms) << ", \"sort_ms_median\": " << median(sort_ms)
          << ", \"frame_ms_median\": " << median(frame_ms) << "}\n";
      if (!json->write(out.str())) {
        std::fprintf(stderr, "splat_sort_example: cannot write %s: %s\n", args.json.c_str(), std::strerror(errno));
        status = 1;
      }
    }
  }
  std::printf("%s\n", status == 0 ? "OK" : "FAILED");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr, "usage: splat_sort_example [--splats 1..2^30-1] [--frames F] [--width W] [--height H] [--validate] "
                         "[--device NAME] [--json FILE] (sides 1..65536 pixels)\n");
    return 2;
  }
  // --json is checked before the frames run, not after them.
  const JsonFile json(args.json);
  if (!args.json.empty()) {
    if (const std::string problem = json.check(); !problem.empty()) {
      std::fprintf(stderr, "splat_sort_example: --json: %s\n", problem.c_str());
      return 2;
    }
  }
  try {
    return run(args, args.json.empty() ? nullptr : &json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "splat_sort_example: %s\n", e.what());
    return 1;
  }
}
