// SPDX-License-Identifier: MIT
// model.hpp — the DPD model the simulator runs: box, species, pair parameters, integrator, noise, and
// the initial states of the two scenarios. Host-side only; no Vulkan here.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace particles {

// Every failure the app reports: one line saying what was wrong.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Integrator { velocity_verlet, leapfrog };
enum class Noise { counter, paper };
enum class Cells { scatter, sort };  // vksort::BucketMode of the per-step cell build
// How the force kernel finds neighbours. cell_order: every step the particles are sorted in memory by
// cell (vksort's radix sort), so each row of neighbouring cells is one contiguous range of slots,
// walked without pointer chasing, on cells of edge r_c / cell_divisions along x (fewer distance checks).
// lists: vksort's bucket lists over cells of edge r_c, walked cell by cell (the original layout).
enum class Layout { cell_order, lists };
// cell_order with each pair once: how the force kernel finds each step's pairs. cells: the walk over
// the cell ranges every step, after sorting the particles by cell. list: a Verlet list of the partners
// within r_c + skin (each pair once), walked every step and rebuilt (sort into cell order included)
// only on the steps where some particle has moved more than skin / 2 since the last build, which the
// GPU decides itself. The trajectory is the same bit for bit.
enum class Neighbours { cells, list };

struct Model {
  float lx = 10, ly = 10, lz = 10;  // box; x, y periodic
  bool periodic_z = false;          // false: reflecting walls at z = 0 and z = lz
  float rc = 1.0f;                  // cut-off, also the smallest cell edge
  float kbt = 1.0f;
  float dt = 0.04f;
  float gravity = 0.0f;             // acceleration along -z
  float mass[2] = {1.0f, 1.0f};     // species 0 (light, L) and 1 (heavy, H)
  float a[2][2] = {{25, 25}, {25, 25}};
  float gamma[2][2] = {{4.5f, 4.5f}, {4.5f, 4.5f}};  // sigma = sqrt(2 gamma kBT): 3 for gamma = 4.5
  Integrator integrator = Integrator::velocity_verlet;
  Noise noise = Noise::counter;
  Cells cells = Cells::scatter;
  // vksort::BucketOptions for the scatter build: iterations recorded before the heavy-cell fallback,
  // and partial-update parts (0: vksort chooses).
  uint32_t list_iterations = 12;
  uint32_t list_parts = 1;  // off: at 3-4 particles per cell it does not pay on lavapipe (measured)
  // Sort the particles in memory by cell every this many steps (0: never). The trajectory is the same
  // bit for bit; only the force kernel's memory access gets more local. Off by default: on lavapipe
  // it did not pay measurably (2^14: slower, 2^16: within the noise of a shared 2-core machine).
  uint32_t reorder_every = 0;
  Layout layout = Layout::cell_order;
  // cell_order only: cells of edge >= r_c / cell_divisions along x (r_c along y and z), searched
  // cell_divisions cells each way along x: still 9 ranges, each 2 + 1/d r_c long instead of 3 r_c.
  // Measured on lavapipe (32000 particles, farm-bench, whole process): d = 4 took 0.935x the CPU time
  // of d = 1, d = 8 1.03x that of 4 (more cells to sort and find). Dividing all three axes by 2 was
  // slower than d = 1 (1.08x): 25 shorter rows cost more than the distance checks they saved.
  uint32_t cell_divisions = 4;
  // cell_order only: compute each pair once (F_ji = -F_ij, half the neighbourhood walked) on the steps
  // that need no observables; false: from both sides every step. The trajectory is the same bit for bit.
  bool newton = true;
  Neighbours neighbours = Neighbours::cells;
  float skin = 0.3f;  // Neighbours::list: partners within r_c + skin are listed
  uint32_t seed = 1;
  // The Verlet list is used: cell order, each pair once, Neighbours::list.
  bool verlet_list() const { return layout == Layout::cell_order && newton && neighbours == Neighbours::list; }
};

struct Grid {
  uint32_t nx, ny, nz;
  uint32_t reach = 1;  // cells searched each way along x (Model::cell_divisions in cell order); 1 along y, z
  uint32_t cells() const { return nx * ny * nz; }
};
// Cells per axis (edge >= rc, or rc + skin with the Verlet list; along x >= that / cell_divisions in
// cell order). Throws Error when a periodic
// axis is shorter than 3 r_c (the search would visit a cell twice) or a wall-bounded one than r_c.
Grid grid_for(const Model& m);
// With the Verlet list: how far a particle may move before the list is rebuilt, skin / 2 less a
// margin for the rounding of the separations. Throws Error (from grid_for too, so a run refuses it
// as bad input) when the skin leaves no positive distance.
float list_move_limit(const Model& m);

// Particles in id order: positions (x, y, z, species as 0.0 / 1.0) and velocities (vx, vy, vz, the
// paper generator's state). A restart also carries the step, the velocities the dissipative force
// sees (vtilde; empty: the velocities) and the periodic images crossed (x y z 0 per particle; empty: none).
struct State {
  std::vector<float> pos;
  std::vector<float> vel;
  std::vector<float> vtilde;
  std::vector<int32_t> image;
  uint64_t step = 0;
  uint32_t size() const { return uint32_t(pos.size() / 4); }
};
// Throws Error naming the first parameter no run can use: a box length, r_c, dt or mass not finite and
// positive, kBT, gravity or a gamma not finite and non-negative, an a not finite, pair parameters not
// symmetric, an integrator or noise outside its enum. Every source of a model goes through it before
// the run (options, checkpoint), so bad input is refused at load, not at the first step.
void check_model(const Model& m);
// Throws Error unless the box lengths a particle file gives are finite and positive (a zero would be
// taken for "no box" by scenario_model, which then picks the scenario's default box).
void check_file_box(const float box[3]);
// Throws Error naming the first particle outside [0, L] on some axis (exactly: only the files' own
// rounding keeps positions inside, see read_gsd), with species not 0 or 1, or with a velocity or
// dissipative velocity that is not finite; or when the arrays differ in count or the step is beyond
// the noise's 32-bit step counter.
void check_state(const Model& m, const State& s);

// Deterministic host-side random numbers for initial states (the same mixer as the shaders).
uint32_t mix32(uint32_t x);
double unit_random(uint32_t seed, uint32_t stream, uint32_t index);  // uniform on (0, 1)

// Species of a particle at (x, y, z) with index i, for a scenario's initial state.
using SpeciesOf = int (*)(const Model&, float, float, float, uint32_t);

// n particles uniformly in the box (species from `species_of(x, y, z, index)`) with Maxwell-Boltzmann
// velocities, total momentum zero and temperature exactly kbt (thermal_velocities, initial_state.hpp).
State random_state(const Model& m, uint32_t n, SpeciesOf species_of);

enum class Scenario { phase_separation, rayleigh_taylor, equilibrium };
Scenario parse_scenario(const std::string& name);  // throws Error
// Standard parameters (Groot & Warren: a = 25 like pairs, gamma = 4.5, rho = 3) for a scenario at n
// particles; box = {0,0,0} picks a 2:2:1 box of density 3 (Rayleigh-Taylor: a slab 3 r_c deep,
// Lx = 1.5 H), else the given box.
Model scenario_model(Scenario s, uint32_t n, const float box[3]);
State scenario_state(Scenario s, const Model& m, uint32_t n);
SpeciesOf scenario_species(Scenario s);  // how scenario_state (and the fcc start) assign species
// Rayleigh-Taylor: the height of the seeded interface at x (heavy above it).
float rayleigh_taylor_interface(const Model& m, float x);

}  // namespace particles
