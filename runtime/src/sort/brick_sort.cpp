// SPDX-License-Identifier: MIT
#include "sort/brick_sort.hpp"

#include "sort/key_spec.hpp"
#include "vksort/error.hpp"

namespace vksort::algo {

using shader::BrickPush;
using shader::GatePush;
static_assert(sizeof(BrickPush) == 40 && sizeof(GatePush) == 40, "push constants must match the GLSL std430 layout");

namespace {
// Shared memory per key: merge_split holds two tiles (key + value each); tile_sort one tile of key,
// position and value. The larger decides.
uint32_t shared_per_key(const SortOptions& o) {
  const uint32_t kb = key_bytes(o.key), vb = o.value_bytes;
  return std::max(2 * (kb + vb), kb + 4 + vb);
}
constexpr uint32_t fixed_shared = 64;  // s_in_order and what the compiler adds
constexpr uint32_t max_tile = 4096;
}  // namespace

BrickSort::BrickSort(gpu::Context& ctx, const SortOptions& options)
    : ctx_(ctx),
      options_(options),
      shape_(choose_tile_shape(ctx.info, options.tuning, shared_per_key(options), fixed_shared, 256, max_tile, "brick sort")) {
  const std::initializer_list<gpu::SpecValue> spec = {
      {SPEC_KEY_KIND, key_kind(options.key)},
      {SPEC_DESCENDING, options.order == Order::descending},
      {SPEC_HAS_VALUES, options.value_bytes == 4},
      {SPEC_ITEMS_PER_THREAD, shape_.items_per_thread}};
  const uint32_t wg = shape_.workgroup_size;
  if (options.brick_variant == BrickVariant::blocks) {
    tile_sort_ = gpu::Kernel(ctx, keyed_shader("brick_tile_sort", options.key), wg, spec, sizeof(BrickPush));
    merge_split_ = gpu::Kernel(ctx, keyed_shader("brick_merge_split", options.key), wg, spec, sizeof(BrickPush));
  } else {
    pairs_phase_ = gpu::Kernel(ctx, keyed_shader("brick_pairs_phase", options.key), wg, spec, sizeof(BrickPush));
  }
  gate_ = gpu::Kernel(ctx, "brick_round_gate", 1, {}, sizeof(GatePush));
}

VkDeviceSize BrickSort::scratch_bytes(uint64_t) const { return BRICK_CONTROL_WORDS * sizeof(uint32_t); }
uint32_t BrickSort::control_words() const { return BRICK_CONTROL_WORDS; }

void BrickSort::check_size(uint64_t n) const {
  if (options_.brick_variant == BrickVariant::pairs && n > max_brick_pairs_keys)
    throw Error("element-wise brick sort records one round per two keys and is limited to " +
                std::to_string(max_brick_pairs_keys) + " keys (got " + std::to_string(n) + "); use the block variant");
}

uint32_t BrickSort::rounds_for(uint32_t n) const {
  if (n < 2) return 0;
  if (options_.brick_variant == BrickVariant::pairs) return (n + 1) / 2;
  const uint32_t tiles = (n + tile() - 1) / tile();
  return tiles < 2 ? 0 : (tiles + 1) / 2;
}

void BrickSort::record(gpu::Recorder& rec, const SortTarget& t) const {
  if (t.n < 2) return;
  const bool blocks = options_.brick_variant == BrickVariant::blocks;
  const uint32_t unit = blocks ? tile() : 1;  // what one phase pairs up: tiles or keys
  const uint32_t units = (t.n + unit - 1) / unit;
  const uint32_t even_pairs = units / 2, odd_pairs = (units - 1) / 2;
  // Workgroups per phase: one per tile pair, or one per workgroup_size key pairs.
  const uint32_t per_group = blocks ? 1 : shape_.workgroup_size;
  const uint32_t even_groups = (even_pairs + per_group - 1) / per_group;
  const uint32_t odd_groups = (odd_pairs + per_group - 1) / per_group;

  BrickPush push{};
  push.keys = t.keys;
  push.values = t.values;
  push.control = t.scratch_address;
  push.n = t.n;

  rec.fill(t.scratch, t.scratch_offset, scratch_bytes(t.n), 0);
  if (blocks) {
    rec.phase("tile_sort");
    push.group_count = units;
    rec.dispatch(tile_sort_, push, units);
    rec.compute_barrier();
  }
  const uint32_t rounds = rounds_for(t.n);
  if (rounds == 0) return;
  rec.phase(blocks ? "merge_rounds" : "pair_rounds");
  const gpu::Grid even = gpu::grid_for(ctx_, even_groups), odd = gpu::grid_for(ctx_, odd_groups);
  const gpu::Kernel& phase_kernel = blocks ? merge_split_ : pairs_phase_;
  for (uint32_t r = 0; r < rounds; ++r) {
    GatePush gate{};
    gate.control = t.scratch_address;
    gate.force = r == 0;
    gate.even_x = even.x, gate.even_y = even.y, gate.even_z = even.z;
    gate.odd_x = odd.x, gate.odd_y = odd.y, gate.odd_z = odd.z;
    rec.dispatch(gate_, gate, 1);
    rec.compute_barrier();
    push.parity = 0;
    push.group_count = even_groups;
    rec.dispatch_indirect(phase_kernel, push, t.scratch, t.scratch_offset + BRICK_CONTROL_EVEN_ARGS * 4);
    rec.compute_barrier();
    if (odd_groups) {
      push.parity = 1;
      push.group_count = odd_groups;
      rec.dispatch_indirect(phase_kernel, push, t.scratch, t.scratch_offset + BRICK_CONTROL_ODD_ARGS * 4);
      rec.compute_barrier();
    }
  }
}

std::vector<std::pair<std::string, double>> BrickSort::facts(const uint32_t* control, uint32_t n) const {
  return {{"tile", double(options_.brick_variant == BrickVariant::blocks ? tile() : 1)},
          {"rounds_recorded", double(rounds_for(n))},
          {"rounds_run", double(n < 2 ? 0 : control[BRICK_CONTROL_ROUNDS])}};
}

}  // namespace vksort::algo
