// SPDX-License-Identifier: MIT
// particles — a Dissipative Particle Dynamics simulator on the GPU whose neighbour search runs on
// vksort's bucket lists (seed 002, section 4). See docs/particles.md.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <vksort/error.hpp>
#include <vksort/external.hpp>

#include "atomic_file.hpp"
#include "io/format_bytes.hpp"
#include "checkpoint.hpp"
#include "cli_checks.hpp"
#include "gpu_context.hpp"
#include "initial_state.hpp"
#include "mixing_layer.hpp"
#include "model.hpp"
#include "observables.hpp"
#include "observables_series.hpp"
#include "output_png.hpp"
#ifdef PARTICLES_HAVE_GIF
#include "output_gif.hpp"
#endif
#include "output_text.hpp"
#include "simulation.hpp"
#include "species.hpp"
#include "structure.hpp"
#include "trajectory.hpp"

namespace {

// The PNG frames are FOLDER/frame_<step>.png: frame_path() of this pattern.
std::string png_frame_pattern(const std::string& folder) { return (std::filesystem::path(folder) / "frame.png").string(); }

using vksort::cli_checks::at_least_one;
using vksort::cli_checks::finite_non_negative;
using vksort::cli_checks::finite_positive;
using vksort::cli_checks::finite_within;
using vksort::cli_checks::not_negative;

struct Options {
  std::string scenario;
  uint32_t n = 16384;
  uint64_t steps = 1000;
  uint64_t every = 100;
  uint32_t seed = 1;
  float dt = 0.04f;
  std::vector<float> box;
  float gravity = -1.0f;  // < 0: the scenario's
  bool validation = false;
  std::string device;
  std::string integrator = "vv";
  std::string noise = "counter";
  std::string cells = "scatter";
  std::string frames;
  uint64_t frame_every = 0;
  std::string xyz, vtk, gsd;
  uint64_t dump_every = 0;  // 0: the last step only
  std::string species = "Ne,Ar";
  std::string observables;
  std::string rdf;
  uint32_t rdf_bins = 100;
  double rdf_rmax = 0;      // 0: 3 r_c, or half the smallest periodic box length if that is less
  uint64_t rdf_window = 0;  // 0: the second half of the run
  std::string msd;
  std::string checkpoint;
  uint64_t checkpoint_every = 0;  // 0: at the end only
  std::string restart, init;
  std::string lattice = "random";
  std::string montage;
  uint32_t montage_columns = 3;
  std::string animation;
  uint32_t animation_delay = 10;  // centiseconds
  uint32_t batch = 32;
  uint32_t list_iterations = 12;
  uint32_t list_parts = 1;
  uint32_t reorder_every = 0;
  std::string layout = "cell-order";
  uint32_t cell_divisions = 4;
  std::string pairs = "once";
  std::string neighbours = "cells";
  float skin = 0.3f;
};

void progress(uint64_t done, uint64_t total) {
  static const bool tty = ::isatty(STDERR_FILENO);
  if (!tty || total == 0) return;
  const int width = 40, filled = int(width * done / total);
  std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
               int(100 * done / total));
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 8, "");
  std::fflush(stderr);
}

// `mixing`: also the Rayleigh-Taylor mixing-layer thickness (heavy fraction 5%..95%).
void print_row(const particles::Simulation& sim, const particles::Observables& o, const particles::StepTimes& t,
               const particles::Snapshot& s, bool mixing) {
  char ms[96] = "          -          -          -";
  if (t.timed && t.steps > 0)
    std::snprintf(ms, sizeof ms, "%11.3f%11.3f%11.3f", t.neighbours_ms / t.steps, t.forces_ms / t.steps,
                  t.integration_ms / t.steps);
  char dz[16] = "        -";  // mean height of heavy minus light, where both exist
  if (o.count[0] && o.count[1]) std::snprintf(dz, sizeof dz, "%9.3f", o.mean_z[1] - o.mean_z[0]);
  char mix[16] = "";
  if (mixing) std::snprintf(mix, sizeof mix, "%9.2f", particles::mixing_layer(sim.model(), s.pos).thickness());
  std::printf("%8llu%9.4f%10.4f%10.4f%10.4f%11.2e%10.2e%10.2e%8.2f%s%s%s\n", static_cast<unsigned long long>(sim.step()),
              o.temperature, o.pressure, o.pressure_all, o.potential / sim.size(), o.momentum[0], o.momentum[1],
              o.momentum[2], o.mean_neighbours, ms, dz, mix);
  std::fflush(stdout);
}

// Totals of one simulation run (GPU milliseconds per phase over the timed steps).
struct Totals {
  double ms[3] = {0, 0, 0};  // neighbours, forces, integration
  uint64_t timed_steps = 0;
  uint64_t steps = 0, list_builds = 0;  // all steps run, and those that rebuilt the Verlet list
  double wall_s = 0;
  double late_t = 0, late_p = 0;  // sums of T and P over the rows after a third of the run
  uint64_t late_rows = 0;
  particles::Snapshot last;
};

bool g_running = false;  // past set-up: failures are run-time failures (exit 1), not bad input (exit 2)

// What a run reads besides its options: the model, the species symbols, the scenario's name and the
// initial state (from the scenario, a lattice, a configuration file or a checkpoint).
struct Setup {
  std::string scenario;
  particles::Model model;
  particles::SpeciesNames species;
  particles::State state;
};

// The files a run writes while it goes (for the last cell build of --cells both).
struct Outputs {
  std::unique_ptr<particles::Trajectory> gsd, xyz;
  std::unique_ptr<particles::RadialDistribution> rdf;
  std::unique_ptr<particles::MeanSquareDisplacement> msd;
  std::unique_ptr<particles::ObservablesSeries> observables;
};

