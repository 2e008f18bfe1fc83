// SPDX-License-Identifier: MIT
#version 460
#extension GL_EXT_control_flow_attributes : require
#ifdef DPD_ATOMIC64  // forces_atomic64.spv: built with -DDPD_ATOMIC64, run where the device has 64-bit buffer atomics
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#endif
// DPD forces by gather: particle i visits the cells within `reach` cells of its own along x and 1
// along y and z (periodic in x and y, and in z when periodic_z; walls otherwise) and sums F_C + F_D + F_R over every j within r_c
// (Groot & Warren; seed 002, 4.1, with w_D = w_R^2 and w_R = 1 - r/r_c):
//   F_ij = [a_kl w - gamma_kl w^2 (e.v_ij) + sigma_kl w Theta_ij / sqrt(dt)] e_ij,  e_ij = (r_i - r_j)/r
// Each pair is evaluated from both sides. Every operation in the pair term flips sign exactly when i
// and j swap, and Theta_ij == Theta_ji, so F_ji == -F_ij bit for bit; the sum is accumulated in 64-bit
// fixed point (2^-32 units), where addition is exact and order-free. So total force is zero exactly
// (momentum is conserved to the rounding of the velocity update) and the result does not depend on
// the order of the lists, which differs from run to run with vksort's scatter build, nor on the order
// of the particles in memory (reorder.comp): the run stays deterministic, and both neighbour walks
// below give the same bits. No atomics.
//   Cell order (DPD_PUSH_CELL_ORDER set): the slots are sorted by cell, so the 2 reach + 1 cells of a row along
// x are one range of slots (two where the row wraps around the periodic x faces): 9 ranges of
// consecutive slots, no pointer chasing. Cells of r_c / reach along x cost no more ranges and trim
// each row to 2 + 1 / reach r_c, from 3 r_c: fewer distance checks. The walk only collects the j within r_c (a distance check
// each); the pair terms then run over that short list. On a SIMD machine (lavapipe's lanes, a GPU's
// warps) this matters: fused into the walk, the pair term runs whenever any lane has a neighbour,
// i.e. for most candidates, not for the ~15% that are within r_c.
//   Bucket lists (not set): the lists of the 27 cells around i's, cell by cell.
#include "dpd.glsl"
#include "fixed_point.glsl"
#include "packed_position.glsl"
#include "params_constants.glsl"
#include "dpd_bindings.glsl"

// Specialization constant 1, the variant (a separate pipeline each, so the every-step kernel carries
// none of the others' work):
//   DPD_FORCES_GATHER: every pair from both sides, as described above; writes forces and aux.
//   DPD_FORCES_TENSOR: the same, also summing the pressure tensor and pair energy (into Params.virial)
//     in add_pair, whichever neighbour walk found the pair.
//   DPD_FORCES_NEWTON (cell order only): each pair once, F_ji = -F_ij. Particle i walks the forward half
//     of its neighbourhood (the rest of its own row after slot i, the row at y + 1, the three rows at
//     z + 1), so half the candidates are loaded and half the pair terms, noise included, computed. F_ij
//     is summed in registers for i and subtracted from j's sum in DPD_BIND_ACCUM by integer atomics on the
//     fixed-point words (exact, so still order-free); forces_total.comp turns the sums into forces. The
//     same pair terms as the gather, so the same forces bit for bit; no aux (the observables come from
//     the tensor variant).
//   DPD_FORCES_LIST_BUILD (cell order, Model::neighbours list): the Newton variant's forward walk with
//     the cut-off r_c + skin, storing the partners found as slot i's Verlet list (and i's position, which
//     list_check.comp measures moves from); with pc.count 0 also the Newton variant itself over the
//     partners within r_c that the same walk finds (a rebuild step's forces: no second pass over the new
//     list); with 1 (the steps whose forces another variant computes) no pair terms.
//   DPD_FORCES_LIST: the Newton variant's pair terms over slot i's Verlet list instead of a walk. The
//     list holds every pair now within r_c (list_check.comp), each once, and the pair term re-checks
//     r < r_c, so the pairs are the walk's and the fixed-point sums the same bits.
layout(constant_id = 1) const uint variant = DPD_FORCES_GATHER;
const bool sums_tensor = variant == DPD_FORCES_TENSOR;
const bool build = variant == DPD_FORCES_LIST_BUILD;
const bool from_list = variant == DPD_FORCES_LIST;
const bool forward = variant == DPD_FORCES_NEWTON || build;  // walks the forward half
const bool newton = variant == DPD_FORCES_NEWTON || from_list || build;  // j's share by atomics

