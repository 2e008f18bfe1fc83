// SPDX-License-Identifier: MIT
// The particle app's physics: the pair noise, momentum conservation, the equation of state at the
// standard parameters, determinism, and the Rayleigh-Taylor instability's growing mixing layer.
// Sizes are chosen for lavapipe (each ctest entry well under 90 s on two cores); the comments give
// the run lengths.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

#include "mixing_layer.hpp"
#include "observables.hpp"
#include "structure.hpp"
#include "test_particles_support.hpp"

using namespace particles;
using particles::test::context;

namespace {
int one_species(const Model&, float, float, float, uint32_t) { return 0; }

// A fully periodic single-species box at density 3, no gravity: conservation holds exactly here.
Model periodic_box(float l) {
  Model m;
  m.lx = m.ly = m.lz = l;
  m.periodic_z = true;
  return m;
}

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<float>& x) {
  Moments r;
  for (float v : x) r.mean += v;
  r.mean /= double(x.size());
  for (float v : x) r.var += (v - r.mean) * (v - r.mean);
  r.var /= double(x.size() - 1);
  return r;
}
double correlation(const std::vector<float>& a, const std::vector<float>& b) {
  const Moments ma = moments(a), mb = moments(b);
  double c = 0;
  for (size_t k = 0; k < a.size(); ++k) c += (a[k] - ma.mean) * (b[k] - mb.mean);
  return c / double(a.size() - 1) / std::sqrt(ma.var * mb.var);
}
}  // namespace

TEST_CASE("noise: Theta_ij == Theta_ji, mean 0, variance 1, uncorrelated across pairs sharing a particle") {
  particles::test::NoValidationMessages quiet;
  const Model m = periodic_box(5.0f);
  Simulation sim(context(), m, random_state(m, 4096, one_species));
  // Pairs (i, i+1) and (i, i+2) share particle i; the same pairs one step later must be fresh numbers.
  const uint32_t count = 4000;
  std::vector<std::pair<uint32_t, uint32_t>> a, a_swapped, b;
  for (uint32_t i = 0; i < count; ++i) {
    a.push_back({i, i + 1});
    a_swapped.push_back({i + 1, i});
    b.push_back({i, i + 2});
  }
  std::vector<float> all;
  std::vector<float> first, second, later;
  for (uint32_t step = 1; step <= 25; ++step) {  // 100k samples
    const std::vector<float> t = sim.noise(a, step), ts = sim.noise(a_swapped, step), tb = sim.noise(b, step);
    const std::vector<float> tn = sim.noise(a, step + 1);
    REQUIRE(std::memcmp(t.data(), ts.data(), t.size() * sizeof(float)) == 0);  // bit-identical
    all.insert(all.end(), t.begin(), t.end());
    first.insert(first.end(), t.begin(), t.end());
    second.insert(second.end(), tb.begin(), tb.end());
    later.insert(later.end(), tn.begin(), tn.end());
  }
  const double n = double(all.size());
  const Moments mo = moments(all);
  // Five standard errors: the mean's is 1/sqrt(n); the variance's sqrt((E theta^4 - 1)/n) = sqrt(0.8/n)
  // for a uniform theta with variance 1.
  CHECK(std::abs(mo.mean) < 5.0 / std::sqrt(n));
  CHECK(std::abs(mo.var - 1.0) < 5.0 * std::sqrt(0.8 / n));
  CHECK(std::abs(correlation(first, second)) < 5.0 / std::sqrt(n));
  CHECK(std::abs(correlation(first, later)) < 5.0 / std::sqrt(n));
  const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
  CHECK(*lo >= -std::sqrt(3.0f));
  CHECK(*hi <= std::sqrt(3.0f));
}

TEST_CASE("noise: the paper's generator is symmetric too") {
  particles::test::NoValidationMessages quiet;
  Model m = periodic_box(5.0f);
  m.noise = Noise::paper;
  Simulation sim(context(), m, random_state(m, 300, one_species));
  sim.advance(3);  // the per-particle streams have moved on
  std::vector<std::pair<uint32_t, uint32_t>> a, s;
  for (uint32_t i = 0; i + 7 < 300; ++i) {
    a.push_back({i, i + 7});
    s.push_back({i + 7, i});
  }
  const std::vector<float> t = sim.noise(a, 3), ts = sim.noise(s, 3);
  CHECK(std::memcmp(t.data(), ts.data(), t.size() * sizeof(float)) == 0);
  CHECK(std::abs(moments(t).var - 1.0) < 0.3);
}