// Next multiple of `every` after `step` (every == 0: never, i.e. `end`).
uint64_t next_multiple(uint64_t step, uint64_t every, uint64_t end) {
  return every ? std::min(end, (step / every + 1) * every) : end;
}

Totals simulate(particles::gpu::Context& ctx, const Options& opt, const Setup& setup, const particles::Model& model,
                const std::string& cells, Outputs* out) {
  using namespace particles;
  const Grid grid = grid_for(model);
  Simulation sim(ctx, model, setup.state);
  const uint64_t start = sim.step(), end = start + opt.steps;
  std::string search = model.layout == Layout::cell_order ? "particles in cell order" : cells + " cell lists";
  if (model.verlet_list()) {
    char list[64];
    std::snprintf(list, sizeof list, ", Verlet list (skin %g)", double(model.skin));
    search += list;
  }
  std::printf("# %s: %u particles, box %.4g x %.4g x %.4g (%s z), %u x %u x %u cells, dt %.3g, %s, %s noise, "
              "%s, seed %u, steps %llu to %llu\n# device: %s\n",
              setup.scenario.c_str(), sim.size(), model.lx, model.ly, model.lz,
              model.periodic_z ? "periodic" : "walls in", grid.nx, grid.ny, grid.nz, model.dt,
              model.integrator == Integrator::leapfrog ? "leapfrog" : "vv",
              model.noise == Noise::paper ? "paper" : "counter", search.c_str(), model.seed,
              static_cast<unsigned long long>(start), static_cast<unsigned long long>(end), ctx.name().c_str());
  const bool mixing = setup.scenario == "rayleigh-taylor";
  std::printf("#   step        T         P     P_all       U/N         px        py        pz   neigh  ms/step: "
              "neighbours   forces  integration   zH-zL%s\n",
              mixing ? "   mixing" : "");

  std::vector<Image> shown;  // the frames, kept for --montage
#ifdef PARTICLES_HAVE_GIF
  std::unique_ptr<Animation> animation;  // the frames, indexed, for --animation
  if (!opt.animation.empty()) animation = std::make_unique<Animation>(uint16_t(opt.animation_delay));
#endif
  auto frame = [&](const Snapshot& s) {
    Image img = render_views(model, s.pos, double(s.step) * model.dt, s.step);
    write_png(frame_path(png_frame_pattern(opt.frames), s.step), img);
#ifdef PARTICLES_HAVE_GIF
    if (animation) animation->add(img);
#endif
    if (!opt.montage.empty()) shown.push_back(std::move(img));
  };
  const uint64_t rdf_from = end - std::min(opt.steps, opt.rdf_window ? opt.rdf_window : opt.steps / 2);
  const uint64_t late_from = start + opt.steps / 3;  // past the start's transient: the equilibrium averages
  Totals totals;
  // Everything due at this step: a table row (with the observables, g(r) and MSD samples), picture,
  // trajectory frame, checkpoint.
  auto record = [&](const Snapshot& s, bool row, bool pic, bool dump, bool save) {
    if (row) {
      const Observables o = measure(model, s);
      print_row(sim, o, sim.times(), s, mixing);
      if (s.step > late_from) totals.late_t += o.temperature, totals.late_p += o.pressure, ++totals.late_rows;
      if (out && out->observables) out->observables->add(model, s.step, o);
      if (out && out->rdf && s.step >= rdf_from) out->rdf->add(s);
      if (out) out->msd->add(s);
    }
    if (pic) frame(s);
    if (dump && out) {
      if (out->gsd) out->gsd->frame(s);
      if (out->xyz) out->xyz->frame(s);
      if (!opt.vtk.empty() && opt.dump_every) write_vtk(frame_path(opt.vtk, s.step), model, s);
    }
    if (save && out && !opt.checkpoint.empty()) write_checkpoint(opt.checkpoint, setup.scenario, model, setup.species, s);
  };
  Snapshot& s = totals.last;
  s = sim.snapshot();
  const bool pictures = !opt.frames.empty();
  const bool at_end = opt.steps == 0;  // --steps 0: the start is also the end (a converted --init file)
  record(s, true, pictures, opt.dump_every > 0 || at_end, at_end);

  const auto wall0 = std::chrono::steady_clock::now();
  while (sim.step() < end) {
    const uint64_t now = sim.step();
    uint64_t next = next_multiple(now, opt.every, end);
    if (pictures) next = std::min(next, next_multiple(now, opt.frame_every, end));
    next = std::min(next, next_multiple(now, opt.dump_every, end));
    next = std::min(next, next_multiple(now, opt.checkpoint_every, end));
    while (sim.step() < next) {  // in batches, so the progress bar moves
      sim.advance(std::min<uint64_t>(opt.batch, next - sim.step()), opt.batch);
      progress(sim.step() - start, opt.steps);
    }
    const uint64_t step = sim.step();
    auto due = [&](uint64_t every) { return every && step % every == 0; };
    const bool last = step == end;
    const bool row = due(opt.every) || last;
    const bool pic = pictures && (due(opt.frame_every) || last);
    const bool dump = due(opt.dump_every) || last;
    const bool save = due(opt.checkpoint_every) || last;
    s = sim.snapshot();
    if (row) {
      const StepTimes& t = sim.times();
      totals.ms[0] += t.neighbours_ms, totals.ms[1] += t.forces_ms, totals.ms[2] += t.integration_ms;
      totals.timed_steps += t.timed ? t.steps : 0;
      totals.steps += t.steps, totals.list_builds += t.list_builds;
    }
    record(s, row, pic, dump, save);
    if (row) sim.reset_times();
  }
  totals.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!opt.montage.empty()) write_png(opt.montage, montage(shown, opt.montage_columns));
#ifdef PARTICLES_HAVE_GIF
  if (animation) animation->write(opt.animation);