// Neighbour cell along a periodic axis (needs >= 2 reach + 1 cells, checked on the host, so the
// cells visited are distinct).
uint wrap_cell(int c, uint cells) { return uint(c < 0 ? c + int(cells) : (c >= int(cells) ? c - int(cells) : c)); }
// The periodic image a wrapped neighbour cell lies in: -1 below 0, +1 past the last cell, else 0.
float image_of(int c, uint cells) { return c < 0 ? -1.0 : (c >= int(cells) ? 1.0 : 0.0); }

// Neighbours a particle keeps for the pair pass; beyond this, a second walk computes the rest directly.
// Density 3 has ~12.6 within r_c on average; 64 is rare even in dense clusters.
const uint kNear = 64u;

// What one particle is, and what it sums over its neighbours.
struct Self {
  vec4 x;
  vec3 v;
  uint k, id;
  float state;
};
struct Sums {
  uvec2 fx, fy, fz;
  uint count;
  float virial_c, virial;  // every step's gather (no observable reads them: the tensor's step writes its own)
  // The sums_tensor variant's, read by the observables: the scalar virials, the pressure tensor's pair
  // part r_a F_b = (f r) e_a e_b (half per side like the virials; xx yy zz xy xz yz) and the pair
  // energy, in fixed point as the forces are, so that they too do not depend on the order pairs are
  // found in: a restart, the layout and the cell build give the same bits (float sums in walk order
  // differed in the 9th digit).
  uvec2 t_virial_c, t_virial, t_energy;
  uvec2 t_wc[6], t_w[6];
};

// What every invocation derives from the parameters once (params_constants.glsl has the rest).
float g_rc2, g_walk_rc2;   // the pair term's cut-off squared; the walk's (r_c + skin for the list build)
vec3 g_quantum, g_margin;  // packed_position.glsl's, for the walk
uint g_capacity;           // Params.pair_capacity (loaded: it changes during a run)
bool g_record, g_build_forces;
const vec4 c_a = vec4(c_a0, c_a1, c_a2, c_a3);
const vec4 c_gamma = vec4(c_gamma0, c_gamma1, c_gamma2, c_gamma3);
const vec4 c_sigma = vec4(c_sigma0, c_sigma1, c_sigma2, c_sigma3);

// Adds v to the fixed-point sum in words k (lo) and k + 1 (hi) of `acc` (k even).
#ifdef DPD_ATOMIC64
// One 64-bit atomic: the same little-endian words, half the atomics of the pair below (on lavapipe each
// atomic is a loop over the lanes).
void fixed_atomic_add(uint k, uvec2 v) { atomicAdd(b_accum64[k >> 1], packUint2x32(v)); }
#else
// The carry out of the low word comes from the value the atomic found there, so the pair of atomics adds
// exactly v in any order.
void fixed_atomic_add(uint k, uvec2 v) {
  const uint old = atomicAdd(b_accum[k], v.x);
  atomicAdd(b_accum[k + 1u], v.y + uint(old > ~v.x));
}
#endif
void fixed_atomic_add(uint k, float f) { fixed_atomic_add(k, fixed_of(f)); }

