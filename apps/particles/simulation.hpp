// SPDX-License-Identifier: MIT
// simulation.hpp — the DPD simulation on the GPU. Per step, in one command buffer of the app's own:
//   move (half kick + drift + walls) -> cells (cell ids) -> neighbour structure -> forces (gather over
//   the cells around each particle) -> kick (second half kick)
// where the neighbour structure is, in cell order (Layout::cell_order), a spatial reorder (vksort
// radix sort of the slots by cell, then a gather) and every cell's first slot (starts.comp); with
// Layout::lists, vksort bucket lists over the cells, preceded every Model::reorder_every steps (if
// set) by the same reorder, so neighbours in space are neighbours in memory. With the Verlet list
// (Model::verlet_list), the cell-order structure and a list of each slot's forward partners within
// r_c + skin are rebuilt only on the steps the GPU finds a particle moved more than skin / 2 (and on
// each advance()'s last step, whose tensor variant walks the cells); the other steps' forces walk the
// list. GPU timestamps
// around the neighbour search (cells + reorder + lists), the forces and the integration. Particles live
// in slots; snapshots and test hooks speak particle ids (the periodic image counts are kept by id, so
// no reorder touches them). The last step of each advance() runs the force kernel's variant that also
// sums the pressure tensor over the same pairs, whichever layout. The host only records, submits and
// reads back.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <vksort/device_types.hpp>

#include "gpu_context.hpp"
#include "model.hpp"

namespace particles {

// What the GPU holds for every particle, downloaded (id order).
struct Snapshot {
  uint64_t step = 0;
  std::vector<float> pos;    // x y z species
  std::vector<float> vel;    // vx vy vz (w: the paper generator's state)
  std::vector<float> force;  // fx fy fz 0
  std::vector<float> aux;    // pairs within r_c, conservative virial / 2, full virial / 2, 0
  std::vector<float> vtilde;    // the velocity the next dissipative force sees (a restart needs it)
  std::vector<int32_t> image;   // periodic images crossed: x y z 0
  // 16 floats per particle, the pair sums of the last step of the last advance() (or of the initial
  // forces), half per side: conservative r_a F_b xx yy zz, pair energy, xy xz yz, 0, then the same
  // (without the energy) for all three forces.
  std::vector<float> virial;
  uint32_t size() const { return uint32_t(pos.size() / 4); }
};

// GPU milliseconds summed over the steps run since the last reset.
struct StepTimes {
  double neighbours_ms = 0, forces_ms = 0, integration_ms = 0;
  uint64_t steps = 0;
  uint64_t list_builds = 0;  // steps that rebuilt the Verlet list (Model::neighbours list), forced ones included
  bool timed = false;  // false when the queue cannot write timestamps
};

// Bytes of the device buffers Simulation allocates for a run (vksort's own, the spatial sort's scratch
// and the bucket lists, come on top). One copy: Simulation allocates these sizes, device_shortfall()
// checks them.
struct BufferSizes {
  uint64_t vec4 = 0;    // 16 n each: positions, velocities, dissipative velocities, forces, pair
                        // statistics, periodic images and the reordered positions, velocities, vtilde
  uint64_t word = 0;    // 4 n each: cell ids, particle ids, packed positions, reorder keys, permutation,
                        // slot numbers, reordered ids
  uint64_t accum = 0;   // 24 n: the fixed-point force sums
  uint64_t virial = 0;  // 64 n: the pressure tensor sums
  uint64_t starts = 0;  // 4 (cells + 2): the cell starts
  uint64_t list = 0, list_count = 0, list_origin = 0;  // the Verlet list's (16 bytes each without it)
  uint64_t total() const { return 9 * vec4 + 7 * word + accum + virial + starts + list + list_count + list_origin; }
};
BufferSizes buffer_sizes(const Model& m, const Grid& g, uint32_t n);

// What of a run of `m` with `n` particles the device `info` describes cannot hold, checked before any
// state is made: a buffer the kernels bind larger than maxStorageBufferRange, one larger than
// maxMemoryAllocationSize, or all of them more than the largest device-local heap. Empty when it fits
// (as far as these limits tell). Throws Error as grid_for does for a box no run can use.
std::string device_shortfall(const Model& m, uint32_t n, const vksort::DeviceInfo& info);

class Simulation {
 public:
  // Checks the model (grid_for, check_model) and the state (check_state), uploads it and computes the
  // initial forces (with the noise of initial.step: a restart's forces are the ones its run had, bit for bit).
  Simulation(gpu::Context& ctx, const Model& model, const State& initial);
  ~Simulation();

  // Runs `steps` steps, recording up to `batch` steps per submission. Throws Error if a particle left
  // the box (for instance after a blow-up with too large a dt). The last step also sums the pressure
  // tensor and the pair energy (Snapshot::virial); the others skip that work.
  void advance(uint64_t steps, uint32_t batch = 32);
  uint64_t step() const { return step_; }
  const Model& model() const { return model_; }
  Grid grid() const { return grid_; }
  uint32_t size() const { return n_; }

  Snapshot snapshot() const;
  const StepTimes& times() const { return times_; }
  void reset_times() { times_ = {}; }

  // Test hooks. Neighbour ids of every particle as the force kernel finds them (ascending within a
  // particle; a count above `capacity` throws), recomputing the current forces.
  std::vector<std::vector<uint32_t>> neighbour_lists(uint32_t capacity);
  // Theta for each (i, j) at `step`, as the force kernel would draw it now.
  std::vector<float> noise(const std::vector<std::pair<uint32_t, uint32_t>>& pairs, uint32_t step);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  Model model_;
  Grid grid_;
  uint32_t n_;
  uint64_t step_ = 0;
  StepTimes times_;
};

}  // namespace particles
