// SPDX-License-Identifier: MIT
#version 460
// The gate between the counting and the moving half of a compaction, one workgroup. It scans the
// tiles' counts in place into exclusive offsets (reduce-then-scan: the counts were the reduce step)
// and from the total writes what the next kernels need: the next list slot's count and the indirect
// dispatch arguments of the kernels that walk it. An empty list gives zero workgroups, so iterations
// recorded after the last useful one cost only empty dispatches: the loop ends on the GPU, without a
// host round trip.
//   LINK:  after an iteration's link. Also admits the next part (partial update) and decides to stop:
//          at the last recorded iteration, or as soon as the fallback is inevitable because some
//          bucket holds more survivors than the remaining iterations can place (each places one
//          element per bucket). Stopping hands the survivors (and any part not admitted yet) to the
//          fallback and zeroes the arguments of every later iteration.
//   MOVED: after resort's gather_moved: its count of moved elements (nothing to scan) becomes list
//          slot 1's, with the dispatch arguments of unlink, scatter and the first iteration.
//   BITS:  start of the fallback: the bits in which the leftover buckets differ (OR ^ AND).
//   SPLIT: one fallback pass: whether its bit moves the list, and if so the offsets of the clear ones.
#define PUSH_BUCKETS
#include "common/interface.h"
#include "buckets/buckets.glsl"

// The grid covering `groups` logical workgroups, as gpu::grid_for builds it on the host.
uvec3 grid_for(uint groups) {
  const uint mx = pc.max_x, my = pc.max_y;
  if (groups <= mx) return uvec3(groups, 1, 1);
  const uint layer = mx * my;  // both <= 65535: no overflow
  const uint z = groups / layer + (groups % layer != 0u ? 1u : 0u);
  const uint per_layer = (groups + z - 1) / z;
  const uint y = (per_layer + mx - 1) / mx;
  const uint x = (per_layer + y - 1) / y;
  return uvec3(x, y, z);
}

void write_args(Words control, uint word, uint groups) {
  const uvec3 grid = grid_for(groups);
  control.w[word + 0] = grid.x;
  control.w[word + 1] = grid.y;
  control.w[word + 2] = grid.z;
}

void write_slot(Words control, uint slot, uint count, uint admit_begin, uint admit_end) {
  control.w[slot_word(slot, BUCKET_SLOT_COUNT)] = count;
  control.w[slot_word(slot, BUCKET_SLOT_ADMIT_BEGIN)] = admit_begin;
  control.w[slot_word(slot, BUCKET_SLOT_ADMIT_END)] = admit_end;
  write_args(control, slot_word(slot, BUCKET_SLOT_ARGS), tiles_for(count) + tiles_for(admit_end - admit_begin));
}

// Exclusive prefix sums of blocks[0 .. tiles) in place; returns the total. Uniform in `tiles`.
uint scan_in_place(Words blocks, uint tiles) {
  const uint t = invocation_rank();  // the chunk's order agrees with the workgroup sum's
  uint carry = 0;
  for (uint base = 0; base < tiles; base += TILE) {
    uint v[ITEMS];
    uint mine = 0;
    for (uint k = 0; k < ITEMS; ++k) {
      const uint idx = base + t * ITEMS + k;
      v[k] = idx < tiles ? blocks.w[idx] : 0u;
      mine += v[k];
    }
    uint chunk_total;
    uint run = carry + workgroup_exclusive_scan(mine, chunk_total);
    for (uint k = 0; k < ITEMS; ++k) {
      const uint idx = base + t * ITEMS + k;
      if (idx < tiles) blocks.w[idx] = run;
      run += v[k];
    }
    carry += chunk_total;
  }
  return carry;
}

// OR of blocks[2i] and AND of blocks[2i + 1] over i < tiles. Uniform in `tiles`.
void reduce_bits(Words blocks, uint tiles, out uint any_bits, out uint all_bits) {
  const uint t = gl_LocalInvocationID.x;
  any_bits = 0u;
  all_bits = 0xffffffffu;
  for (uint base = 0; base < tiles; base += gl_WorkGroupSize.x) {
    uint o = 0u, a = 0xffffffffu;
    if (base + t < tiles) {
      o = blocks.w[2 * (base + t)];
      a = blocks.w[2 * (base + t) + 1];
    }
    workgroup_or_and(o, a);
    any_bits |= o;
    all_bits &= a;
  }
}