// Particle j of species species_j at separation d = x_i - x_j (minimum image already applied): the
// pair term on i. The caller takes d and the species from one load of j's position: with the species
// loaded here apart from the position, the Newton variant read a wrong species on lavapipe (a vec4
// load split around the atomics, it seems; found by the determinism tests).
void add_pair(inout Sums s, const Self me, const uint i, const uint j, const float species_j, const vec3 d) {
  const float r2 = dot(d, d);
  if (r2 >= g_rc2) return;
  if (!newton) {
    if (g_record && s.count < g_capacity) Uints(pc.pairs).u[i * g_capacity + s.count] = j;
    ++s.count;
  }
  if (r2 == 0.0) return;  // coincident: no direction, no force
  const float r = sqrt(r2);
  const vec3 e = d / r;
  precise const float w = 1.0 - r / c_rc;  // precise: see params_constants.glsl
  const uint kl = me.k * 2u + uint(species_j);
  const float state_j = c_rng == DPD_RNG_PAPER ? b_vel[j].w : 0.0;
  const float theta = pair_noise(c_seed, c_rng, pc.step, me.id, b_ids[j], me.state, state_j);
  precise const float fc = c_a[kl] * w;
  precise const float f = fc - c_gamma[kl] * w * w * dot(e, me.v - b_vtilde[j].xyz) +
                  c_sigma[kl] * w * theta * c_inv_sqrt_dt;
  fixed_add(s.fx, f * e.x);
  fixed_add(s.fy, f * e.y);
  fixed_add(s.fz, f * e.z);
  if (newton) {  // F_ji = -F_ij: the same fixed-point words, negated
    fixed_atomic_add(6u * j, -(f * e.x));
    fixed_atomic_add(6u * j + 2u, -(f * e.y));
    fixed_atomic_add(6u * j + 4u, -(f * e.z));
    return;
  }
  precise const float vc = 0.5 * fc * r, v = 0.5 * f * r;  // r_ij . F_C,ij and r_ij . F_ij, half per side
  if (sums_tensor) {
    fixed_add(s.t_virial_c, vc);
    fixed_add(s.t_virial, v);
    const float ee[6] = float[](e.x * e.x, e.y * e.y, e.z * e.z, e.x * e.y, e.x * e.z, e.y * e.z);
    [[unroll]] for (int k = 0; k < 6; ++k) {
      fixed_add(s.t_wc[k], vc * ee[k]);
      fixed_add(s.t_w[k], v * ee[k]);
    }
    precise const float energy = 0.25 * fc * c_rc * w;
    fixed_add(s.t_energy, energy);  // a r_c w^2 / 2 per pair, half per side
  } else {
    s.virial_c += vc;
    s.virial += v;
  }
}

// x_i - x_j at the minimum image: d - L k with k = roundEven(d / L) in {-1, 0, 1}, an exact product,
// so the cell-order walk's d - L (image) below is the same float.
vec3 separation(const vec3 xi, const vec3 xj) {
  precise vec3 d = xi - xj;
  d.x -= c_lx * roundEven(d.x / c_lx);  // roundEven is odd-symmetric
  d.y -= c_ly * roundEven(d.y / c_ly);
  if (c_periodic_z != 0u) d.z -= c_lz * roundEven(d.z / c_lz);
  return d;
}

// Cell order: visits the slots of the cells within `reach` along x and 1 along y and z of cell
// (cx, cy, cz): 9 rows, each one or two ranges of slots (the forward variants: the forward half, 4 rows
// and the part of its own row after slot i). Collects the neighbours within r_c numbered start ..
// start + kNear - 1 (in walk order) into `near` (the list build: also the first list_capacity within
// r_c + skin into slot i's list on the first pass, start 0; `close` counts those within r_c). Returns
// how many it found (the same count, in the same order, on every pass).
//   Why passes rather than computing the pair terms of the neighbours past kNear inside the walk: lavapipe
// (gallivm) never branches around code whose lanes are all masked off, it only leaves loops when no
// lane goes on. A pair term inside the walk ran, masked, at every row of every walk; a second walk
// for the rare overflow ran, masked, every time. A loop over passes runs once unless a lane overflows.
uint walk_ranges(const Self me, const uint i, const ivec3 cell, const int reach, const uint start,
                 inout uint near[kNear], inout uint close) {
  Params p = Params(pc.params);
  const uint nx = c_nx, ny = c_ny, nz = c_nz;
  uint found = 0;
  for (int dz = forward ? 0 : -1; dz <= 1; ++dz) {
    int z = cell.z + dz;
    float image_z = 0.0;
    if (c_periodic_z != 0u) {
      image_z = image_of(z, nz);
      z = int(wrap_cell(z, nz));
    } else if (z < 0 || z >= int(nz)) {
      continue;
    }
    for (int dy = forward && dz == 0 ? 0 : -1; dy <= 1; ++dy) {
      const bool forward_only = forward && dz == 0 && dy == 0;  // own row: cells cx .. cx + reach
      const float image_y = image_of(cell.y + dy, ny);
      const uint row_y = wrap_cell(cell.y + dy, ny), row = nx * (row_y + ny * uint(z));
      // Cells cx - reach .. cx + reach of this row: [lo, hi) unwrapped, then the part that wrapped
      // around x, [wlo, whi), lying in the periodic image image_x.
      int first = forward_only ? cell.x : cell.x - reach, last = cell.x + reach;
      uint wlo = 0, whi = 0;
      float image_x = 0.0;
      if (first < 0) {
        wlo = b_starts[row + uint(first + int(nx))], whi = b_starts[row + nx], image_x = -1.0;
        first = 0;
      } else if (last >= int(nx)) {
        wlo = b_starts[row], whi = b_starts[row + uint(last - int(nx)) + 1u], image_x = 1.0;
        last = int(nx) - 1;
      }
      // Slot i lies in cell cx of its own row: the forward part starts right after it.
      const uint lo = forward_only ? i + 1u : b_starts[row + uint(first)], hi = b_starts[row + uint(last) + 1u];
      const vec3 image = vec3(0.0, c_ly * image_y, c_lz * image_z);
      const vec3 wimage = vec3(c_lx * image_x, image.yz);
      for (uint j = lo; j < whi + (hi - wlo); ++j) {  // [lo, hi) then [wlo, whi) in one loop
        const bool wrapped = j >= hi;
        const uint slot = wrapped ? j - hi + wlo : j;
        if (slot == i) continue;
        // The packed position: d within the margin of the true separation on every axis, so a
        // candidate is dropped only where it lies beyond the cut-off; the pair terms check exactly.
        const vec3 xj = unpack_position(b_packed[slot], row_y, uint(z), g_quantum);
        precise const vec3 d = me.x.xyz - xj - (wrapped ? wimage : image);
        precise const vec3 low = max(abs(d) - g_margin, vec3(0.0));  // the least each |component| can be
        precise const float low2 = dot(low, low);
        if (low2 >= g_walk_rc2) continue;
        if (build) {
          if (start == 0u && found < c_list_capacity) Uints(p.list).u[i * c_list_capacity + found] = slot;
          if (g_build_forces && low2 < g_rc2) {  // maybe within r_c: near[] as the Newton variant's
            if (close - start < kNear) near[close - start] = slot;  // unsigned: false below start
            ++close;
          }
        } else if (found - start < kNear) {
          near[found - start] = slot;
        }
        ++found;
      }
    }
  }
  return found;
}

