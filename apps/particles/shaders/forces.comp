// SPDX-License-Identifier: MIT
#version 460
// DPD forces by gather: particle i walks the bucket lists of the 27 cells around its own (periodic
// in x and y, and in z when periodic_z; walls otherwise) and sums F_C + F_D + F_R over every j within
// r_c (Groot & Warren; seed 002, 4.1, with w_D = w_R^2 and w_R = 1 - r/r_c):
//   F_ij = [a_kl w - gamma_kl w^2 (e.v_ij) + sigma_kl w Theta_ij / sqrt(dt)] e_ij,  e_ij = (r_i - r_j)/r
// Each pair is evaluated from both sides. Every operation in the pair term flips sign exactly when i
// and j swap, and Theta_ij == Theta_ji, so F_ji == -F_ij bit for bit; the sum is accumulated in 64-bit
// fixed point (2^-32 units), where addition is exact and order-free. So total force is zero exactly
// (momentum is conserved to the rounding of the velocity update) and the result does not depend on
// the order of the lists, which differs from run to run with vksort's scatter build, nor on the order
// of the particles in memory (reorder.comp): the run stays deterministic. No atomics.
#include "dpd.glsl"

// Specialization constant 1: the variant that also sums the pressure tensor and pair energy (into
// pc.virial). A separate pipeline, so the every-step kernel carries none of that work.
layout(constant_id = 1) const bool sums_tensor = false;

// 64-bit two's complement fixed point held as (lo, hi) words, so no shaderInt64 is needed. |f| is
// split into whole and fraction (both exact: trunc is exact in float and so is the difference), and
// added or subtracted by its sign: the fixed value of -f is exactly minus that of f.
void fixed_add(inout uvec2 acc, float f) {
  const float m = abs(f);
  const uint hi = uint(m);
  const uint lo = uint((m - float(hi)) * 4294967296.0);  // scaling by 2^32 is exact
  uint carry;
  if (f < 0.0) {
    acc.x = usubBorrow(acc.x, lo, carry);
    acc.y -= hi + carry;
  } else {
    acc.x = uaddCarry(acc.x, lo, carry);
    acc.y += hi + carry;
  }
}
float fixed_value(uvec2 acc) { return float(int(acc.y)) + float(acc.x) * (1.0 / 4294967296.0); }

// Neighbour cell along a periodic axis (needs >= 3 cells, checked on the host, so the 27 cells are distinct).
uint wrap_cell(int c, uint cells) { return uint(c < 0 ? c + int(cells) : (c >= int(cells) ? c - int(cells) : c)); }