void main() {
  Words control = Words(pc.control), blocks = Words(pc.blocks);
  invocation_rank_init();
  const uint t = gl_LocalInvocationID.x;
  const uint other = pc.slot ^ 1u;
  const bool stopped = control.w[BUCKET_CONTROL_STOPPED] != 0u;
  const uint count = control.w[slot_word(pc.slot, BUCKET_SLOT_COUNT)];
  const uint leftover = control.w[BUCKET_CONTROL_LEFTOVER];
  const uint split_from = fallback_slot(control, false);
  const bool split_moves = ((control.w[BUCKET_CONTROL_VARYING] >> pc.bit) & 1u) != 0u;
  // Every invocation has read the control words before invocation 0 changes them: a write-after-read
  // of buffer memory, which barrier() alone (workgroup memory semantics) does not order.
  memoryBarrierBuffer();
  barrier();

  if (pc.mode == BUCKET_SCAN_LINK && stopped) {
    // An earlier iteration stopped: this one's compaction and the next one's kernels do nothing.
    if (t == 0) control.w[slot_word(other, BUCKET_SLOT_ARGS)] = 0u;
    return;
  }
  // The split passes' kernels get groups only for bits in which the leftover buckets differ.
  if (pc.mode == BUCKET_SCAN_BITS) {
    uint any_bits, all_bits;
    reduce_bits(blocks, tiles_for(leftover), any_bits, all_bits);
    if (t == 0) {
      const uint differing = leftover != 0u ? any_bits ^ all_bits : 0u;
      control.w[BUCKET_CONTROL_VARYING] = differing;
      write_args(control, BUCKET_CONTROL_SPLIT_COUNT_ARGS, (differing & 1u) != 0u ? tiles_for(leftover) : 0u);
    }
    return;
  }
  if (pc.mode == BUCKET_SCAN_SPLIT) {
    const uint total = scan_in_place(blocks, split_moves ? tiles_for(leftover) : 0u);
    if (t == 0) {
      control.w[BUCKET_CONTROL_FALLBACK_SLOT] = split_from;
      control.w[BUCKET_CONTROL_FALLBACK_MOVES] = split_moves ? 1u : 0u;
      control.w[BUCKET_CONTROL_ZEROS] = total;
      const uint differing = control.w[BUCKET_CONTROL_VARYING];
      const bool next_moves = pc.bit < 31u && ((differing >> (pc.bit + 1u)) & 1u) != 0u;
      write_args(control, BUCKET_CONTROL_SPLIT_MOVE_ARGS, split_moves ? tiles_for(leftover) : 0u);
      write_args(control, BUCKET_CONTROL_SPLIT_COUNT_ARGS, next_moves ? tiles_for(leftover) : 0u);
    }
    return;
  }

  const uint total = pc.mode == BUCKET_SCAN_MOVED ? control.w[BUCKET_CONTROL_MOVED] : scan_in_place(blocks, tiles_for(count));
  if (t != 0) return;
  if (has_address(pc.ids)) {
    const uint bad = control.w[BUCKET_CONTROL_BAD_ELEMENT];
    if (bad != 0u) control.w[BUCKET_CONTROL_BAD_ID] = Words(pc.ids).w[bad - 1u];
  }
  if (pc.mode == BUCKET_SCAN_MOVED) {
    write_slot(control, other, total, pc.n, pc.n);  // nothing admitted: resorts have no parts
    return;
  }

  // BUCKET_SCAN_LINK: the survivors plus the elements admitted with this list race next.
  const uint admitted = control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_END)] -
                        control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_BEGIN)];
  uint next_count = total + admitted;
  const uint placed = count - total;
  const uint next_part = control.w[BUCKET_CONTROL_NEXT_PART];
  if (count + admitted != 0u) control.w[BUCKET_CONTROL_ITERATIONS] += 1u;
  // The survivors lie in at most `placed` buckets (those that had racers), so if they outnumber
  // placed * iterations_left, one bucket holds more than the remaining iterations can place: the
  // fallback is inevitable, whatever partial update admits later (without overflow).
  const bool hopeless = count != 0u && pc.iterations_left != 0u &&
                        placed < (total + pc.iterations_left - 1u) / pc.iterations_left;
  if ((pc.flags & BUCKET_FLAG_LAST) != 0u || hopeless) {
    if (next_part < pc.n) {
      // Partial update: everything not admitted yet joins this iteration's survivors, appended by
      // this iteration's compaction (its admitted range ends at next_part: it grows to n).
      const uint admit_begin = control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_BEGIN)];
      control.w[slot_word(pc.slot, BUCKET_SLOT_ADMIT_END)] = pc.n;
      write_args(control, slot_word(pc.slot, BUCKET_SLOT_ARGS), tiles_for(count) + tiles_for(pc.n - admit_begin));
      control.w[BUCKET_CONTROL_NEXT_PART] = pc.n;
      next_count += pc.n - next_part;
    }
    control.w[BUCKET_CONTROL_STOPPED] = 1u;
    control.w[BUCKET_CONTROL_LEFTOVER] = next_count;
    control.w[BUCKET_CONTROL_FALLBACK_SLOT] = other;
    control.w[BUCKET_CONTROL_FALLBACK_MOVES] = 0u;
    write_args(control, BUCKET_CONTROL_FALLBACK_ARGS, tiles_for(next_count));
    write_slot(control, other, next_count, pc.n, pc.n);
    control.w[slot_word(other, BUCKET_SLOT_ARGS)] = 0u;  // no later iteration walks it
    return;
  }
  uint admit_begin = next_part, admit_end = next_part;
  if (pc.part != 0u && next_part < pc.n) {
    // Section 2.1: the next part joins once few elements of the admitted ones are left; late in the
    // recorded iterations everything left joins, so nothing is outstanding when they run out.
    if ((pc.flags & BUCKET_FLAG_ADMIT_ALL) != 0u) admit_end = pc.n;
    else if (next_count < pc.admit_below) admit_end = min(pc.n, next_part + pc.part);
    control.w[BUCKET_CONTROL_NEXT_PART] = admit_end;
  }
  write_slot(control, other, next_count, admit_begin, admit_end);
}