void main() {
  Params p = Params(pc.params);
  const uint n = c_n;
  const uint i = item_index();
  if (i >= n) return;
  const uint nx = c_nx, ny = c_ny, nz = c_nz;
  g_quantum = packed_quantum(c_lx, c_cell_y, c_cell_z);
  g_margin = packed_margin(g_quantum, max(c_lx, max(c_ly, c_lz)));
  g_rc2 = c_rc * c_rc;
  g_walk_rc2 = build ? c_list_rc2 : g_rc2;
  g_build_forces = build && pc.count == 0u;
  g_record = pc.pairs != uvec2(0);
  g_capacity = g_record ? p.pair_capacity : 0u;  // a load through an address: only when recording
  Self me;
  me.x = b_pos[i];
  me.v = b_vtilde[i].xyz;
  me.k = uint(me.x.w);
  me.id = b_ids[i];  // the noise is keyed by particle ids, not by slots
  me.state = c_rng == DPD_RNG_PAPER ? b_vel[i].w : 0.0;

  Sums s;
  s.fx = uvec2(0), s.fy = uvec2(0), s.fz = uvec2(0);
  s.count = 0;
  s.virial_c = 0.0, s.virial = 0.0;
  s.t_virial_c = uvec2(0), s.t_virial = uvec2(0), s.t_energy = uvec2(0);
  [[unroll]] for (int k = 0; k < 6; ++k) s.t_wc[k] = uvec2(0), s.t_w[k] = uvec2(0);
  const uint c = b_cell[i];
  if (build) {
    const ivec3 cell = ivec3(c % nx, (c / nx) % ny, c / (nx * ny));
    uint near[kNear];
    uint close = 0;
    const bool inside = c < nx * ny * nz;
    const uint found = inside ? walk_ranges(me, i, cell, int(c_reach), 0u, near, close) : 0u;
    Uints(p.list_count).u[i] = found;
    Vec4s(p.list_origin).v[i] = me.x;
    if (found > c_list_capacity) atomicMax(Uints(p.list_control).u[DPD_LIST_MOST], found);
    if (!g_build_forces) return;
    for (uint start = 0;; start += kNear) {  // a pass per kNear neighbours within r_c (see walk_ranges)
      if (start > 0u) {
        close = 0;
        walk_ranges(me, i, cell, int(c_reach), start, near, close);
      }
      for (uint k = 0; k < min(close - start, kNear); ++k) {
        const vec4 xj = b_pos[near[k]];
        add_pair(s, me, i, near[k], xj.w, separation(me.x.xyz, xj.xyz));
      }
      if (close <= start + kNear) break;
    }
  } else if (from_list) {  // as the walk: the partners within r_c first, then the pair terms over them only
    UintsIn list = UintsIn(p.list);
    const uint count = min(UintsIn(p.list_count).u[i], c_list_capacity);
    uint near[kNear];
    uint found = 0;
    for (uint k = 0; k < count; ++k) {
      const uint j = list.u[i * c_list_capacity + k];
      const vec4 xj = b_pos[j];
      const vec3 d = separation(me.x.xyz, xj.xyz);
      if (dot(d, d) >= g_rc2) continue;
      if (found < kNear) {
        near[found] = j;
      } else {
        add_pair(s, me, i, j, xj.w, d);
      }
      ++found;
    }
    for (uint k = 0; k < min(found, kNear); ++k) {
      const vec4 xj = b_pos[near[k]];
      add_pair(s, me, i, near[k], xj.w, separation(me.x.xyz, xj.xyz));
    }
  } else if (c < nx * ny * nz) {
    const ivec3 cell = ivec3(c % nx, (c / nx) % ny, c / (nx * ny));
    if (newton || (pc.flags & DPD_PUSH_CELL_ORDER) != 0u) {  // the host runs the Newton variant in cell order only
      uint near[kNear];
      uint unused = 0;
      for (uint start = 0;; start += kNear) {  // a pass per kNear neighbours (see walk_ranges)
        const uint found = walk_ranges(me, i, cell, int(c_reach), start, near, unused);
        for (uint k = 0; k < min(found - start, kNear); ++k) {
          const vec4 xj = b_pos[near[k]];
          add_pair(s, me, i, near[k], xj.w, separation(me.x.xyz, xj.xyz));
        }
        if (found <= start + kNear) break;
      }
    } else {
      UintsIn head = UintsIn(pc.head);
      UintsIn next = UintsIn(pc.next);
      for (int dz = -1; dz <= 1; ++dz) {
        int z = cell.z + dz;
        if (c_periodic_z != 0u) {
          z = int(wrap_cell(z, nz));
        } else if (z < 0 || z >= int(nz)) {
          continue;
        }
        for (int dy = -1; dy <= 1; ++dy) {
          const uint row_y = wrap_cell(cell.y + dy, ny), row = nx * (row_y + ny * uint(z));
          for (int dx = -1; dx <= 1; ++dx) {
            uint j = head.u[wrap_cell(cell.x + dx, nx) + row];
            for (uint guard = 0; j != DPD_NULL && guard < n; ++guard, j = next.u[j]) {
              const vec4 xj = b_pos[j];
              if (j != i) add_pair(s, me, i, j, xj.w, separation(me.x.xyz, xj.xyz));
            }
          }
        }
      }
    }
  }
  if (newton) {  // i's own sum joins what its neighbours subtracted; forces_total.comp finishes
    fixed_atomic_add(6u * i, s.fx);
    fixed_atomic_add(6u * i + 2u, s.fy);
    fixed_atomic_add(6u * i + 4u, s.fz);
    return;
  }
  precise const float fz = fixed_value(s.fz) - mass_of(me.x.w) * c_gravity;
  b_force[i] = vec4(fixed_value(s.fx), fixed_value(s.fy), fz, 0.0);
  if (sums_tensor) {
    b_aux[i] = vec4(float(s.count), fixed_value(s.t_virial_c), fixed_value(s.t_virial), 0.0);
    float wc[6], w[6];
    [[unroll]] for (int k = 0; k < 6; ++k) wc[k] = fixed_value(s.t_wc[k]), w[k] = fixed_value(s.t_w[k]);
    Vec4s t = Vec4s(p.virial);
    t.v[4u * i] = vec4(wc[0], wc[1], wc[2], fixed_value(s.t_energy));
    t.v[4u * i + 1u] = vec4(wc[3], wc[4], wc[5], 0.0);
    t.v[4u * i + 2u] = vec4(w[0], w[1], w[2], 0.0);
    t.v[4u * i + 3u] = vec4(w[3], w[4], w[5], 0.0);
  } else {
    b_aux[i] = vec4(float(s.count), s.virial_c, s.virial, 0.0);
  }
}