#endif
  if (totals.late_rows > 0)
    std::printf("# mean over steps > %llu: T %.4f, P %.4f (conservative virial pressure), %llu rows\n",
                static_cast<unsigned long long>(late_from), totals.late_t / double(totals.late_rows),
                totals.late_p / double(totals.late_rows), static_cast<unsigned long long>(totals.late_rows));
  if (totals.timed_steps > 0) {
    const double gpu_ms = totals.ms[0] + totals.ms[1] + totals.ms[2];
    const double steps = double(totals.timed_steps);
    std::printf("# GPU per step: neighbours %.3f ms (%.0f%%), forces %.3f ms (%.0f%%), integration %.3f ms; "
                "%.3g particle-steps/s on the GPU, %.3g with the host (wall %.2f s)\n",
                totals.ms[0] / steps, 100 * totals.ms[0] / gpu_ms, totals.ms[1] / steps, 100 * totals.ms[1] / gpu_ms,
                totals.ms[2] / steps, double(sim.size()) * steps / (gpu_ms * 1e-3),
                double(sim.size()) * double(opt.steps) / totals.wall_s, totals.wall_s);
  }
  if (model.verlet_list() && totals.steps > 0)
    std::printf("# neighbour list (skin %g) rebuilt on %llu of %llu steps (always on a batch's last step, whose "
                "pressure tensor walks the cells)\n",
                double(model.skin), static_cast<unsigned long long>(totals.list_builds),
                static_cast<unsigned long long>(totals.steps));
  if (out) {
    const double d = out->msd->diffusion();
    if (std::isfinite(d))
      std::printf("# diffusion coefficient D = %.5g (mean-square displacement of the unwrapped positions, %s)\n", d,
                  model.periodic_z ? "x y z" : "x y");
  }
  return totals;
}

// The folder `path` (none if empty) and those above it that do not exist, created; when an exception
// leaves the scope of this object (the run failed), those created and still empty are removed again:
// `--device 99 --frames new` said "no device 99", exit 2, and left new/ behind (the device is chosen
// before the folder now, but the device's creation and the initial forces come after it). A run that
// failed after its first frame keeps the folder and the frames in it.
class CreatedFolders {
 public:
  explicit CreatedFolders(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) return;
    std::error_code ec;
    for (fs::path p = fs::absolute(path); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      made_.push_back(p);  // innermost first
      if (p == p.parent_path()) break;
    }
    fs::create_directories(path);
  }
  ~CreatedFolders() {
    if (std::uncaught_exceptions() <= unwinding_) return;
    std::error_code ec;
    for (const std::filesystem::path& p : made_) std::filesystem::remove(p, ec);  // only an empty folder goes
  }
  CreatedFolders(const CreatedFolders&) = delete;
  CreatedFolders& operator=(const CreatedFolders&) = delete;

 private:
  std::vector<std::filesystem::path> made_;
  int unwinding_ = std::uncaught_exceptions();
};

// Options that a checkpoint fixes: giving one with --restart is an error, not silently ignored.
const char* const kFixedByCheckpoint[] = {"--scenario", "--n",     "--box",     "--seed",    "--dt",   "--gravity",
                                          "--integrator", "--noise", "--species", "--init", "--lattice"};

// Options that act only with another: given without it, each would be silently ignored, so it is
// refused instead (an interval for an output not asked for, a setting of a layout not used).
struct NeededOption {
  const char* option;
  const char* needs;
  bool (*present)(const Options&);  // whether what `option` acts with is there
};
const NeededOption kNeededOptions[] = {
    {"--checkpoint-every", "--checkpoint", [](const Options& o) { return !o.checkpoint.empty(); }},
    {"--dump-every", "--gsd, --xyz or --vtk", [](const Options& o) { return !(o.gsd + o.xyz + o.vtk).empty(); }},
    {"--frame-every", "--frames", [](const Options& o) { return !o.frames.empty(); }},
    {"--montage", "--frames", [](const Options& o) { return !o.frames.empty(); }},
    {"--montage-columns", "--montage", [](const Options& o) { return !o.montage.empty(); }},
    {"--animation", "--frames", [](const Options& o) { return !o.frames.empty(); }},
    {"--animation-delay", "--animation", [](const Options& o) { return !o.animation.empty(); }},
    {"--rdf-bins", "--rdf", [](const Options& o) { return !o.rdf.empty(); }},
    {"--rdf-rmax", "--rdf", [](const Options& o) { return !o.rdf.empty(); }},
    {"--rdf-window", "--rdf", [](const Options& o) { return !o.rdf.empty(); }},
    {"--skin", "--neighbours list", [](const Options& o) { return o.neighbours == "list"; }},
    {"--cells", "--layout lists", [](const Options& o) { return o.layout == "lists"; }},
    {"--list-iterations", "--layout lists", [](const Options& o) { return o.layout == "lists"; }},
    {"--list-parts", "--layout lists", [](const Options& o) { return o.layout == "lists"; }},
    {"--reorder-every", "--layout lists", [](const Options& o) { return o.layout == "lists"; }},
    {"--cell-divisions", "--layout cell-order", [](const Options& o) { return o.layout == "cell-order"; }},
    {"--pairs", "--layout cell-order", [](const Options& o) { return o.layout == "cell-order"; }},
};

void check_needed_options(const Options& opt, const CLI::App& app) {
  for (const NeededOption& n : kNeededOptions)
    if (app.count(n.option) && !n.present(opt)) throw particles::Error(std::string(n.option) + " needs " + n.needs);
}

bool is_gsd(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint64_t magic = 0;
  in.read(reinterpret_cast<char*>(&magic), 8);
  return in && magic == 0x65DF65DF65DF65DFull;
}