TEST_CASE("momentum: conserved to float round-off over 1000 steps, periodic box, no gravity") {
  particles::test::NoValidationMessages quiet;
  // 6^3 box, 648 particles, 1000 steps: about 10 s on lavapipe.
  Model m = periodic_box(6.0f);
  m.dt = 0.04f;
  SUBCASE("velocity Verlet, counter noise") {}
  SUBCASE("leap-frog, the paper's noise, particles reordered in memory") {
    m.integrator = Integrator::leapfrog;
    m.noise = Noise::paper;  // its per-particle state must travel with the particle
    m.reorder_every = 10;
  }
  m.a[0][1] = m.a[1][0] = 40;  // two species of different mass: unequal pair terms must still cancel
  m.mass[1] = 2.0f;
  Simulation sim(context(), m, random_state(m, 648, [](const Model&, float, float, float, uint32_t i) {
    return int(i % 2);
  }));
  const Observables before = measure(m, sim.snapshot());
  sim.advance(1000);
  const Snapshot s = sim.snapshot();
  const Observables after = measure(m, s);
  // Each of 2 x 1000 half kicks rounds every velocity (|v| ~ 1) to float: a random walk of about
  // sqrt(2000 * 648) * 6e-8 ~ 7e-5 per component. The forces themselves cancel exactly (fixed-point sums).
  // A pair force that did not cancel (say Theta_ij != Theta_ji) would move it by ~1 per step.
  double scale = 0;  // sum |m v|: what the momentum is a small remainder of
  for (uint32_t i = 0; i < s.size(); ++i)
    scale += m.mass[s.pos[4 * i + 3] != 0.0f] * std::hypot(s.vel[4 * i], s.vel[4 * i + 1], s.vel[4 * i + 2]);
  MESSAGE("momentum before " << before.momentum_norm << ", after " << after.momentum_norm << ", sum |m v| " << scale);
  for (int k = 0; k < 3; ++k) CHECK(std::abs(after.momentum[k] - before.momentum[k]) < 1e-3);
  CHECK(after.temperature > 0.8);  // it did move: thermostatted, not frozen
  CHECK(after.temperature < 1.2);
}

TEST_CASE("equilibrium: P 23.6-23.8 and kinetic temperature within 1% of kBT (a = 25, density 3, dt = 0.01, 3000 particles)") {
  particles::test::NoValidationMessages quiet;
  // 10^3 box, 3000 particles at random (zero momentum, T exact at the start); 400 steps to relax the
  // hot start (t = 4; T is back to within 2% by step 300), then 600 steps sampled every 5 (120
  // samples, each T to about 1.5% and P to about 0.08, correlated over ~10 steps): 1000 steps, about
  // 8 s on lavapipe. The margin on T is thin, and longer averaging would not widen it: velocity Verlet's
  // own excess at dt = 0.01 is about 0.8% (runs of 3000 steps, seeds 11 and 12: ten windows of 500
  // steps after the first 500, mean 1.0083, spread 1.000-1.019), and this window of 600 steps scatters
  // by about 0.5% around that. Groot & Warren's equation of state gives P = 23.6-23.7 here;
  // LAMMPS on the same system 23.72 (issue 19).
  Model m = periodic_box(10.0f);
  m.dt = 0.01f;
  m.seed = 11;
  Simulation sim(context(), m, random_state(m, 3000, one_species));
  sim.advance(400, 50);
  double t = 0, p = 0, diagonal[3] = {0, 0, 0};
  int samples = 0;
  RadialDistribution rdf(m, 60, 3.0);
  MeanSquareDisplacement msd(m);
  for (int k = 0; k < 120; ++k) {
    sim.advance(5);
    const Snapshot snap = sim.snapshot();
    const Observables o = measure(m, snap);
    if (k % 10 == 0) rdf.add(snap);
    msd.add(snap);
    t += o.temperature;
    p += o.pressure;
    for (int a = 0; a < 3; ++a) diagonal[a] += o.tensor[a];
    ++samples;
  }
  t /= samples;
  p /= samples;
  for (double& x : diagonal) x /= samples;
  MESSAGE("kinetic temperature " << t << ", pressure " << p << ", Pxx Pyy Pzz " << diagonal[0] << " " << diagonal[1]
                                 << " " << diagonal[2]);
  CHECK(std::abs(t - 1.0) < 0.01);
  CHECK(p > 23.6);
  CHECK(p < 23.8);
  // Isotropic: the tensor's diagonal (the same sums split by axis) agrees with P within its noise.
  for (double x : diagonal) CHECK(std::abs(x - p) < 0.15);
  // g(r): the first peak where LAMMPS has it on this system (1.153 at r = 0.861, issue 19), and 1
  // beyond r = 2 (the normalisation).
  const std::vector<double> g = rdf.values();
  const size_t peak = size_t(std::max_element(g.begin(), g.end()) - g.begin());
  double far = 0;
  for (size_t b = 40; b < 60; ++b) far += g[b] / 20;
  MESSAGE("g(r) peak " << g[peak] << " at r = " << rdf.bin_centre(peak) << ", mean g over r in [2, 3] " << far
                       << "; diffusion coefficient " << msd.diffusion());
  CHECK(std::abs(rdf.bin_centre(peak) - 0.86) < 0.06);  // bins are 0.05 wide
  CHECK(std::abs(g[peak] - 1.153) < 0.03);
  CHECK(std::abs(far - 1.0) < 0.01);
  // Self-diffusion of the unwrapped positions: DPD at a = 25, density 3 diffuses at D ~ 0.3 (the app's
  // runs of this system give 0.32-0.36); a lost image (a jump of L) would add ~L^2 / t to the MSD.
  CHECK(msd.diffusion() > 0.2);
  CHECK(msd.diffusion() < 0.5);
}

