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
// frame is right and no validation message was seen, 1 otherwise, 2 for bad arguments.
//
//   splat_sort_example [--splats N] [--frames F] [--width W] [--height H] [--validate] [--device NAME]
//                      [--json FILE]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
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
    auto number = [&] { return uint32_t(std::strtoul(argv[++i], nullptr, 10)); };
    if (arg == "--validate") a.validate = true;
    else if (arg == "--splats" && has_value) a.scene.splats = number();
    else if (arg == "--frames" && has_value) a.frames = number();
    else if (arg == "--width" && has_value) a.scene.width = number();
    else if (arg == "--height" && has_value) a.scene.height = number();
    else if (arg == "--device" && has_value) a.device = argv[++i];
    else if (arg == "--json" && has_value) a.json = argv[++i];
    else return false;
  }
  return a.frames >= 1 && splat::scene_problem(a.scene).empty();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(const Args& args) {
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
    if (!args.json.empty()) {
      std::ofstream out(args.json);
      out << "{\"device\": \"" << device_name << "\", \"splats\": " << args.scene.splats << ", \"frames\": " << frame_ms.size()
          << ", \"width\": " << args.scene.width << ", \"height\": " << args.scene.height << ", \"visible_median\": " << median(visible)
          << ", \"cull_ms_median\": " << median(cull_ms) << ", \"sort_ms_median\": " << median(sort_ms)
          << ", \"frame_ms_median\": " << median(frame_ms) << "}\n";
      if (!out) {
        std::fprintf(stderr, "splat_sort_example: cannot write %s\n", args.json.c_str());
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
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "splat_sort_example: %s\n", e.what());
    return 1;
  }
}
