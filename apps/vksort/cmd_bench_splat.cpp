// SPDX-License-Identifier: MIT
// vksort bench-splat: the per-frame depth sort of a 3D Gaussian-splatting renderer (apps/splat_frames,
// the frame splat_sort_example runs). The CLI plays the renderer: it owns its Vulkan device (as an
// engine does) and lends it to vksort; each frame a culling pass writes the visible splats' 64-bit keys
// (tile << 32 | depth) and indices with a count only the GPU knows, and Sorter::record_indirect sorts
// them on bits [0, 32 + tile bits) in the same command buffer. Cull and sort are timed apart by the
// application's timestamps; every frame, the warm-up's too, is checked against std::stable_sort of the
// pre-sort pairs, and a wrong frame fails the run instead of giving a number.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

#include <vksort/vksort.hpp>

#include "io/atomic_file.hpp"
#include "bench_report.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "git_commit.hpp"
#include "option_values.hpp"
#include "progress.hpp"
#include "report_format.hpp"
#include "stats.hpp"
#include "table.hpp"

#ifdef VKSORT_CLI_SPLAT
#include "app_vulkan.hpp"
#include "splat_frames.hpp"
#endif

namespace vksort::cli {

namespace {

// One scene size: every timed frame's numbers.
struct SplatCase {
  uint64_t splats = 0;
  uint32_t tiles = 0;
  uint32_t end_bit = 0;
  std::vector<double> visible, cull_ms, sort_ms, frame_ms;  // one per timed frame; times empty when untimed
};

struct SplatPlan {
  std::vector<Size> sizes;
  bool csv = false, json = false;
};

SplatPlan parse_splat_plan(const SplatBenchCommand& c) {
  SplatPlan p;
  if (c.frames < 1) throw UsageError("--frames: " + std::to_string(c.frames) + " timed frames: at least 1 is needed");
  p.sizes = parse_sizes(c.sizes, "splats");
#ifdef VKSORT_CLI_SPLAT
  for (const Size& s : p.sizes)
    if (const std::string problem = splat::scene_problem({.splats = uint32_t(std::min<uint64_t>(s.n, UINT32_MAX)),
                                                          .width = c.width, .height = c.height});
        !problem.empty())
      throw UsageError("bench-splat --n " + s.text + " --width " + std::to_string(c.width) + " --height " +
                       std::to_string(c.height) + ": " + problem);
#endif
  const StdoutFormat format = parse_stdout_format(c.format);
  p.csv = format == StdoutFormat::csv;
  p.json = format == StdoutFormat::json;
  return p;
}

#ifdef VKSORT_CLI_SPLAT
// The device `vksort bench` would open (--device, else VKSORT_DEVICE, else the library's choice), as a
// listing: the CLI creates this one itself, as the renderer it plays would.
DeviceListing splat_device(const GlobalOptions& global) {
  const Selector sel = effective_selector(global);
  if (!sel.text.empty()) return cli::chosen_device(sel);  // a selector that fits no usable device: usage error
  for (const DeviceListing& listing : list_devices())
    if (listing.chosen) return listing;
  throw RuntimeFailure("no usable Vulkan device (see 'vksort info')");
}

nlohmann::ordered_json samples_json(const std::vector<double>& v) {
  if (v.empty()) return nullptr;
  const Summary s = summarize(v);
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"runs", v}};
}

std::string ms_cell(const std::vector<double>& v) {
  if (v.empty()) return "n/a";
  const Summary s = summarize(v);
  return format_ms(s.median) + " (" + format_ms(s.min) + ".." + format_ms(s.max) + ")";
}

void print_table(std::ostream& out, const std::vector<SplatCase>& cases) {
  using A = Table::Align;
  Table t({{"splats", A::right}, {"visible", A::right}, {"tiles", A::right}, {"bits", A::right},
           {"cull ms median (min..max)", A::right}, {"sort ms median (min..max)", A::right},
           {"cull + sort ms median", A::right}, {"sort Msplats/s", A::right}});
  for (const auto& r : cases) {
    const bool timed = !r.sort_ms.empty();
    const double sort_median = timed ? summarize(r.sort_ms).median : 0;
    const double visible = summarize(r.visible).median;
    t.add_row({std::to_string(r.splats), std::to_string(uint64_t(visible)), std::to_string(r.tiles),
               "[0, " + std::to_string(r.end_bit) + ")", ms_cell(r.cull_ms), ms_cell(r.sort_ms),
               timed ? format_ms(summarize(r.frame_ms).median) : "n/a",
               timed && sort_median > 0 ? format_rate(visible / sort_median / 1e3) : "n/a"});
  }
  t.print(out);
}

std::string cases_csv(const DeviceInfo& d, const std::vector<SplatCase>& cases) {
  std::string csv = csv_line({"device", "git_commit", "splats", "visible_median", "tiles", "end_bit", "cull_ms_median",
                              "cull_ms_min", "cull_ms_max", "sort_ms_median", "sort_ms_min", "sort_ms_max", "frame_ms_median"});
  for (const auto& r : cases) {
    const bool timed = !r.sort_ms.empty();
    const Summary cull = timed ? summarize(r.cull_ms) : Summary{}, sort = timed ? summarize(r.sort_ms) : Summary{};
    auto opt = [&](double v) { return csv_number(timed ? std::optional(v) : std::nullopt); };
    csv += csv_line({d.name, VKSORT_GIT_COMMIT, std::to_string(r.splats), csv_number(summarize(r.visible).median),
                     std::to_string(r.tiles), std::to_string(r.end_bit), opt(cull.median), opt(cull.min), opt(cull.max),
                     opt(sort.median), opt(sort.min), opt(sort.max),
                     opt(timed ? summarize(r.frame_ms).median : 0)});
  }
  return csv;
}