namespace {
// Runs `initial` with every pair from both sides (on the tests' context) and with each pair once (on
// `newton_context`), `steps` steps in submissions of `batch`, and checks that the two end in the same
// bits (F_ji = -F_ij exactly, fixed-point sums in any order) and that the particles moved.
void check_once_equals_both(Model m, const State& initial, uint32_t steps, uint32_t batch, gpu::Context& newton_context) {
  std::vector<float> pos[2], vel[2];
  for (int once = 0; once < 2; ++once) {
    m.newton = once == 1;
    Simulation sim(m.newton ? newton_context : context(), m, initial);
    sim.advance(steps, batch);
    const Snapshot s = sim.snapshot();
    pos[once] = s.pos;
    vel[once] = s.vel;
  }
  CHECK(pos[0] != initial.pos);
  CHECK(std::memcmp(pos[0].data(), pos[1].data(), pos[0].size() * 4) == 0);
  CHECK(std::memcmp(vel[0].data(), vel[1].data(), vel[0].size() * 4) == 0);
}
}  // namespace

TEST_CASE("determinism: the same seed gives bit-identical states, whatever order the lists and particles are in") {
  particles::test::NoValidationMessages quiet;
  Model m = periodic_box(6.0f);
  m.a[0][1] = m.a[1][0] = 40;
  const State initial = random_state(m, 648, [](const Model&, float, float, float, uint32_t i) { return int(i % 3 == 0); });
  // Lists in another order (scatter: whichever store won; sort: ascending), particles reordered in
  // memory at other steps (or never), and the cell-order walk over slot ranges on cells of r_c and
  // r_c / 4 along x, each pair computed once (atomics landing in any order) or from both sides, must
  // give the same sums, hence the same trajectory.
  const struct {
    Layout layout;
    Cells cells;
    uint32_t reorder_every, divisions;
    bool newton;
  } runs[] = {{Layout::lists, Cells::scatter, 0, 1, false},
              {Layout::lists, Cells::sort, 20, 1, false},
              {Layout::lists, Cells::scatter, 7, 1, false},
              {Layout::cell_order, Cells::scatter, 0, 1, true},
              {Layout::cell_order, Cells::scatter, 0, 4, true},
              {Layout::cell_order, Cells::scatter, 0, 4, false}};
  constexpr int kRuns = int(std::size(runs));
  std::vector<float> pos[kRuns], vel[kRuns];
  for (int run = 0; run < kRuns; ++run) {
    m.layout = runs[run].layout;
    m.cells = runs[run].cells;
    m.reorder_every = runs[run].reorder_every;
    m.cell_divisions = runs[run].divisions;
    m.newton = runs[run].newton;
    Simulation sim(context(), m, initial);
    sim.advance(100, 16);
    const Snapshot s = sim.snapshot();
    pos[run] = s.pos;
    vel[run] = s.vel;
  }
  CHECK(pos[0] != initial.pos);  // it moved
  for (int run = 1; run < kRuns; ++run) {
    CAPTURE(run);
    CHECK(std::memcmp(pos[0].data(), pos[run].data(), pos[0].size() * 4) == 0);
    CHECK(std::memcmp(vel[0].data(), vel[run].data(), vel[0].size() * 4) == 0);
  }
}