// True when `path` is one of the per-step files frame_path(pattern, step) names (STEM_<step, 8 digits>.EXT).
bool is_frame_file(const std::string& pattern, const std::string& path) {
  const std::filesystem::path p(pattern);
  const std::string name = std::filesystem::path(path).filename().string();
  const std::string head = p.stem().string() + "_", ext = p.extension().string();
  if (name.size() < head.size() + 8 + ext.size() || !name.starts_with(head) || !name.ends_with(ext)) return false;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - ext.size());
  if (digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  return particles::same_output(particles::frame_path(pattern, std::stoull(digits)), path);
}

// Every output's path, checked before the run (the files written at its end would otherwise fail only
// after all the work): each can take a file, the frames folder is a folder or can become one, and no two
// options name the same file (the later writer would silently replace the earlier one's file).
void check_outputs(const Options& opt) {
  using particles::Error;
  namespace fs = std::filesystem;
  const std::pair<const char*, const std::string*> files[] = {
      {"--observables", &opt.observables}, {"--gsd", &opt.gsd},   {"--xyz", &opt.xyz},
      {"--vtk", &opt.vtk},                 {"--rdf", &opt.rdf},   {"--msd", &opt.msd},
      {"--checkpoint", &opt.checkpoint},   {"--montage", &opt.montage}, {"--animation", &opt.animation}};
  bool frames_to_create = false;  // outputs may go into the frames folder that the run creates
  if (!opt.frames.empty()) {
    std::error_code ec;
    if (fs::exists(opt.frames, ec) && !fs::is_directory(opt.frames, ec))
      throw Error("--frames: '" + opt.frames + "' is a file, not a folder");
    fs::path existing = fs::absolute(opt.frames, ec);
    while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
    if (!fs::is_directory(existing, ec))
      throw Error("--frames: '" + opt.frames + "' cannot become a folder ('" + existing.string() + "' is a file)");
    if (::access(existing.c_str(), W_OK | X_OK) != 0)
      throw Error("--frames: cannot create or write '" + opt.frames + "': " + std::strerror(errno));
    frames_to_create = !fs::exists(opt.frames, ec);
  }
  std::vector<std::pair<const char*, const std::string*>> named;
  for (const auto& [option, path] : files) {
    if (path->empty()) continue;
    const fs::path folder = fs::path(*path).parent_path();
    if (!(frames_to_create && !folder.empty() && particles::same_output(folder, opt.frames)))
      particles::check_output(option, *path);
    for (const auto& [other, other_path] : named)
      if (particles::same_output(*path, *other_path))
        throw Error(std::string(other) + " and " + option + " name the same file '" + *path + "'; give each its own");
    named.emplace_back(option, path);
  }
  if (!opt.gsd.empty()) particles::check_seekable_output("--gsd", opt.gsd);
  // Files written per step (STEM_<step, 8 digits>.vtk with --dump-every, FOLDER/frame_<step>.png) must not be
  // another output's file, nor each other's.
  std::vector<std::pair<const char*, std::string>> per_step;
  if (!opt.vtk.empty() && opt.dump_every) per_step.emplace_back("--vtk with --dump-every", opt.vtk);
  if (!opt.frames.empty()) per_step.emplace_back("--frames", png_frame_pattern(opt.frames));
  for (const auto& [writer, pattern] : per_step)
    for (const auto& [option, path] : named)
      if (is_frame_file(pattern, *path))
        throw Error(std::string(option) + " '" + *path + "' has the name of a file that " + writer +
                    " writes each step; give it another name");
  if (per_step.size() == 2 && particles::same_output(per_step[0].second, per_step[1].second))
    throw Error("--vtk with --dump-every and --frames would write the same files (" +
                particles::frame_path(per_step[0].second, 0) + ", ...); give --vtk another name");
  // No output may replace the file the run reads, except --checkpoint over --restart: resuming and
  // checkpointing into one file (read whole before the run; the checkpoint is written atomically).
  const std::pair<const char*, const std::string*> inputs[] = {{"--restart", &opt.restart}, {"--init", &opt.init}};
  for (const auto& [input, input_path] : inputs) {
    if (input_path->empty()) continue;
    for (const auto& [option, path] : named)
      if (particles::same_output(*path, *input_path) &&
          !(std::string_view(option) == "--checkpoint" && std::string_view(input) == "--restart"))
        throw Error(std::string(option) + " '" + *path + "' is the " + input + " file the run reads; give it another name");
    for (const auto& [writer, pattern] : per_step)
      if (is_frame_file(pattern, *input_path))
        throw Error(std::string(input) + " '" + *input_path + "' has the name of a file that " + writer +
                    " writes each step; give the output another name");
  }
}

// --animation: what check_outputs() does not check (its path is one of the outputs it checks).
void check_animation(const Options& opt) {
  using particles::Error;
#ifndef PARTICLES_HAVE_GIF
  throw Error("--animation: this build has no GIF support (giflib, Debian libgif-dev, was not found when it was configured)");
#endif
  const std::filesystem::path path(opt.animation);
  if (path.extension() != ".gif") throw Error("--animation writes a GIF: give it a FILE.gif name, not " + opt.animation);
}

// How many pictures simulate() takes of a run of `steps` from step `start`: the first, every multiple of
// `every` after it (0: none) and the last.
uint64_t picture_count(uint64_t start, uint64_t steps, uint64_t every) {
  if (steps == 0) return 1;
  const uint64_t end = start + steps;
  uint64_t count = 1;
  if (every) count += end / every - start / every;  // the multiples in (start, end]
  if (!every || end % every) ++count;               // the last step, where it is not one of them
  return count;
}

