// SPDX-License-Identifier: MIT
// particles — a Dissipative Particle Dynamics simulator on the GPU whose neighbour search runs on
// vksort's bucket lists (seed 002, section 4). See README.md, "Particle app".
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <vksort/error.hpp>

#include "gpu_context.hpp"
#include "mixing_layer.hpp"
#include "model.hpp"
#include "observables.hpp"
#include "output_png.hpp"
#include "output_text.hpp"
#include "simulation.hpp"

namespace {

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
  std::string montage;
  uint32_t montage_columns = 3;
  std::string xyz, vtk;
  uint32_t batch = 32;
  uint32_t list_iterations = 12;
  uint32_t list_parts = 1;
  uint32_t reorder_every = 0;
  std::string layout = "cell-order";
  uint32_t cell_divisions = 4;
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
  std::printf("%8llu%9.4f%12.3e%11.0f%8.2f%s%s%s\n", static_cast<unsigned long long>(sim.step()), o.temperature,
              o.momentum_norm, o.pairs, o.mean_neighbours, ms, dz, mix);
  std::fflush(stdout);
}

// Totals of one simulation run (GPU milliseconds per phase over the timed steps).
struct Totals {
  double ms[3] = {0, 0, 0};  // neighbours, forces, integration
  uint64_t timed_steps = 0;
  double wall_s = 0;
  double late_t = 0, late_p = 0;  // sums of T and P over the rows after a third of the run
  uint64_t late_rows = 0;
  particles::Snapshot last;
};

bool g_running = false;  // past set-up: failures are run-time failures (exit 1), not bad input (exit 2)

Totals simulate(particles::gpu::Context& ctx, const Options& opt, const particles::Model& model,
                const particles::State& state, const std::string& cells) {
  using namespace particles;
  const Grid grid = grid_for(model);
  Simulation sim(ctx, model, state);
  const std::string search = model.layout == Layout::cell_order ? "particles in cell order"
                                                                 : cells + " cell lists";
  std::printf("# %s: %u particles, box %.3g x %.3g x %.3g (%s z), %u x %u x %u cells, dt %.3g, %s, %s noise, "
              "%s, seed %u\n# device: %s\n",
              opt.scenario.c_str(), sim.size(), model.lx, model.ly, model.lz, model.periodic_z ? "periodic" : "walls in",
              grid.nx, grid.ny, grid.nz, model.dt, opt.integrator.c_str(), opt.noise.c_str(), search.c_str(),
              opt.seed, ctx.name().c_str());
  const bool mixing = opt.scenario == "rayleigh-taylor";
  std::printf("#   step        T     |P|total      pairs   neigh  ms/step: neighbours   forces  integration   zH-zL%s\n",
              mixing ? "   mixing" : "");

  std::vector<Image> pictures;  // kept for --montage
  auto frame = [&](const Snapshot& s) {
    char name[64];
    std::snprintf(name, sizeof name, "frame_%08llu.png", static_cast<unsigned long long>(s.step));
    Image img = render_views(model, s.pos, double(s.step) * model.dt, s.step);
    write_png((std::filesystem::path(opt.frames) / name).string(), img);
    if (!opt.montage.empty()) pictures.push_back(std::move(img));
  };
  Totals totals;
  Snapshot& s = totals.last;
  s = sim.snapshot();
  print_row(sim, measure(model, s), sim.times(), s, mixing);
  if (!opt.frames.empty()) frame(s);

  const auto wall0 = std::chrono::steady_clock::now();
  while (sim.step() < opt.steps) {
    uint64_t next = std::min(opt.steps, (sim.step() / opt.every + 1) * opt.every);
    if (opt.frame_every && !opt.frames.empty())
      next = std::min(next, (sim.step() / opt.frame_every + 1) * opt.frame_every);
    while (sim.step() < next) {  // in batches, so the progress bar moves
      sim.advance(std::min<uint64_t>(opt.batch, next - sim.step()), opt.batch);
      progress(sim.step(), opt.steps);
    }
    const bool row = sim.step() % opt.every == 0 || sim.step() == opt.steps;
    const bool pic = !opt.frames.empty() && opt.frame_every && sim.step() % opt.frame_every == 0;
    if (!row && !pic) continue;
    s = sim.snapshot();
    if (row) {
      const Observables o = measure(model, s);
      if (sim.step() > opt.steps / 3)  // past the start's transient: the equilibrium averages
        totals.late_t += o.temperature, totals.late_p += o.pressure, ++totals.late_rows;
      const StepTimes& t = sim.times();
      totals.ms[0] += t.neighbours_ms, totals.ms[1] += t.forces_ms, totals.ms[2] += t.integration_ms;
      totals.timed_steps += t.timed ? t.steps : 0;
      print_row(sim, o, t, s, mixing);
      sim.reset_times();
    }
    if (pic) frame(s);
  }
  totals.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!opt.montage.empty()) write_png(opt.montage, montage(pictures, opt.montage_columns));
  if (totals.late_rows > 0)
    std::printf("# mean over steps > %llu: T %.4f, P %.4f (conservative virial pressure), %llu rows\n",
                static_cast<unsigned long long>(opt.steps / 3), totals.late_t / double(totals.late_rows),
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
  return totals;
}