TEST_CASE("determinism: each pair computed once (F_ji = -F_ij, atomics in any order) gives the same bits as both sides") {
  particles::test::NoValidationMessages quiet;
  // The sums by 64-bit atomics where the device has them (lavapipe does), else by pairs of 32-bit ones:
  // both kernels, the second on a device created without 64-bit atomics.
  gpu::Context& with64 = context();
  std::unique_ptr<gpu::Context> without64 = particles::test::make_context([](gpu::ContextOptions& o) { o.atomic64 = false; });
  REQUIRE_FALSE(without64->atomic64());
  // Two species (unlike pairs repel harder, the heavy one twice the mass), periodic with the counter
  // noise and between walls with the paper's, on cells of r_c and r_c / 4 along x.
  for (const bool walls : {false, true}) {
    for (const uint32_t divisions : {1u, 4u}) {
      for (gpu::Context* newton_context : {&with64, without64.get()}) {
        CAPTURE(walls);
        CAPTURE(divisions);
        CAPTURE(newton_context->atomic64());
        Model m = periodic_box(6.0f);
        m.periodic_z = !walls;
        m.cell_divisions = divisions;
        m.mass[1] = 2.0f;
        m.a[0][1] = m.a[1][0] = 40;
        m.noise = walls ? Noise::paper : Noise::counter;
        const State initial = random_state(m, 648, [](const Model&, float, float, float, uint32_t i) { return int(i % 3 == 0); });
        check_once_equals_both(m, initial, 60, 16, *newton_context);  // 60 steps, most by the Newton variant
      }
    }
  }
}

TEST_CASE("determinism: each pair once in a dense cluster (more neighbours than a walk pass holds) gives the same bits as both sides") {
  particles::test::NoValidationMessages quiet;
  // 400 particles in a cube of 0.9: ~200 neighbours within r_c each, so the force kernel walks the
  // cells in several passes of 64 (and the Newton variant's forward half in at least two).
  Model m;
  m.lx = m.ly = m.lz = 4.0f;
  m.periodic_z = true;
  m.dt = 0.001f;
  State initial = random_state(m, 400, [](const Model&, float, float, float, uint32_t i) { return int(i % 2); });
  for (uint32_t i = 0; i < initial.size(); ++i)
    for (int k = 0; k < 3; ++k) initial.pos[4 * i + k] = 1.05f + 0.9f * float(unit_random(7, k, i));
  check_once_equals_both(m, initial, 5, 5, context());
}

TEST_CASE("Rayleigh-Taylor: the mixing layer of a flat or seeded interface is as thick as the interface") {
  Model m;
  m.lx = 16, m.ly = 3, m.lz = 12;
  // Particles on a fine grid, heavy above the interface: flat at z = 6, then a cosine of amplitude 2.
  State flat, wavy;
  for (float x = 0.05f; x < m.lx; x += 0.1f)
    for (float z = 0.05f; z < m.lz; z += 0.1f) {
      const float wave = 6.0f + 2.0f * std::cos(2.0f * float(M_PI) * x / m.lx);
      flat.pos.insert(flat.pos.end(), {x, 1.5f, z, z > 6.0f ? 1.0f : 0.0f});
      wavy.pos.insert(wavy.pos.end(), {x, 1.5f, z, z > wave ? 1.0f : 0.0f});
    }
  const MixingLayer f = mixing_layer(m, flat.pos), w = mixing_layer(m, wavy.pos);
  CHECK(f.thickness() == 0.0);  // every slab is pure: no layer at all
  // The cosine spans z in [4, 8]; slabs where 5% to 95% of the width is heavy: 2 (1 - cos 0.95 pi)
  // ... 2 (1 - cos 0.05 pi), about 3.95 of the 4, in slabs of 0.5.
  CHECK(w.bottom == doctest::Approx(4.0));
  CHECK(w.top == doctest::Approx(8.0));
  REQUIRE(w.heavy_fraction.size() == 24);
  CHECK(w.heavy_fraction.front() == 0.0);
  CHECK(w.heavy_fraction.back() == 1.0);
}

