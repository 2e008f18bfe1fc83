// SPDX-License-Identifier: MIT
#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "initial_state.hpp"

namespace particles {

namespace {
std::string num(double x, int digits = 6) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

// `edge_name` says what the edge is ("r_c", "r_c + skin"): the messages name it with its value.
uint32_t cells_along(float length, float edge, const std::string& edge_name, const char* axis, bool periodic) {
  if (!(length > 0.0f) || !(edge > 0.0f)) throw Error(std::string("box ") + axis + " length and r_c must be positive");
  const double count = std::floor(double(length) / double(edge));
  const std::string named = edge_name + " = " + num(edge);
  const std::string three = edge_name.find(' ') == std::string::npos ? "3 " + edge_name : "3 (" + edge_name + ")";
  if (periodic && count < 3) {
    // A length that falls short of 3 edges only by float rounding (4.2 < 3 x 1.4f) would read
    // "box y = 4.2 ... length >= 4.2": then both are printed to float precision.
    std::string have = num(length), need = num(3.0 * edge);
    if (have == need) have = num(length, 9), need = num(3.0 * edge, 9);
    throw Error(std::string("box ") + axis + " = " + have + " holds " + std::to_string(int(count)) +
                " cell(s) of edge >= " + named + " along a periodic axis; the 27-cell neighbour search needs at least 3 "
                "(length >= " + three + " = " + need + ")");
  }
  if (count < 1) throw Error(std::string("box ") + axis + " = " + num(length) + " is shorter than " + named);
  if (count > 65536) throw Error(std::string("box ") + axis + " has more than 65536 cells");
  return uint32_t(count);
}
}  // namespace

float list_move_limit(const Model& m) {
  if (!(m.skin > 0.0f)) throw Error("the neighbour list's skin must be positive");
  // A rebuild is due when a particle moved more than skin / 2, less a margin for the rounding of
  // the separations (a few ulps of the box's coordinates), so no pair within r_c is missed.
  const float largest = std::max({m.lx, m.ly, m.lz});
  const float half = 0.5f * m.skin - 4e-6f * largest;
  if (!(half > 0.0f))
    throw Error("the neighbour list's skin " + num(m.skin) + " is too small for the box's rounding: it must exceed " +
                num(8e-6 * largest) + " (8e-6 times the longest box side)");
  return half;
}

Grid grid_for(const Model& m) {
  // Checked here, before the run: the step parameters (simulation.cpp) use it too.
  if (m.verlet_list()) list_move_limit(m);
  // The Verlet list's build searches r_c + skin; so do the steps that walk the cells (which are the
  // build's).
  const float edge = m.verlet_list() ? m.rc + m.skin : m.rc;
  const std::string name = m.verlet_list() ? "r_c + skin" : "r_c";
  Grid g{cells_along(m.lx, edge, name, "x", true), cells_along(m.ly, edge, name, "y", true),
         cells_along(m.lz, edge, name, "z", m.periodic_z)};
  if (m.layout == Layout::cell_order) {
    if (m.cell_divisions < 1 || m.cell_divisions > 8) throw Error("cell divisions must be 1 to 8");
    // Only x is divided. With lx >= 3 r_c checked above, x holds >= 3 d cells >= 2 d + 1: the
    // search (d cells each way along x) still visits every cell once.
    g.nx = cells_along(m.lx, edge / float(m.cell_divisions), name + " over the cell divisions", "x", true);
    g.reach = m.cell_divisions;
  }
  if (uint64_t(g.nx) * g.ny * g.nz >= (1ull << 31)) throw Error("too many cells (2^31 or more)");
  return g;
}

void check_model(const Model& m) {
  auto need = [](bool ok, const std::string& name, float x, const char* what) {
    if (!ok) throw Error(name + " = " + num(x) + " is not " + what);
  };
  auto positive = [&](const std::string& name, float x) { need(std::isfinite(x) && x > 0, name, x, "finite and positive"); };
  auto non_negative = [&](const std::string& name, float x) {
    need(std::isfinite(x) && x >= 0, name, x, "finite and non-negative");
  };
  positive("box x", m.lx), positive("box y", m.ly), positive("box z", m.lz), positive("r_c", m.rc);
  positive("dt", m.dt), non_negative("kBT", m.kbt), non_negative("gravity", m.gravity);
  auto element = [](const char* array, int k, int l) {  // "mass[1]", "a[0][1]"
    char name[32];
    std::snprintf(name, sizeof name, l < 0 ? "%s[%d]" : "%s[%d][%d]", array, k, l);
    return std::string(name);
  };
  for (int k = 0; k < 2; ++k) {
    positive(element("mass", k, -1), m.mass[k]);
    for (int l = 0; l < 2; ++l) {
      need(std::isfinite(m.a[k][l]), element("a", k, l), m.a[k][l], "finite");
      non_negative(element("gamma", k, l), m.gamma[k][l]);
      if (m.a[k][l] != m.a[l][k] || m.gamma[k][l] != m.gamma[l][k])
        throw Error("pair parameters must be symmetric (a_kl = a_lk, gamma_kl = gamma_lk)");
    }
  }
  if (m.integrator != Integrator::velocity_verlet && m.integrator != Integrator::leapfrog)
    throw Error("integrator " + std::to_string(int(m.integrator)) + " is neither velocity Verlet (0) nor leapfrog (1)");
  if (m.noise != Noise::counter && m.noise != Noise::paper)
    throw Error("noise " + std::to_string(int(m.noise)) + " is neither counter (0) nor paper (1)");
}

void check_file_box(const float box[3]) {
  for (int k = 0; k < 3; ++k)
    if (!(std::isfinite(box[k]) && box[k] > 0.0f))
      throw Error("the box lengths must be positive and finite (box " + num(box[0]) + " x " + num(box[1]) + " x " +
                  num(box[2]) + ")");
}

void check_state(const Model& m, const State& s) {
  const size_t n4 = 4 * size_t(s.size());
  if (n4 == 0) throw Error("no particles");
  if (s.vel.size() != n4) throw Error("positions and velocities differ in count");
  if (!s.vtilde.empty() && s.vtilde.size() != n4) throw Error("positions and dissipative velocities differ in count");
  if (!s.image.empty() && s.image.size() != n4) throw Error("positions and periodic images differ in count");
  if (s.step > 0xFFFFFFFFull) throw Error("step " + std::to_string(s.step) + " is beyond the noise's 32-bit step counter");
  const float l[3] = {m.lx, m.ly, m.lz};
  for (uint32_t i = 0; i < s.size(); ++i) {
    auto particle = [&] { return "particle " + std::to_string(i); };
    for (int k = 0; k < 3; ++k) {
      const float x = s.pos[4 * i + k];
      if (!(x >= 0.0f && x <= l[k]))
        throw Error(particle() + " is outside the box: " + "xyz"[k] + " = " + num(x) + " not in [0, " + num(l[k]) + "]");
    }
    const float sp = s.pos[4 * i + 3];
    if (sp != 0.0f && sp != 1.0f) throw Error(particle() + " has species " + num(sp));
    // All four: w is the paper generator's state (vel) or unused (vtilde), finite either way.
    for (int k = 0; k < 4; ++k) {
      if (!std::isfinite(s.vel[4 * i + k]))
        throw Error(particle() + " has a velocity that is not finite: " + "xyzw"[k] + " = " + num(s.vel[4 * i + k]));
      if (!s.vtilde.empty() && !std::isfinite(s.vtilde[4 * i + k]))
        throw Error(particle() + " has a dissipative velocity that is not finite: " + "xyzw"[k] + " = " +
                    num(s.vtilde[4 * i + k]));
    }
  }
}

uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

double unit_random(uint32_t seed, uint32_t stream, uint32_t index) {
  const uint32_t h = mix32(mix32(mix32(seed ^ 0x2545f491u) ^ stream) ^ index);
  return (double(h) + 0.5) / 4294967296.0;
}

State random_state(const Model& m, uint32_t n, SpeciesOf species_of) {
  State s;
  s.pos.resize(4 * size_t(n));
  const float l[3] = {m.lx, m.ly, m.lz};
  for (uint32_t i = 0; i < n; ++i) {
    float x[3];
    for (int k = 0; k < 3; ++k) x[k] = std::min(float(unit_random(m.seed, k, i) * l[k]), l[k]);
    for (int k = 0; k < 3; ++k) s.pos[4 * i + k] = x[k];
    s.pos[4 * i + 3] = float(species_of(m, x[0], x[1], x[2], i));
  }
  thermal_velocities(m, s);
  return s;
}

Scenario parse_scenario(const std::string& name) {
  if (name == "phase-separation") return Scenario::phase_separation;
  if (name == "rayleigh-taylor") return Scenario::rayleigh_taylor;
  if (name == "equilibrium") return Scenario::equilibrium;
  throw Error("unknown scenario '" + name + "' (phase-separation, rayleigh-taylor, equilibrium)");
}

Model scenario_model(Scenario s, uint32_t n, const float box[3]) {
  Model m;
  if (box[0] > 0) {
    m.lx = box[0];
    m.ly = box[1];
    m.lz = box[2];
  } else if (s == Scenario::rayleigh_taylor) {  // density 3 in a slab 3 r_c deep, Lx = 1.5 H: fingers in x-z
    m.ly = 3.0f * m.rc;
    m.lz = float(std::sqrt(double(n) / 3.0 / m.ly / 1.5));
    m.lx = 1.5f * m.lz;
  } else {  // density 3 in a 2:2:1 box (Lx = Ly = 2h), like the paper's flat boxes
    const double h = std::cbrt(double(n) / 3.0 / 4.0);
    m.lx = m.ly = float(2 * h);
    m.lz = float(h);
  }
  switch (s) {
    case Scenario::phase_separation:  // immiscible: unlike pairs repel harder
      m.a[0][1] = m.a[1][0] = 40;
      break;
    case Scenario::rayleigh_taylor:
      // Heavy (twice the mass: Atwood number 1/3) above light under gravity. Immiscible (a_HL = 50,
      // like the phase-separation runs' strong repulsion) so the fluids stay apart and the interface
      // deforms into fingers instead of interdiffusing; gravity strong enough that the seeded mode
      // (wavelength Lx / 2) grows within a few hundred steps, sqrt(A g k) ~ 0.3 per unit time at
      // the default 6000 particles (g = 1 also works but sloshes: T near 3 in the first 100 steps).
      m.mass[1] = 2.0f;
      m.a[0][1] = m.a[1][0] = 50;
      m.gravity = 0.5f;
      break;
    case Scenario::equilibrium:  // one species, fully periodic: the equation-of-state check
      m.periodic_z = true;
      break;
  }
  return m;
}

float rayleigh_taylor_interface(const Model& m, float x) {
  const double amplitude = 0.04 * m.lz, waves = 2;  // two wavelengths across the box
  return float(0.5 * m.lz + amplitude * std::cos(2.0 * M_PI * waves * x / m.lx));
}

SpeciesOf scenario_species(Scenario s) {
  switch (s) {
    case Scenario::phase_separation:
      return [](const Model& mm, float, float, float, uint32_t i) { return unit_random(mm.seed, 20, i) < 0.5 ? 1 : 0; };
    case Scenario::rayleigh_taylor:  // the upper half heavy, the interface seeded with a cosine
      return [](const Model& mm, float x, float, float z, uint32_t) { return z > rayleigh_taylor_interface(mm, x) ? 1 : 0; };
    case Scenario::equilibrium:
      break;
  }
  return [](const Model&, float, float, float, uint32_t) { return 0; };
}

State scenario_state(Scenario s, const Model& m, uint32_t n) { return random_state(m, n, scenario_species(s)); }

}  // namespace particles