// The pictures' sizes follow from the box and the frame count, so they are checked before the run: a
// montage larger than PNG takes failed at the end, after all the steps ("libpng failed", exit 1), and
// the g(r), MSD and VTK files due after it were not written.
void check_picture_sizes(const Options& opt, const particles::Model& model, uint64_t start) {
  using particles::Error;
  if (opt.frames.empty()) return;
  const particles::PictureSize frame = particles::frame_size(model);
  const std::string frame_text = std::to_string(frame.width) + " x " + std::to_string(frame.height) + " pixels";
  if (frame.width > particles::kPngMaxSide || frame.height > particles::kPngMaxSide)
    throw Error("--frames: this box's frames would be " + frame_text + ", more than PNG readers take (" +
                std::to_string(particles::kPngMaxSide) + " a side)");
  if (!opt.animation.empty() && (frame.width > 65535 || frame.height > 65535))
    throw Error("--animation: this box's frames would be " + frame_text + ", more than GIF allows (65535 a side)");
  const uint64_t count = picture_count(start, opt.steps, opt.frame_every);
  const uint64_t frame_pixels = frame.width * frame.height;
  uint64_t kept = 0;  // host memory the frames are kept in until the end: RGB for --montage, indexed for --animation
  if (!opt.montage.empty()) {
    const particles::PictureSize m = particles::montage_size(frame, count, opt.montage_columns);
    if (m.width > particles::kPngMaxSide || m.height > particles::kPngMaxSide)
      throw Error("--montage: " + std::to_string(count) + " frames of " + frame_text + " in " +
                  std::to_string(std::min<uint64_t>(opt.montage_columns, count)) + " column(s) would be " +
                  std::to_string(m.width) + " x " + std::to_string(m.height) + " pixels, more than PNG readers take (" +
                  std::to_string(particles::kPngMaxSide) + " a side); set --montage-columns or take fewer frames (--frame-every)");
    kept += 3 * (count * frame_pixels + m.width * m.height);  // the frames, then the montage drawn from them
  }
  if (!opt.animation.empty()) kept += count * frame_pixels;
  // Kept frames past the host's memory ended the run at its last step (std::bad_alloc, or the kernel's
  // OOM killer) and lost every file written at the end: refused here, with the count that fits.
  const uint64_t available = vksort::external::available_host_memory();
  if (available > 0 && kept > available) {
    const std::string which = !opt.montage.empty() && !opt.animation.empty() ? "--montage and --animation"
                              : !opt.montage.empty()                        ? "--montage"
                                                                            : "--animation";
    throw Error(which + " keep all " + std::to_string(count) + " frames of " + frame_text + " in memory until the end: " +
                vksort::io::format_bytes(kept) + ", more than the " + vksort::io::format_bytes(available) +
                " this host has available (MemAvailable); take fewer frames (--frame-every) or a smaller box");
  }
}

// The run's settings of the model that neither a scenario nor a checkpoint fixes: the neighbour search.
void apply_search_options(particles::Model& model, const Options& opt) {
  using namespace particles;
  model.list_iterations = opt.list_iterations;
  model.list_parts = opt.list_parts;
  model.reorder_every = opt.reorder_every;
  model.layout = opt.layout == "lists" ? Layout::lists : Layout::cell_order;
  model.cell_divisions = opt.cell_divisions;
  model.newton = opt.pairs == "once";
  model.neighbours = opt.neighbours == "list" ? Neighbours::list : Neighbours::cells;
  model.skin = opt.skin;
  if (model.neighbours == Neighbours::list && !model.verlet_list())
    throw Error("--neighbours list needs --layout cell-order and --pairs once");
}

// Refuses a run of `n` particles the device cannot hold (particles::device_shortfall) before its state
// is made: --n 200000000 took 90 s of host-side set-up, then failed at its first buffer (exit 1).
// `model_for(k)` is the run's model with k particles; `what` names the count ("--n 200000000"), `most`
// the largest that fits ("--n" or "particles"), found by bisection.
void check_device_fits(const vksort::DeviceInfo& device, uint32_t n,
                       const std::function<particles::Model(uint32_t)>& model_for, const std::string& what,
                       const std::string& most) {
  using namespace particles;
  const std::string why = device_shortfall(model_for(n), n, device);
  if (why.empty()) return;
  auto fits = [&](uint32_t k) {
    try {
      return device_shortfall(model_for(k), k, device).empty();
    } catch (const Error&) {  // a box too small for k particles: no limit of the device's
      return true;
    }
  };
  uint32_t lo = 0, hi = n;  // fits(lo) (none: trivially), !fits(hi)
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  throw Error(what + ": " + why + "; " +
              (lo > 0 ? (most == "--n" ? "at most --n " + std::to_string(lo) + " fits"
                                       : "at most " + std::to_string(lo) + " particles fit")
                      : std::string("no particle count fits this box")) +
              " on " + device.name);
}