TEST_CASE("Rayleigh-Taylor: under gravity the seeded interface grows into fingers (the mixing layer grows); without, it does not") {
  particles::test::NoValidationMessages quiet;
  // 16 x 3 x 12 at density 3: 1728 particles, 600 steps each with and without gravity: about 20 s on
  // lavapipe. The seeded mode (wavelength 8) has sqrt(A g k) ~ 0.33 per unit time, t = 24 here.
  const float box[3] = {16, 3, 12};
  const uint32_t n = 1728;
  double thickness[2][3] = {};  // [gravity off, on][step 0, 300, 600]
  double sinking[2] = {};       // mean height heavy - light, end minus start
  for (int on = 0; on < 2; ++on) {
    Model m = scenario_model(Scenario::rayleigh_taylor, n, box);
    if (!on) m.gravity = 0;
    Simulation sim(context(), m, scenario_state(Scenario::rayleigh_taylor, m, n));
    const Snapshot start = sim.snapshot();
    thickness[on][0] = mixing_layer(m, start.pos).thickness();
    sim.advance(300, 60);
    thickness[on][1] = mixing_layer(m, sim.snapshot().pos).thickness();
    sim.advance(300, 60);
    const Snapshot end = sim.snapshot();
    thickness[on][2] = mixing_layer(m, end.pos).thickness();
    const Observables a = measure(m, start), b = measure(m, end);
    sinking[on] = (b.mean_z[1] - b.mean_z[0]) - (a.mean_z[1] - a.mean_z[0]);
    MESSAGE("gravity " << m.gravity << ": mixing layer " << thickness[on][0] << " -> " << thickness[on][1] << " -> "
                       << thickness[on][2] << ", heavy - light height changed by " << sinking[on]);
  }
  CHECK(thickness[1][0] <= 2.0);  // the seeded cosine: amplitude 0.48
  CHECK(thickness[1][1] > thickness[1][0]);
  CHECK(thickness[1][2] > thickness[1][1] + 2.0);
  CHECK(thickness[1][2] > 6.0);  // half the box height
  CHECK(sinking[1] < -2.0);      // the heavy fluid went down
  // Immiscible fluids without gravity: the interface stays sharp; the growth above is the instability.
  CHECK(thickness[0][2] < 3.0);
  CHECK(std::abs(sinking[0]) < 1.0);
}

TEST_CASE("Verlet list: the same bits as the every-step cell walk, rebuilt often or seldom, restarted between builds") {
  particles::test::NoValidationMessages quiet;
  // Each case runs 300 steps three ways: the cell walk every step; the list in one advance() (one
  // submission: the GPU alone decides when to rebuild); the list stopped at step 137, restarted from
  // that state (a new Simulation builds a list at a step the continuous run did not) and run on.
  // Two species, unlike pairs repel harder, the heavy one twice the mass.
  const struct {
    bool walls;
    float skin, dt;
    uint64_t min_builds, max_builds;  // rebuilds the continuous list run must have made
  } cases[] = {
      {false, 0.3f, 0.01f, 10, 200},  // rebuilt every few steps: many builds, some steps between
      {true, 0.3f, 0.01f, 10, 200},   // the same between walls, with the paper's noise
      {false, 1.0f, 0.005f, 1, 30},   // a large skin at a small dt: about 20 steps on one list
  };
  for (const auto& c : cases) {
    CAPTURE(c.walls);
    CAPTURE(c.skin);
    Model m = periodic_box(6.0f);
    m.periodic_z = !c.walls;
    m.dt = c.dt;
    m.skin = c.skin;
    m.mass[1] = 2.0f;
    m.a[0][1] = m.a[1][0] = 40;
    m.noise = c.walls ? Noise::paper : Noise::counter;
    const State initial = random_state(m, 648, [](const Model&, float, float, float, uint32_t i) { return int(i % 3 == 0); });
    Snapshot cells, list, restarted;
    {
      m.neighbours = Neighbours::cells;
      Simulation sim(context(), m, initial);
      sim.advance(300, 300);
      cells = sim.snapshot();
    }
    m.neighbours = Neighbours::list;
    {
      Simulation sim(context(), m, initial);
      sim.advance(300, 300);
      list = sim.snapshot();
      CHECK(sim.times().list_builds >= c.min_builds);
      CHECK(sim.times().list_builds <= c.max_builds);
      MESSAGE("list rebuilt on " << sim.times().list_builds << " of 300 steps");
    }
    {
      Simulation first(context(), m, initial);
      first.advance(137, 300);
      const Snapshot half = first.snapshot();
      State s;
      s.pos = half.pos, s.vel = half.vel, s.vtilde = half.vtilde, s.image = half.image, s.step = half.step;
      Simulation rest(context(), m, s);
      rest.advance(163, 300);
      restarted = rest.snapshot();
    }
    CHECK(cells.pos != initial.pos);  // it moved
    for (const Snapshot* other : {&list, &restarted}) {
      CHECK(std::memcmp(cells.pos.data(), other->pos.data(), cells.pos.size() * 4) == 0);
      CHECK(std::memcmp(cells.vel.data(), other->vel.data(), cells.vel.size() * 4) == 0);
      CHECK(std::memcmp(cells.force.data(), other->force.data(), cells.force.size() * 4) == 0);
      CHECK(cells.image == other->image);
    }
  }
}
