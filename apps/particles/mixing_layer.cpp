// SPDX-License-Identifier: MIT
#include "mixing_layer.hpp"

#include <algorithm>
#include <cmath>

namespace particles {

MixingLayer mixing_layer(const Model& m, const std::vector<float>& pos, double slab) {
  if (slab <= 0) slab = 0.5 * m.rc;
  const int slabs = std::max(1, int(std::floor(m.lz / slab)));
  MixingLayer out;
  out.slab = double(m.lz) / slabs;
  std::vector<double> heavy(slabs, 0.0), all(slabs, 0.0);
  for (size_t i = 0; i + 3 < pos.size(); i += 4) {
    const int k = std::clamp(int(pos[i + 2] / out.slab), 0, slabs - 1);
    all[k] += 1;
    heavy[k] += pos[i + 3] != 0.0f ? 1 : 0;
  }
  out.heavy_fraction.resize(slabs);
  int lo = slabs, hi = -1;
  for (int k = 0; k < slabs; ++k) {
    const double f = all[k] > 0 ? heavy[k] / all[k] : -1.0;
    out.heavy_fraction[k] = f;
    if (f < 0) continue;
    if (f > 0.05) lo = std::min(lo, k);
    if (f < 0.95) hi = std::max(hi, k);
  }
  if (lo <= hi) {
    out.bottom = lo * out.slab;
    out.top = (hi + 1) * out.slab;
  }
  return out;
}

}  // namespace particles