int run(const Options& opt) {
  using namespace particles;
  // --- set up: any error here is bad input (exit 2) ---
  const Scenario scenario = parse_scenario(opt.scenario);
  if (opt.n == 0) throw Error("--n must be at least 1");
  if (opt.every == 0) throw Error("--every must be at least 1");
  if (!opt.box.empty() && opt.box.size() != 3) throw Error("--box takes three lengths: LX,LY,H");
  const float box[3] = {opt.box.empty() ? 0.0f : opt.box[0], opt.box.empty() ? 0.0f : opt.box[1],
                        opt.box.empty() ? 0.0f : opt.box[2]};
  Model model = scenario_model(scenario, opt.n, box);
  model.seed = opt.seed;
  model.dt = opt.dt;
  if (opt.gravity >= 0.0f) model.gravity = opt.gravity;
  model.integrator = opt.integrator == "leapfrog" ? Integrator::leapfrog : Integrator::velocity_verlet;
  model.noise = opt.noise == "paper" ? Noise::paper : Noise::counter;
  model.list_iterations = opt.list_iterations;
  model.list_parts = opt.list_parts;
  model.reorder_every = opt.reorder_every;
  model.layout = opt.layout == "lists" ? Layout::lists : Layout::cell_order;
  model.cell_divisions = opt.cell_divisions;
  const State state = scenario_state(scenario, model, opt.n);
  grid_for(model);
  check_inside(model, state);
  if (!opt.montage.empty() && opt.frames.empty()) throw Error("--montage needs --frames");
  if (!opt.frames.empty()) std::filesystem::create_directories(opt.frames);
  gpu::Context ctx({opt.device, opt.validation});
  g_running = true;

  // --cells both: the same simulation with each cell build, one after the other in this process.
  std::vector<std::string> builds = opt.cells == "both" ? std::vector<std::string>{"scatter", "sort"}
                                                        : std::vector<std::string>{opt.cells};
  std::vector<Totals> totals;
  for (const std::string& cells : builds) {
    model.cells = cells == "sort" ? Cells::sort : Cells::scatter;
    totals.push_back(simulate(ctx, opt, model, state, cells));
  }
  const Snapshot& s = totals.back().last;
  if (!opt.xyz.empty()) write_xyz(opt.xyz, model, s);
  if (!opt.vtk.empty()) write_vtk(opt.vtk, model, s);
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"particles: Dissipative Particle Dynamics on the GPU, neighbours from vksort's bucket lists"};
  Options opt;
  // --help shows every option's default (--n UINT=16384) from the Options it fills, so it cannot go stale.
  app.option_defaults()->always_capture_default();
  app.add_option("--scenario", opt.scenario, "phase-separation | rayleigh-taylor | equilibrium (one species, periodic)")
      ->required()
      ->check(CLI::IsMember({"phase-separation", "rayleigh-taylor", "equilibrium"}));
  app.add_option("--n", opt.n, "particles (density 3 in a 2:2:1 box unless --box)")->check(CLI::Range(1u, 1u << 28));
  app.add_option("--steps", opt.steps, "time steps");
  app.add_option("--every", opt.every, "print a table row every k steps")->check(CLI::PositiveNumber);
  app.add_option("--seed", opt.seed, "seed of the initial state and the pair noise");
  app.add_option("--dt", opt.dt, "time step (Groot & Warren: 0.04; smaller is more accurate)")
      ->check(CLI::Range(1e-6f, 1.0f));
  // These two say their defaults in words: their stored defaults (empty, -1) are placeholders.
  app.add_option("--box", opt.box, "box lengths LX,LY,H in units of r_c (default: 2:2:1 at density 3)")
      ->delimiter(',')
      ->expected(3)
      ->default_str("");
  app.add_option("--gravity", opt.gravity, "acceleration along -z (default: the scenario's)")
      ->check(CLI::NonNegativeNumber)
      ->default_str("");
  app.add_option("--integrator", opt.integrator, "vv (velocity Verlet) | leapfrog (the paper's leap-frog/Adams-Bashforth)")
      ->check(CLI::IsMember({"vv", "leapfrog"}));
  app.add_option("--noise", opt.noise, "counter (hash of seed, step, pair) | paper (1.000005 (r + sqrt 3)^5)")
      ->check(CLI::IsMember({"counter", "paper"}));
  app.add_option("--cells", opt.cells,
                 "scatter (bucket lists) | sort (sort-based cell build) | both (one run each, compared)")
      ->check(CLI::IsMember({"scatter", "sort", "both"}));
  app.add_option("--frames", opt.frames, "write PNG frames (side and top slices) into this folder");
  app.add_option("--frame-every", opt.frame_every, "a frame every k steps (with --frames; 0: first and last only)");
  app.add_option("--montage", opt.montage, "also write all frames tiled into this PNG (with --frames)");
  app.add_option("--montage-columns", opt.montage_columns, "frames per row of the montage")->check(CLI::Range(1u, 64u));
  app.add_option("--xyz", opt.xyz, "write the final state as extended XYZ");
  app.add_option("--vtk", opt.vtk, "write the final state as legacy VTK points");
  app.add_option("--batch", opt.batch, "steps per GPU submission")->check(CLI::Range(1u, 4096u));
  app.add_option("--list-iterations", opt.list_iterations,
                 "bucket lists: scatter iterations before vksort's fallback links what is left")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--list-parts", opt.list_parts, "bucket lists: partial-update parts (0: vksort chooses; 1: off)");
  app.add_option("--reorder-every", opt.reorder_every,
                 "sort the particles in memory by cell every k steps (0: never; the trajectory is the same)");
  app.add_option("--layout", opt.layout,
                 "cell-order (particles sorted by cell every step, neighbours as slot ranges) | lists "
                 "(vksort bucket lists; --cells and --reorder-every apply to it)")
      ->check(CLI::IsMember({"cell-order", "lists"}));
  app.add_option("--cell-divisions", opt.cell_divisions, "cell order: cells of edge r_c / k along x, searched k cells each way")
      ->check(CLI::Range(1u, 8u));
  app.add_option("--device", opt.device, "device index or name substring");
  app.add_flag("--validation", opt.validation, "enable VK_LAYER_KHRONOS_validation; any message fails the run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (opt.frame_every == 0) opt.frame_every = std::max<uint64_t>(opt.steps, 1);
  try {
    return run(opt);
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
