// SPDX-License-Identifier: MIT
// The contract between the particle app and its shaders, valid as C++ and as GLSL so the two sides
// cannot drift apart: the simulation parameters (a buffer the shaders reach by address) and the one
// push-constant block every particle kernel takes. std430 layout: 4-byte scalars and arrays of them
// in Params, then its addresses (uvec2, 8-byte aligned: the scalars fill a multiple of 8 bytes);
// addresses first in the push block, which must stay within 128 bytes (static_assert in simulation.cpp).
#ifndef PARTICLES_DPD_INTERFACE_H
#define PARTICLES_DPD_INTERFACE_H

#ifdef __cplusplus
#include <cstdint>
namespace particles::shader {
using uint = uint32_t;
struct alignas(8) Address {
  uint32_t lo = 0, hi = 0;
  Address() = default;
  Address(uint64_t a) : lo(uint32_t(a)), hi(uint32_t(a >> 32)) {}
};
#define DPD_ADDRESS Address
#define DPD_PARAMS_BLOCK struct Params
#define DPD_PUSH_BLOCK struct Push
#define DPD_PUSH_END
#else
#define DPD_ADDRESS uvec2
#define DPD_PARAMS_BLOCK layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Params
#define DPD_PUSH_BLOCK layout(push_constant, std430) uniform Push
#define DPD_PUSH_END pc
#endif

#define DPD_NULL 0xFFFFFFFFu  // end of a bucket list (vksort::BucketLists::null); also "no cell"
#define DPD_RNG_COUNTER 0u    // stateless hash of (seed, step, min(i,j), max(i,j))
#define DPD_RNG_PAPER 1u      // per-particle x = 1.000005 (r + sqrt 3)^5, r' = frac(x) (seed 002, 4.2)

// forces.comp's variants (its specialization constant 1).
#define DPD_FORCES_GATHER 0u  // every pair from both sides
#define DPD_FORCES_TENSOR 1u  // the same, also summing the pressure tensor
#define DPD_FORCES_NEWTON 2u  // each pair once, into DPD_BIND_ACCUM (cell order)
#define DPD_FORCES_LIST_BUILD 3u  // the Verlet list: each slot's forward partners within r_c + skin
#define DPD_FORCES_LIST 4u        // each pair once, into DPD_BIND_ACCUM, from the Verlet list

// Push.flags.
#define DPD_PUSH_CELL_ORDER 1u  // the slots are sorted by cell and DPD_BIND_STARTS holds every cell's first
                                // slot (then the smallest id of a particle found outside the box,
                                // DPD_NULL: none); not set: vksort's bucket lists (head, next) instead
#define DPD_PUSH_SLOTS 2u       // cells.comp also writes the slot numbers into DPD_BIND_PERM (the sort's values)

// Bindings of descriptor set 0 (gpu::Bindings; shaders/dpd_bindings.glsl), every particle kernel's
// per-slot arrays (slots: the particles in their current memory order):
#define DPD_BIND_POS 0u     // vec4: x y z, w = species (0.0 or 1.0)
#define DPD_BIND_VEL 1u     // vec4: velocity, w = the paper generator's state
#define DPD_BIND_VTILDE 2u  // vec4: the velocity the dissipative force uses
#define DPD_BIND_FORCE 3u   // vec4: total force on the particle
#define DPD_BIND_IDS 4u     // uint: the particle id held in each slot (slots are reordered by cell)
#define DPD_BIND_CELL 5u    // uint: cell id x + nx (y + ny z), or DPD_NULL when the particle is outside
#define DPD_BIND_PACKED 6u  // uint: the position packed for the force walk (packed_position.glsl), cell order
#define DPD_BIND_ACCUM 7u   // uint[6]: the force's x, y, z as 64-bit fixed point (lo, hi) words, summed by
                            // forces.comp's Newton variants; forces_total.comp reads them and zeroes them
#define DPD_BIND_PERM 8u    // uint: reorder.comp's old slot of new slot k (the spatial sort's values)
#define DPD_BIND_STARTS 9u  // uint[cells + 2] in cell order: first slot of every cell (starts[cells] = n),
                            // then the smallest id of a particle found outside the box (DPD_NULL: none)
#define DPD_BIND_AUX 10u    // vec4: pairs within rc, conservative virial / 2, full virial / 2
// reorder.comp's staging, what it gathers in the new order: pos, vel, vtilde, ids (not the forces:
// move.comp used the last ones, the step computes new ones). Four buffers so none is larger than the
// particle arrays (a binding is limited to maxStorageBufferRange).
#define DPD_BIND_TMP_POS 11u
#define DPD_BIND_TMP_VEL 12u
#define DPD_BIND_TMP_VTILDE 13u
#define DPD_BIND_TMP_IDS 14u
#define DPD_BIND_COUNT 15u

// Words of Params.list_control, the Verlet list's rebuild decision (list_check.comp, list_decide.comp).
#define DPD_LIST_MOVED 1u         // set when some particle moved more than skin / 2 since the build
#define DPD_LIST_SORT_COUNT 0u    // keys the spatial sort takes: n on a rebuild step, else 0
#define DPD_LIST_ITEMS_ARGS 2u    // vkCmdDispatchIndirect groups over n items: all on a rebuild, else none
#define DPD_LIST_REUSE_ARGS 5u    // ... over n items: none on a rebuild, else all (forces from the list)
#define DPD_LIST_ITEMS_FULL 8u    // the groups of a rebuild, written once by the host
#define DPD_LIST_BUILDS 11u       // rebuilds so far (the host reads it after each submission)
#define DPD_LIST_MOST 12u         // the most partners of a slot beyond list_capacity at a build (0: none)
#define DPD_LIST_WORDS 13u

DPD_PARAMS_BLOCK {
  float lx; float ly; float lz; float rc;  // box (x, y periodic; z walls unless periodic_z), cut-off
  uint nx; uint ny; uint nz; uint n;       // cells per axis (edge >= rc), particles
  float cell_x; float cell_y; float cell_z; float dt;
  float gravity;      // acceleration along -z
  float extrapolate;  // the dissipative force sees v(n+1/2) + extrapolate dt F(n)/m: 0 VV, 1/2 leap-frog/AB
  float inv_sqrt_dt;
  uint periodic_z;
  uint rng;           // DPD_RNG_*
  uint seed;
  uint pair_capacity; // neighbour ids recorded per particle when Push.pairs is set
  uint reach;         // cells searched each way along x (cell order; 1 with bucket lists; 1 along y, z)
  float mass[2];      // per species
  float list_rc2;     // the Verlet list: (r_c + skin)^2, the build's cut-off
  float moved2;       // ... (skin / 2)^2 less a rounding margin: a rebuild is due beyond it
  uint list_capacity; // ... partners stored per slot
  uint pad1;
  float a[4];         // per species pair k * 2 + l: conservative amplitude
  float gamma[4];     // dissipative amplitude
  float sigma[4];     // random amplitude, sigma^2 = 2 gamma kBT
  // Addresses of buffers that stay put for the whole run and only some kernels touch, here rather than
  // in the push block: Vulkan guarantees only 128 bytes of push constants (maxPushConstantsSize).
  DPD_ADDRESS image;   // ivec4 by particle id: periodic images crossed (x y z, 0); move.comp counts them
  DPD_ADDRESS virial;  // 4 vec4 per slot, written by forces.comp's sums_tensor variant, half per pair side:
                       // conservative r_a F_b (xx yy zz, pair energy), (xy xz yz, 0), then all forces'
                       // (xx yy zz, 0), (xy xz yz, 0)
  // The Verlet list (Model::neighbours list; zero addresses otherwise):
  DPD_ADDRESS list;         // uint[n * list_capacity]: slot i's forward partners (slots), built at a rebuild
  DPD_ADDRESS list_count;   // uint[n]: how many (may exceed list_capacity: then the host throws)
  DPD_ADDRESS list_origin;  // vec4[n]: slot i's position at the build
  DPD_ADDRESS list_control; // uint[DPD_LIST_WORDS]
};

DPD_PUSH_BLOCK {
  DPD_ADDRESS params;
  DPD_ADDRESS head;    // uint[cells]: vksort bucket lists
  DPD_ADDRESS next;    // uint[n]
  DPD_ADDRESS pairs;   // uint[n * pair_capacity] neighbour slots (zero address: not recorded); the
                       // noise kernel reads uvec2 pairs of slots from here
  DPD_ADDRESS noise;   // float per pair: where the noise kernel writes
  uint step;
  uint count;          // items for the noise kernel
  uint flags;          // DPD_PUSH_*
  uint pad0;
} DPD_PUSH_END;

#ifdef __cplusplus
}  // namespace particles::shader
#endif
#endif