Setup setup_run(const Options& opt, const CLI::App& app, const vksort::DeviceInfo& device) {
  using namespace particles;
  Setup r;
  if (!opt.restart.empty()) {
    for (const char* name : kFixedByCheckpoint)
      if (app.count(name)) throw Error(std::string(name) + " is fixed by the checkpoint; leave it out with --restart");
    Checkpoint c = read_checkpoint(opt.restart);
    r.scenario = c.scenario;
    r.model = c.model;
    r.species = c.species;
    r.state = std::move(c.state);
    apply_search_options(r.model, opt);
    const uint32_t n = r.state.size();
    check_device_fits(device, n, [&](uint32_t) { return r.model; },
                      "--restart " + opt.restart + " (" + std::to_string(n) + " particles)", "particles");
  } else {
    if (opt.scenario.empty()) throw Error("--scenario is required (or --restart)");
    r.scenario = opt.scenario;
    const Scenario scenario = parse_scenario(opt.scenario);
    if (opt.n == 0) throw Error("--n must be at least 1");
    if (!opt.box.empty() && opt.box.size() != 3) throw Error("--box takes three lengths: LX,LY,H");
    float box[3] = {opt.box.empty() ? 0.0f : opt.box[0], opt.box.empty() ? 0.0f : opt.box[1],
                    opt.box.empty() ? 0.0f : opt.box[2]};
    r.species = parse_species(opt.species);
    State from_file;
    std::vector<float> file_mass;  // a GSD file's particles/mass, if it has one
    if (!opt.init.empty() && opt.lattice != "random") throw Error("--lattice and --init both set the positions; give one");
    if (!opt.init.empty() && app.count("--n")) throw Error("--n comes from the --init file; leave it out");
    if (opt.lattice == "fcc" && !opt.box.empty() && app.count("--n"))
      throw Error("--n comes from the --box with --lattice fcc (4 particles per lattice cell at density 3); leave it out");
    if (!opt.init.empty()) {  // the file's box unless --box
      float file_box[3];
      from_file = is_gsd(opt.init) ? read_gsd(opt.init, r.species, file_box, &file_mass) : read_xyz(opt.init, r.species, file_box);
      if (opt.box.empty()) std::copy(file_box, file_box + 3, box);
    }
    const uint32_t n = opt.init.empty() ? opt.n : from_file.size();
    // The run's model with k particles: the scenario's box for k unless one is given.
    auto model_for = [&](uint32_t k) {
      Model m = scenario_model(scenario, k, box);
      apply_search_options(m, opt);
      return m;
    };
    r.model = model_for(n);
    Model& model = r.model;
    model.seed = opt.seed;
    model.dt = opt.dt;
    if (opt.gravity >= 0.0f) model.gravity = opt.gravity;
    model.integrator = opt.integrator == "leapfrog" ? Integrator::leapfrog : Integrator::velocity_verlet;
    model.noise = opt.noise == "paper" ? Noise::paper : Noise::counter;
    if (!opt.init.empty()) {
      check_device_fits(device, n, model_for, "--init " + opt.init + " (" + std::to_string(n) + " particles)",
                        "particles");
      try {
        check_gsd_masses(model, r.species, from_file, file_mass);
      } catch (const Error& e) {
        throw Error("--init " + opt.init + ": " + e.what());
      }
      r.state = std::move(from_file);
      r.state.image.clear();  // a new run: displacements count from here
      if (r.state.vel.empty()) {
        thermal_velocities(model, r.state);
      } else {
        paper_starts(model, r.state);
      }
    } else if (opt.lattice == "fcc") {
      Model lattice = model;  // its box, rounded to whole lattice cells, fixes the count
      uint32_t cells[3];
      const uint32_t count = fcc_box(lattice, 3.0, cells);
      check_device_fits(device, count, [&](uint32_t) { return lattice; },
                        "--lattice fcc (" + std::to_string(count) + " particles)", "particles");
      r.state = fcc_state(model, 3.0, scenario_species(scenario));
    } else {
      check_device_fits(device, n, model_for, "--n " + std::to_string(n), "--n");
      r.state = scenario_state(scenario, model, n);
    }
  }
  Model& model = r.model;
  grid_for(model);
  check_model(model);
  try {  // what a file brought is named by its option (a checkpoint's was checked as it was read)
    check_state(model, r.state);
  } catch (const Error& e) {
    throw opt.init.empty() ? e : Error("--init " + opt.init + ": " + e.what());
  }
  return r;
}

int run(const Options& opt, const CLI::App& app) {
  using namespace particles;
  // --- set up: any error here is bad input (exit 2) ---
  if (opt.every == 0) throw Error("--every must be at least 1");
  check_needed_options(opt, app);
  // The device the run will use, for its limits (the same choice gpu::Context makes below).
  const vksort::DeviceListing device = gpu::choose_device({opt.device, opt.validation});
  Setup setup = setup_run(opt, app, device.info);
  Model& model = setup.model;
  // The pair noise tells steps apart by a 32-bit counter (check_state refuses a start beyond it): a run
  // past it would repeat the noise of step 0 on, and end in a checkpoint no run could restart from.
  const uint64_t last_step = 0xFFFFFFFFull, start = setup.state.step;
  if (opt.steps > last_step - start)
    throw Error("--steps " + std::to_string(opt.steps) + " from step " + std::to_string(start) +
                " would run past step " + std::to_string(last_step) +
                ", the last the noise's 32-bit step counter tells apart (at most " + std::to_string(last_step - start) +
                " more steps)");
  if (!opt.animation.empty()) check_animation(opt);
  check_picture_sizes(opt, model, start);
  check_outputs(opt);
  // Created here, before what may still fail (the device, the outputs opened now, the initial forces):
  // other outputs may go into it. Removed again if the run fails before its first frame.
  const CreatedFolders frames_folder(opt.frames);
  remove_temporaries_on_signals();
  Outputs out;
  if (!opt.observables.empty()) out.observables = std::make_unique<ObservablesSeries>(opt.observables);
  if (!opt.gsd.empty()) out.gsd = gsd_trajectory(opt.gsd, model, setup.species);
  if (!opt.xyz.empty()) out.xyz = xyz_trajectory(opt.xyz, model, setup.species);
  if (!opt.rdf.empty()) {
    const double half = std::min({model.lx, model.ly, model.periodic_z ? model.lz : model.lx}) / 2.0;
    out.rdf = std::make_unique<RadialDistribution>(model, opt.rdf_bins,
                                                   opt.rdf_rmax > 0 ? opt.rdf_rmax : std::min(3.0 * model.rc, half));
  }
  out.msd = std::make_unique<MeanSquareDisplacement>(model);
  gpu::Context ctx({opt.device, opt.validation});
  g_running = true;

  // --cells both: the same simulation with each cell build, one after the other in this process; the
  // files come from the last.
  std::vector<std::string> builds = opt.cells == "both" ? std::vector<std::string>{"scatter", "sort"}
                                                        : std::vector<std::string>{opt.cells};
  std::vector<Totals> totals;
  for (const std::string& cells : builds) {
    model.cells = cells == "sort" ? Cells::sort : Cells::scatter;
    totals.push_back(simulate(ctx, opt, setup, model, cells, &cells == &builds.back() ? &out : nullptr));
  }
  const Snapshot& s = totals.back().last;
  if (out.gsd) out.gsd->close();
  if (out.xyz) out.xyz->close();
  if (out.observables) out.observables->close();
  if (!opt.vtk.empty()) write_vtk(opt.vtk, model, s);
  if (out.rdf) write_atomically(opt.rdf, [&](std::ostream& f) { f << out.rdf->csv(); });
  if (!opt.msd.empty()) write_atomically(opt.msd, [&](std::ostream& f) { f << out.msd->csv(); });
  if (totals.size() == 2 && totals[0].timed_steps > 0 && totals[1].timed_steps > 0) {
    const double scatter = totals[0].ms[0] / double(totals[0].timed_steps);
    const double sort = totals[1].ms[0] / double(totals[1].timed_steps);
    const bool same = totals[0].last.pos == totals[1].last.pos && totals[0].last.vel == totals[1].last.vel;
    std::printf("# neighbour search per step: bucket lists (scatter) %.3f ms, sort-based %.3f ms, sort / scatter "
                "= %.2f; final states %s\n",
                scatter, sort, sort / scatter, same ? "bit-identical" : "DIFFERENT");
  }
  if (opt.validation && gpu::validation_message_count() > 0) {
    std::fprintf(stderr, "particles: %llu validation message(s)\n",
                 static_cast<unsigned long long>(gpu::validation_message_count()));
    return 1;
  }
  return 0;
}