void main() {
  Params p = Params(pc.params);
  const uint n = p.n;
  const uint i = item_index();
  if (i >= n) return;
  // Parameters in registers: the loop's stores (pair ids) could alias the parameter buffer otherwise.
  const float lx = p.lx, ly = p.ly, lz = p.lz, rc = p.rc, inv_sqrt_dt = p.inv_sqrt_dt;
  const uint nx = p.nx, ny = p.ny, nz = p.nz, rng = p.rng, seed = p.seed, capacity = p.pair_capacity;
  const bool periodic_z = p.periodic_z != 0u;
  const vec4 a = vec4(p.a[0], p.a[1], p.a[2], p.a[3]);
  const vec4 gamma = vec4(p.gamma[0], p.gamma[1], p.gamma[2], p.gamma[3]);
  const vec4 sigma = vec4(p.sigma[0], p.sigma[1], p.sigma[2], p.sigma[3]);
  Vec4sIn pos = Vec4sIn(pc.pos);
  Vec4sIn vt = Vec4sIn(pc.vtilde);
  Vec4sIn vel = Vec4sIn(pc.vel);
  UintsIn head = UintsIn(pc.head);
  UintsIn next = UintsIn(pc.next);
  const bool record = pc.pairs != uvec2(0);
  UintsIn ids = UintsIn(pc.ids);
  const uint id_i = ids.u[i];  // the noise is keyed by particle ids, not by slots
  const vec4 xi = pos.v[i];
  const vec3 vi = vt.v[i].xyz;
  const uint ki = uint(xi.w);
  const float state_i = rng == DPD_RNG_PAPER ? vel.v[i].w : 0.0;
  const float rc2 = rc * rc;

  uvec2 fx = uvec2(0), fy = uvec2(0), fz = uvec2(0);
  uint count = 0;
  float virial_c = 0.0, virial = 0.0;
  // The pressure tensor's pair part and the pair energy, in the sums_tensor variant only: r_a F_b
  // = (f r) e_a e_b, half per side like the scalar virials.
  const bool tensor = sums_tensor;
  vec3 wc_diag = vec3(0.0), wc_off = vec3(0.0), w_diag = vec3(0.0), w_off = vec3(0.0);
  float energy = 0.0;
  const uint c = UintsIn(pc.cell).u[i];
  if (c != DPD_NULL) {
    const int cx = int(c % nx), cy = int((c / nx) % ny), cz = int(c / (nx * ny));
    for (int dz = -1; dz <= 1; ++dz) {
      int z = cz + dz;
      if (periodic_z) {
        z = int(wrap_cell(z, nz));
      } else if (z < 0 || z >= int(nz)) {
        continue;
      }
      for (int dy = -1; dy <= 1; ++dy) {
        const uint y = wrap_cell(cy + dy, ny);
        for (int dx = -1; dx <= 1; ++dx) {
          const uint cell = wrap_cell(cx + dx, nx) + nx * (y + ny * uint(z));
          uint j = head.u[cell];
          for (uint guard = 0; j != DPD_NULL && guard < n; ++guard, j = next.u[j]) {
            if (j == i) continue;
            const vec4 xj = pos.v[j];
            vec3 d = xi.xyz - xj.xyz;
            d.x -= lx * roundEven(d.x / lx);  // minimum image; roundEven is odd-symmetric
            d.y -= ly * roundEven(d.y / ly);
            if (periodic_z) d.z -= lz * roundEven(d.z / lz);
            const float r2 = dot(d, d);
            if (r2 >= rc2) continue;
            if (record && count < capacity) Uints(pc.pairs).u[i * capacity + count] = j;
            ++count;
            if (r2 == 0.0) continue;  // coincident: no direction, no force
            const float r = sqrt(r2);
            const vec3 e = d / r;
            const float w = 1.0 - r / rc;
            const uint kl = ki * 2u + uint(xj.w);
            const float state_j = rng == DPD_RNG_PAPER ? vel.v[j].w : 0.0;
            const float theta = pair_noise(seed, rng, pc.step, id_i, ids.u[j], state_i, state_j);
            const float fc = a[kl] * w;
            const float f = fc - gamma[kl] * w * w * dot(e, vi - vt.v[j].xyz) + sigma[kl] * w * theta * inv_sqrt_dt;
            fixed_add(fx, f * e.x);
            fixed_add(fy, f * e.y);
            fixed_add(fz, f * e.z);
            virial_c += 0.5 * fc * r;  // r_ij . F_C,ij, half per side
            virial += 0.5 * f * r;
            if (tensor) {
              const vec3 diag = e * e, off = vec3(e.x * e.y, e.x * e.z, e.y * e.z);
              wc_diag += (0.5 * fc * r) * diag;
              wc_off += (0.5 * fc * r) * off;
              w_diag += (0.5 * f * r) * diag;
              w_off += (0.5 * f * r) * off;
              energy += 0.25 * fc * rc * w;  // a r_c w^2 / 2 per pair, half per side
            }
          }
        }
      }
    }
  }
  const float m = p.mass[ki];
  Vec4s(pc.force).v[i] = vec4(fixed_value(fx), fixed_value(fy), fixed_value(fz) - m * p.gravity, 0.0);
  Vec4s(pc.aux).v[i] = vec4(float(count), virial_c, virial, 0.0);
  if (tensor) {
    Vec4s t = Vec4s(pc.virial);
    t.v[4u * i] = vec4(wc_diag, energy);
    t.v[4u * i + 1u] = vec4(wc_off, 0.0);
    t.v[4u * i + 2u] = vec4(w_diag, 0.0);
    t.v[4u * i + 3u] = vec4(w_off, 0.0);
  }
}