// Warm-up frame 0, then frames 1..F timed; every frame checked.
SplatCase run_case(const app::Gpu& gpu, const SplatBenchCommand& c, uint64_t splats) {
  splat::FrameSorter frames(gpu, {.splats = uint32_t(splats), .width = c.width, .height = c.height});
  SplatCase r;
  r.splats = splats;
  r.tiles = frames.tiles();
  r.end_bit = frames.end_bit();
  for (uint32_t index = 0; index <= uint32_t(c.frames); ++index) {
    const splat::Frame f = frames.run(index, true);
    if (!f.wrong.empty())
      throw RuntimeFailure("bench-splat n=" + std::to_string(splats) + ": " +
                           (index ? "timed frame " + std::to_string(index) : std::string("warm-up frame")) +
                           " sorted wrong: " + f.wrong);
    if (!index) continue;
    r.visible.push_back(f.visible);
    if (f.sort_ms < 0) continue;
    r.cull_ms.push_back(f.cull_ms);
    r.sort_ms.push_back(f.sort_ms);
    r.frame_ms.push_back(f.cull_ms + f.sort_ms);
  }
  return r;
}
#endif

}  // namespace

int run_bench_splat(const GlobalOptions& global, const SplatBenchCommand& c) {
  const SplatPlan plan = parse_splat_plan(c);  // bad options are refused before any device work
#ifndef VKSORT_CLI_SPLAT
  (void)global;
  (void)plan;
  throw UsageError("bench-splat: this build has no splat workload (it needs the Vulkan loader's headers at build time: "
                   "libvulkan-dev)");
#else
  // As the library reads VKSORT_VALIDATION: set and not "0" turns the layer on.
  const char* env_validation = std::getenv("VKSORT_VALIDATION");
  const bool validate = global.validation || (env_validation && *env_validation && std::string(env_validation) != "0");
  if (validate && !validation_layer_available())
    throw UsageError(std::string(global.validation ? "--validation" : "VKSORT_VALIDATION") +
                     ": VK_LAYER_KHRONOS_validation is not installed (Debian/Ubuntu package: vulkan-validationlayers)");
  std::optional<io::AtomicFile> json_out;
  if (!c.json.empty()) json_out.emplace(c.json, "--json");
  const DeviceListing device = splat_device(global);

  app::set_program_name("vksort");  // the application side's own Vulkan failures end the process
  app::Gpu gpu = app::create_gpu(validate, device.info.name, device.info.uuid);
  std::vector<SplatCase> cases;
  double total = 0;
  for (const Size& s : plan.sizes) total += double(s.n) * double(c.frames + 1);
  Progress progress(total);
  try {
    for (const Size& s : plan.sizes) {
      progress.start("bench-splat n=" + std::to_string(s.n), double(s.n) * double(c.frames + 1));
      cases.push_back(run_case(gpu, c, s.n));
    }
  } catch (...) {
    progress.clear();
    app::destroy_gpu(gpu);
    if (!cases.empty() && !plan.csv && !plan.json) print_table(std::cout, cases);
    throw;
  }
  progress.clear();
  app::destroy_gpu(gpu);
  if (app::validation_messages() > 0)
    throw RuntimeFailure("bench-splat: the validation layer reported " + std::to_string(app::validation_messages()) +
                         " message(s) (printed above)");

  nlohmann::ordered_json doc;
  doc["vksort_version"] = vksort::version();
  doc["git_commit"] = VKSORT_GIT_COMMIT;
  doc["command_line"] = c.command_line;
  doc["device"] = device_json(device.info);
  doc["validation"] = validate;
  doc["frames"] = c.frames;
  doc["warmup"] = 1;
  doc["width"] = c.width;
  doc["height"] = c.height;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& r : cases)
    results.push_back({{"splats", r.splats}, {"visible", samples_json(r.visible)}, {"tiles", r.tiles}, {"end_bit", r.end_bit},
                       {"cull_ms", samples_json(r.cull_ms)}, {"sort_ms", samples_json(r.sort_ms)},
                       {"frame_ms", samples_json(r.frame_ms)}, {"checked_frames", c.frames + 1}});
  doc["results"] = results;
  const std::string json_text = doc.dump(2) + "\n";
  if (plan.csv) {
    std::cout << cases_csv(device.info, cases);
  } else if (plan.json) {
    std::cout << json_text;
  } else {
    std::cout << "vksort " << vksort::version() << " (" << VKSORT_GIT_COMMIT << ") bench-splat on "
              << describe_device(device.info) << (validate ? ", validation on" : "") << '\n'
              << "Per frame: a culling pass writes the visible splats' keys (tile << 32 | depth) and indices, counted on "
              << "the GPU; Sorter::record_indirect sorts them (radix, 64-bit keys on bits [0, bits), u32 values). "
              << c.width << "x" << c.height << " pixels in 16x16 tiles. GPU ms: median (min..max) of " << c.frames
              << " timed frames after 1 warm-up, from GPU timestamps; every frame checked against std::stable_sort\n\n";
    print_table(std::cout, cases);
  }
  if (json_out) {
    json_out->write(std::as_bytes(std::span(json_text.data(), json_text.size())));
    json_out->commit();
  }
  return exit_ok;
#endif
}

}  // namespace vksort::cli
