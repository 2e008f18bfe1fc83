#version 460
// DPD forces by gather: particle i walks the bucket lists of the 27 cells around its own (periodic
// in x and y, and in z when periodic_z; walls otherwise) and sums F_C + F_D + F_R over every j within
// r_c (Groot & Warren; seed 002, 4.1, with w_D = w_R^2 and w_R = 1 - r/r_c):
//   F_ij = [a_kl w - gamma_kl w^2 (e.v_ij) + sigma_kl w Theta_ij / sqrt(dt)] e_ij,  e_ij = (r_i - r_j)/r
// Each pair is evaluated from both sides. Every operation in the pair term flips sign exactly when i
// and j swap, and Theta_ij == Theta_ji, so F_ji == -F_ij bit for bit; the sum is accumulated in 64-bit
// fixed point (2^-32 units), where addition is exact and order-free. So total force is zero exactly
// (momentum is conserved to the rounding of the velocity update) and the result does not depend on
// the order of the lists, which differs from run to run with vksort's scatter build: the run stays
// deterministic. No atomics.
#include "dpd.glsl"

// 64-bit two's complement fixed point held as (lo, hi) words, so no shaderInt64 is needed.
void fixed_add(inout uvec2 acc, float f) {
  const float m = abs(f);
  const float whole = floor(m);
  uint hi = uint(whole);
  uint lo = uint((m - whole) * 4294967296.0);  // m - whole is exact; scaling by 2^32 is exact
  if (f < 0.0) {  // negate the magnitude, so the fixed value of -f is exactly minus that of f
    lo = ~lo + 1u;
    hi = ~hi + (lo == 0u ? 1u : 0u);
  }
  uint carry;
  acc.x = uaddCarry(acc.x, lo, carry);
  acc.y += hi + carry;
}
float fixed_value(uvec2 acc) { return float(int(acc.y)) + float(acc.x) * (1.0 / 4294967296.0); }

// Neighbour cell along a periodic axis (needs >= 3 cells, checked on the host, so the 27 cells are distinct).
uint wrap_cell(int c, uint cells) { return uint(c < 0 ? c + int(cells) : (c >= int(cells) ? c - int(cells) : c)); }

void main() {
  Params p = Params(pc.params);
  const uint i = item_index();
  if (i >= p.n) return;
  Vec4s pos = Vec4s(pc.pos);
  Vec4s vt = Vec4s(pc.vtilde);
  Uints head = Uints(pc.head);
  Uints next = Uints(pc.next);
  const bool record = pc.pairs != uvec2(0);
  const vec4 xi = pos.v[i];
  const vec3 vi = vt.v[i].xyz;
  const uint ki = uint(xi.w);
  const float state_i = p.rng == DPD_RNG_PAPER ? Vec4s(pc.vel).v[i].w : 0.0;
  const float rc2 = p.rc * p.rc;

  uvec2 fx = uvec2(0), fy = uvec2(0), fz = uvec2(0);
  uint count = 0;
  float virial_c = 0.0, virial = 0.0;
  const uint c = Uints(pc.cell).u[i];
  if (c != DPD_NULL) {
    const int cx = int(c % p.nx), cy = int((c / p.nx) % p.ny), cz = int(c / (p.nx * p.ny));
    for (int dz = -1; dz <= 1; ++dz) {
      int z = cz + dz;
      if (p.periodic_z != 0u) {
        z = int(wrap_cell(z, p.nz));
      } else if (z < 0 || z >= int(p.nz)) {
        continue;
      }
      for (int dy = -1; dy <= 1; ++dy) {
        const uint y = wrap_cell(cy + dy, p.ny);
        for (int dx = -1; dx <= 1; ++dx) {
          const uint cell = wrap_cell(cx + dx, p.nx) + p.nx * (y + p.ny * uint(z));
          uint j = head.u[cell];
          for (uint guard = 0; j != DPD_NULL && guard < p.n; ++guard, j = next.u[j]) {
            if (j == i) continue;
            const vec4 xj = pos.v[j];
            vec3 d = xi.xyz - xj.xyz;
            d.x -= p.lx * roundEven(d.x / p.lx);  // minimum image; roundEven is odd-symmetric
            d.y -= p.ly * roundEven(d.y / p.ly);
            if (p.periodic_z != 0u) d.z -= p.lz * roundEven(d.z / p.lz);
            const float r2 = dot(d, d);
            if (r2 >= rc2) continue;
            if (record && count < p.pair_capacity) Uints(pc.pairs).u[i * p.pair_capacity + count] = j;
            ++count;
            if (r2 == 0.0) continue;  // coincident: no direction, no force
            const float r = sqrt(r2);
            const vec3 e = d / r;
            const float w = 1.0 - r / p.rc;
            const uint kl = ki * 2u + uint(xj.w);
            const float state_j = p.rng == DPD_RNG_PAPER ? Vec4s(pc.vel).v[j].w : 0.0;
            const float theta = pair_noise(p, p.rng, pc.step, i, j, state_i, state_j);
            const float fc = p.a[kl] * w;
            const float f = fc - p.gamma[kl] * w * w * dot(e, vi - vt.v[j].xyz) + p.sigma[kl] * w * theta * p.inv_sqrt_dt;
            fixed_add(fx, f * e.x);
            fixed_add(fy, f * e.y);
            fixed_add(fz, f * e.z);
            virial_c += 0.5 * fc * r;  // r_ij . F_C,ij, half per side
            virial += 0.5 * f * r;
          }
        }
      }
    }
  }
  const float m = p.mass[ki];
  Vec4s(pc.force).v[i] = vec4(fixed_value(fx), fixed_value(fy), fixed_value(fz) - m * p.gravity, 0.0);
  Vec4s(pc.aux).v[i] = vec4(float(count), virial_c, virial, 0.0);
}
