// SPDX-License-Identifier: MIT
// mixing_layer.hpp — how far the two species have interpenetrated along z (Rayleigh-Taylor): the
// heavy fraction of horizontal slabs, and the height range over which it lies between 5% and 95%.
#pragma once

#include <vector>

#include "model.hpp"

namespace particles {

struct MixingLayer {
  double slab = 0;                    // slab height
  std::vector<double> heavy_fraction;  // per slab, bottom first (-1 where a slab is empty)
  // The lowest slab whose heavy fraction exceeds 5% to the highest below 95%, both included (in z):
  // the thickness of the layer where the fluids mix. Slabs that are all light (bottom) or all heavy
  // (top) are outside it; a flat sharp interface gives about one slab.
  double bottom = 0, top = 0;
  double thickness() const { return top - bottom; }
};

// From positions (x y z species per particle), in slabs of height about `slab` (r_c / 2 by default).
MixingLayer mixing_layer(const Model& m, const std::vector<float>& pos, double slab = 0);

}  // namespace particles