// A closed standard stream's descriptor was the next file the run opened: with stdout closed (`>&-`) the
// table went into the trajectory opened first (an XYZ file with the table's lines among its frames).
// Each closed one is pointed at /dev/null (in order: open() takes the lowest free descriptor), so no file
// takes its place; returns false when stdout was closed, which the caller refuses: the table is the
// run's output (`> /dev/null` discards it).
bool open_standard_streams() {
  bool stdout_open = true;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == STDOUT_FILENO) stdout_open = false;
    ::open("/dev/null", O_RDWR);  // fd: the lowest free; nothing to do if it fails
  }
  return stdout_open;
}

// What the app prints on stdout (the table, --help) is output too: a write that failed (a full disk,
// `> /dev/full`, a closed stdout) ended in success, exit 0, the table lost. As in the vksort CLI: exit 1.
int finish_stdout(int status) {
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout;
  if (!failed || status != 0) return status;
  std::fprintf(stderr, "particles: writing standard output failed\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (!open_standard_streams()) {
    std::fprintf(stderr, "particles: standard output is closed: the table goes there (redirect it to /dev/null to "
                         "discard it)\n");
    return 2;
  }
  CLI::App app{"particles: Dissipative Particle Dynamics on the GPU, neighbours from vksort's bucket lists"};
  Options opt;
  // --help shows every option's default (--n UINT=16384) from the Options it fills, so it cannot go stale.
  app.option_defaults()->always_capture_default();
  app.add_option("--scenario", opt.scenario,
                 "phase-separation | rayleigh-taylor | equilibrium (one species, periodic); required unless --restart")
      ->check(CLI::IsMember({"phase-separation", "rayleigh-taylor", "equilibrium"}));
  app.add_option("--n", opt.n, "particles (density 3 in a 2:2:1 box unless --box)")->check(not_negative)->check(CLI::Range(1u, 1u << 28));
  app.add_option("--steps", opt.steps, "time steps")->check(not_negative);
  app.add_option("--every", opt.every, "print a table row every k steps")->check(at_least_one);
  app.add_option("--seed", opt.seed, "seed of the initial state and the pair noise")->check(not_negative);
  app.add_option("--dt", opt.dt, "time step (Groot & Warren: 0.04; smaller is more accurate)")
      ->check(finite_within(1e-6, 1.0));
  // These two say their defaults in words (--gravity's stored -1 is a placeholder). --box is a comma list
  // that refuses an empty item (CLI11's delimiter ran "--box 6,,6,6" as 6,6,6); setup_run() wants three.
  vksort::cli_checks::add_list_option(app, "--box", opt.box, "box lengths LX,LY,H in units of r_c (default: 2:2:1 at density 3)",
                                      finite_positive)
      ->type_name("LX,LY,H");
  app.add_option("--gravity", opt.gravity, "acceleration along -z (default: the scenario's)")
      ->check(finite_non_negative)
      ->default_str("");
  app.add_option("--integrator", opt.integrator, "vv (velocity Verlet) | leapfrog (the paper's leap-frog/Adams-Bashforth)")
      ->check(CLI::IsMember({"vv", "leapfrog"}));
  app.add_option("--noise", opt.noise, "counter (hash of seed, step, pair) | paper (1.000005 (r + sqrt 3)^5)")
      ->check(CLI::IsMember({"counter", "paper"}));
  app.add_option("--cells", opt.cells,
                 "--layout lists: scatter (bucket lists) | sort (sort-based cell build) | both (one run each, compared)")
      ->check(CLI::IsMember({"scatter", "sort", "both"}));
  app.add_option("--frames", opt.frames, "write PNG frames (side and top slices) into this folder");
  app.add_option("--frame-every", opt.frame_every, "a frame every k steps (with --frames; 0: first and last only)")
      ->check(not_negative);
  app.add_option("--gsd", opt.gsd, "write a GSD trajectory (HOOMD-blue's format; frames as --dump-every)");
  app.add_option("--xyz", opt.xyz, "write an extended XYZ trajectory (ASE, OVITO; frames as --dump-every)");
  app.add_option("--vtk", opt.vtk,
                 "write the final state as legacy VTK points, and with --dump-every each frame as "
                 "STEM_<step, 8 digits>.EXT (run.vtk: run_00000100.vtk)");
  app.add_option("--dump-every", opt.dump_every,
                 "a --gsd/--xyz/--vtk frame every k steps, the first and last included (0: the last step only)")
      ->check(not_negative);
  app.add_option("--species", opt.species, "element symbols of species 0,1 in particle files (and --init XYZ)");
  app.add_option("--observables", opt.observables,
                 "write the observables (T, energies, momentum, pressure tensors) as CSV, or JSON when FILE ends in "
                 ".json, a row every --every steps");
  app.add_option("--rdf", opt.rdf, "write g(r) (CSV r,g) averaged over the table rows in the --rdf-window");
  app.add_option("--rdf-bins", opt.rdf_bins, "g(r) bins")->check(not_negative)->check(CLI::Range(1u, 100000u));
  app.add_option("--rdf-rmax", opt.rdf_rmax, "g(r) range (default: 3 r_c or half the smallest periodic length)")
      ->check(finite_positive)
      ->default_str("");
  app.add_option("--rdf-window", opt.rdf_window, "g(r) from the rows of the last k steps (0: the second half of the run)")
      ->check(not_negative);
  app.add_option("--msd", opt.msd,
                 "write the mean-square displacement (unwrapped positions, every --every steps) and D as CSV");
  app.add_option("--checkpoint", opt.checkpoint, "write a checkpoint every --checkpoint-every steps and at the end");
  app.add_option("--checkpoint-every", opt.checkpoint_every, "checkpoint interval (0: at the end only)")->check(not_negative);
  app.add_option("--restart", opt.restart,
                 "continue from a checkpoint, bit for bit (--steps more steps; the model comes from the file)");
  app.add_option("--init", opt.init, "start from the last frame of a GSD or extended XYZ file (its box unless --box)");
  app.add_option("--lattice", opt.lattice, "random positions | fcc (like LAMMPS' lattice fcc at density 3; box rounded to whole cells)")
      ->check(CLI::IsMember({"random", "fcc"}));
  app.add_option("--montage", opt.montage, "also write all frames tiled into this PNG (with --frames)");
  app.add_option("--montage-columns", opt.montage_columns, "frames per row of the montage")->check(not_negative)->check(CLI::Range(1u, 64u));
  app.add_option("--animation", opt.animation,
                 "also write the frames as an animated GIF looping forever (FILE.gif, with --frames)");
  app.add_option("--animation-delay", opt.animation_delay, "time each animation frame shows, in 1/100 s")
      ->check(not_negative)
      ->check(CLI::Range(1u, 65535u));
  app.add_option("--batch", opt.batch, "steps per GPU submission")->check(not_negative)->check(CLI::Range(1u, 4096u));
  app.add_option("--list-iterations", opt.list_iterations,
                 "bucket lists: scatter iterations before vksort's fallback links what is left")
      ->check(not_negative)
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--list-parts", opt.list_parts, "bucket lists: partial-update parts (0: vksort chooses; 1: off)")
      ->check(not_negative);
  app.add_option("--reorder-every", opt.reorder_every,
                 "sort the particles in memory by cell every k steps (0: never; the trajectory is the same)")
      ->check(not_negative);
  app.add_option("--layout", opt.layout,
                 "cell-order (particles sorted by cell every step, neighbours as slot ranges) | lists "
                 "(vksort bucket lists; --cells and --reorder-every apply to it)")
      ->check(CLI::IsMember({"cell-order", "lists"}));
  app.add_option("--cell-divisions", opt.cell_divisions, "cell order: cells of edge r_c / k along x, searched k cells each way")
      ->check(not_negative)
      ->check(CLI::Range(1u, 8u));
  app.add_option("--pairs", opt.pairs,
                 "cell order: once (each pair computed once, F_ji = -F_ij) | both (from both sides); the "
                 "trajectory is the same")
      ->check(CLI::IsMember({"once", "both"}));
  app.add_option("--neighbours", opt.neighbours,
                 "cell order, pairs once: cells (sorted into cell order and walked every step) | list (a Verlet "
                 "list of the partners within r_c + skin, rebuilt when a particle has moved skin / 2); the "
                 "trajectory is the same")
      ->check(CLI::IsMember({"cells", "list"}));
  app.add_option("--skin", opt.skin, "--neighbours list: the list's margin beyond r_c")
      ->check(finite_positive);
  app.add_option("--device", opt.device, "device index or name substring");
  app.add_flag("--validation", opt.validation, "enable VK_LAYER_KHRONOS_validation; any message fails the run");
  if (const std::string empty = vksort::cli_checks::empty_value_option(argc, argv); !empty.empty()) {
    std::fprintf(stderr, "particles: %s\n", empty.c_str());
    return 2;
  }
  vksort::cli_checks::decimal_integer_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? finish_stdout(0) : 2;
  }
  if (const std::string empty = vksort::cli_checks::empty_value_given(app); !empty.empty()) {
    std::fprintf(stderr, "particles: %s\n", empty.c_str());
    return 2;
  }
  try {
    return finish_stdout(run(opt, app));
  } catch (const particles::Error& e) {
    std::fprintf(stderr, "particles: %s\n", e.what());
    return g_running ? 1 : 2;
  } catch (const vksort::Error& e) {
    std::fprintf(stderr, "particles: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "particles: %s\n", e.what());
    return 1;
  }
}
