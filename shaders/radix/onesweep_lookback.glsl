// SPDX-License-Identifier: MIT
// The single-pass radix sort's tile bookkeeping, shared by its rankings (onesweep_columns.comp,
// onesweep_ballot.comp): taking a tile id, publishing the tile's digit counts, and the look-back with
// Decoupled Fallback (Smith, Levien & Owens, SPAA 2025) that turns them into the tile's offsets.
//
// Tile ids come from an atomic counter, so a tile's predecessors had started when it starts. Still,
// Vulkan promises no forward progress between workgroups: a started workgroup may not run again until
// this one ends (lavapipe, Apple and Mali GPUs schedule so), and spinning on it would hang. So a
// workgroup that finds a predecessor's state unpublished for ONESWEEP_SPINS reads looks no longer: it
// counts that tile's keys itself (they are in this pass's source buffer, which no one writes during the
// pass), uses that as the tile's aggregate, offers it to others (atomicMax: never over a newer state)
// and goes on to the tile before. No wait is unbounded: at worst it counts every tile before it.
//
// Each state word carries its flag and count together, so relaxed device-scope atomics suffice: no
// other memory is published through it.
//
// Two walks, by the workgroup's shape. Where each invocation owns at most one digit (GPUs: 256
// invocations or more for 256 digits), every digit walks back on its own, with no workgroup barrier
// until it is done or gives up waiting (onesweep_look_back_per_digit): a round costs one read's
// latency and no digit waits for another. Where invocations own several digits (CPU drivers' narrow
// workgroups), all digits walk in lockstep a round at a time (onesweep_look_back_lockstep), which keeps
// every invocation's loops short: lavapipe ends an invocation's loops after 65535 iterations in all.
//
// Include after keys.glsl and radix_digits.glsl, with RADIX, RADIX_BITS, WG and TILE defined, and set
// the g_* globals below before calling onesweep_look_back().
#ifndef VKSORT_ONESWEEP_LOOKBACK_GLSL
#define VKSORT_ONESWEEP_LOOKBACK_GLSL

#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_control_flow_attributes : require

// Rounds that find the nearest unread predecessor unpublished before counting its keys instead.
const uint ONESWEEP_SPINS = 64u;

// Predecessor tiles each round after the first reads per digit, nearest first (the runtime: several on
// GPUs, whose invocations own one digit each; 1 on CPU drivers, where every read is a loop over the
// lanes). The reads of a round are in flight together, so a look-back that passes many aggregate-only
// tiles takes a round per WINDOW of them instead of one per tile.
layout(constant_id = SPEC_ONESWEEP_WINDOW) const uint WINDOW = 1u;
// FIRST_WINDOW (VKSORT_LOOKBACK_FIRST_WINDOW=1, an experiment for GPU runs): the per-digit walk's first
// round reads a whole window too, not the nearest predecessor alone. Reading one first saves traffic
// where that predecessor is mostly inclusive already; on an H200 it mostly was not (3.6-4.5 rounds a
// tile at 2^20-2^28, window 8: bench/results/nvidia-h200_2026-11-29-session33), so the single read is
// a round of latency that a whole window would save. The reads past the first inclusive state are the
// cost (at most WINDOW - 1 a digit, as in any later round).
layout(constant_id = SPEC_ONESWEEP_FIRST_WINDOW) const bool FIRST_WINDOW = false;
const uint LOOKBACK_DIGITS = (RADIX + WG - 1u) / WG;  // digits per invocation: t, t + WG, ...
// The lockstep walk's loops over the invocation's digits k (d = t + k * WG, k < LOOKBACK_DIGITS) take
// them LOOKBACK_GROUP at a time: a loop over groups, each unrolled. Unrolled whole, the three loops
// over lavapipe's 32 digits an invocation (8-invocation workgroups) made the pass kernel take its
// compiler 3.3 s (LLVM 15, at a new Sorter's first sort), in groups of 4 0.86 s, one digit at a time
// 0.36 s, and no pass ran measurably slower. But each group is an iteration of lavapipe's shared loop
// budget (loop_budget.hpp): with groups of 4, 17 a round at 32 digits and 9 a spinning round. The
// members past LOOKBACK_DIGITS have d >= RADIX. GPUs' default shapes walk per digit instead.
const uint LOOKBACK_GROUP = LOOKBACK_DIGITS < 4u ? LOOKBACK_DIGITS : 4u;
const uint LOOKBACK_GROUPED_DIGITS = (LOOKBACK_DIGITS + LOOKBACK_GROUP - 1u) / LOOKBACK_GROUP * LOOKBACK_GROUP;
#define FOR_EACH_LOOKBACK_DIGIT(k)                                                                         \
  [[dont_unroll]] for (uint k##_group = 0u; k##_group < LOOKBACK_DIGITS; k##_group += LOOKBACK_GROUP)     \
    [[unroll]] for (uint k##_member = 0u, k = k##_group; k##_member < LOOKBACK_GROUP; ++k##_member, ++k)

#include "radix/onesweep_bound.glsl"

// This pass: its control words, source keys (encoded or not), digit and state regions.
Words g_control;
uint g_pass_words;  // index of this pass's ONESWEEP_PASS_* words
Keys g_src;
bool g_encoded;
uint g_shift, g_bits, g_n;

shared uint s_tile;            // this workgroup's tile id
shared uint s_total[RADIX];    // this tile's keys of each digit (the ranking fills it)
shared uint s_excl[RADIX];     // keys of each digit in all earlier tiles (the look-back's result)
shared uint s_found[RADIX];    // 1 once the digit's look-back reached an inclusive state
shared uint s_counted[RADIX];  // fallback: the predecessor's keys of each digit, counted here
shared uint s_advance;         // lockstep: predecessors every digit still looking read published this round
shared uint s_looking;         // lockstep: digits whose look-back has not reached an inclusive state yet
shared uint s_stuck;           // per digit: 1 + the nearest tile a digit gave up waiting for (0: none)
shared uint s_rounds;          // per digit: the most rounds any digit took
shared uint s_spin_rounds;     // per digit: the most rounds any digit found its predecessor unpublished

// One load, then the encoding where the source is the caller's buffer (for unsigned ascending keys
// none: the select folds away); a load in each arm of the choice stayed two loads and a branch per key
// on AMD's compiler.
Key onesweep_source_key(uint i) {
#if BOUND_BUFFERS
  const Key raw = b_keys[g_encoded ? BOUND_SCRATCH : BOUND_CALLER].k[i];
#else
  const Key raw = g_src.k[i];
#endif
  return g_encoded ? raw : encode_key(raw);
}
uint onesweep_digit(Key k) { return key_digit(k, g_shift, g_bits); }

// Takes the tile this workgroup sorts into s_tile and resets the per-digit look-back's words, for the
// caller's next barrier to make visible (then onesweep_tile() reads the tile id: uniform). Nothing
// else touches those words before the look-back, so its walk needs no barrier of its own to start.
void onesweep_take_tile_begin() {
  if (gl_LocalInvocationIndex == 0u) {
    s_tile = atomicAdd(g_control.w[g_pass_words + ONESWEEP_PASS_TILE_COUNTER], 1u);
    s_stuck = 0u, s_rounds = 0u, s_spin_rounds = 0u;
  }
}
uint onesweep_tile() { return s_tile; }
// Both, with a barrier between.
uint onesweep_take_tile() {
  onesweep_take_tile_begin();
  barrier();
  return onesweep_tile();
}

uint state_load(Words s, uint i) {
  return atomicLoad(s.w[i], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
void state_store(Words s, uint i, uint v) {
  atomicStore(s.w[i], v, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// The pretend mode (DeviceOptions::pretend.lookback_stall_percent): a fixed pseudo-random share of
// (tile, predecessor) pairs reads as unpublished, so the fallback runs at that rate.
bool pretend_stall(uint tile, uint pred) {
  if (pc.stall_percent == 0u) return false;
  uint h = tile * 0x9e3779b1u ^ (pred + 0x7f4a7c15u) * 0x85ebca77u ^ pc.pass * 0xc2b2ae3du;
  h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
  return h % 100u < pc.stall_percent;
}

// The keys of a tile each invocation counts in a fallback. CPU drivers' tiles give an invocation
// thousands of keys, and lavapipe ends an invocation's loops after 65535 iterations in all, silently
// (loop_budget.hpp). A look-back falls back once per predecessor it finds unpublished, i.e. at most once
// per other workgroup in flight (LP_NUM_THREADS - 1 on lavapipe, whose workers run one workgroup each to
// its end; Mesa 22 runs at most 32: LP_NUM_THREADS=64 started 32 llvmpipe threads). Counted one key per
// iteration (2048 at lavapipe's default u32 tile, 16384 keys), a chain of 30 fallbacks sorted right and
// one of 39 did not: the look-back's loops stopped early (pretend stalls, which skip the spinning; a
// real fallback also spins 64 rounds of 9 iterations first, so some 23 were too many). So where an
// invocation counts more than 32 keys, one iteration counts FALLBACK_GROUP of them, unrolled (its bound
// a literal: one derived from the specialization constants made glslc's optimizer fail): with 8, about
// 310 iterations a fallback, and a chain of 179 sorted right (219 did not; with the spinning, some 70
// would fit: twice what 32 threads can make), for about 0.1 s more of lavapipe's compile time per pass
// kernel (groups of 16: 0.2 s, of 4: 0.05 s). GPUs' 32 or fewer keys per invocation count one per
// iteration, as before.
const uint FALLBACK_KEYS = TILE / WG;
const uint FALLBACK_GROUP = 8u;

// Counts tile `pred`'s keys of each digit into s_counted. Barriers inside: call in uniform control flow.
void count_predecessor(uint pred) {
  const uint t = gl_LocalInvocationID.x;
  for (uint d = t; d < RADIX; d += WG) s_counted[d] = 0u;
  barrier();
  const uint base = pred * TILE;
  if (FALLBACK_KEYS <= 32u) {  // uniform: a specialization constant
    for (uint j = 0u; j < FALLBACK_KEYS; ++j) {
      const uint i = base + j * WG + t;
      if (i < g_n) atomicAdd(s_counted[onesweep_digit(onesweep_source_key(i))], 1u);
    }
  } else {
    for (uint j0 = 0u; j0 < FALLBACK_KEYS; j0 += FALLBACK_GROUP) {
      [[unroll]] for (uint u = 0u; u < FALLBACK_GROUP; ++u) {
        const uint i = base + (j0 + u) * WG + t;
        if (j0 + u < FALLBACK_KEYS && i < g_n) atomicAdd(s_counted[onesweep_digit(onesweep_source_key(i))], 1u);
      }
    }
  }
  barrier();
}

// Publishes this tile's digit counts s_total as its aggregate state in `state` (its region; tile 0:
// inclusive). Call once s_total is complete and visible, before onesweep_look_back.
void publish_aggregate(uint tile, Words state) {
  for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG)
    state_store(state, tile * RADIX + d, s_total[d] | (tile == 0u ? ONESWEEP_FLAG_INCLUSIVE : ONESWEEP_FLAG_AGGREGATE));
}

// After the look-back: publishes the inclusive state (unless each digit already did) and clears this
// tile's row of `next_state` (the region the next pass that runs uses), for the digits this invocation
// owns.
void publish_inclusive(uint tile, Words state, Words next_state, bool published) {
  for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG) {
    if (tile != 0u && !published) state_store(state, tile * RADIX + d, (s_excl[d] + s_total[d]) | ONESWEEP_FLAG_INCLUSIVE);
    next_state.w[tile * RADIX + d] = 0u;
  }
}

// The slowest digit's rounds, for the pass's facts (onesweep_count_rounds). Every invocation's atomics
// on the same two words serialise (768 a tile at 384 invocations); where the includer defines
// ONESWEEP_FULL_SUBGROUP_MAX (it requires full subgroups and has subgroup shuffles, FULL_SUBGROUPS) the
// subgroup takes its largest by log2(subgroup size) shuffles first and one lane adds it.
void onesweep_note_rounds(uint rounds, uint spin_rounds) {
#ifdef ONESWEEP_FULL_SUBGROUP_MAX
  if (FULL_SUBGROUPS) {
    [[unroll]] for (uint step = 1u; step < 128u; step <<= 1u) {
      if (step < gl_SubgroupSize) {  // uniform
        rounds = max(rounds, subgroupShuffleXor(rounds, step));
        spin_rounds = max(spin_rounds, subgroupShuffleXor(spin_rounds, step));
      }
    }
    if (subgroupElect()) {
      atomicMax(s_rounds, rounds);
      if (spin_rounds != 0u) atomicMax(s_spin_rounds, spin_rounds);
    }
    return;
  }
#endif
  atomicMax(s_rounds, rounds);
  atomicMax(s_spin_rounds, spin_rounds);
}

// Every digit on its own (LOOKBACK_DIGITS == 1: invocation t owns digit t). A digit reads its nearest
// unread predecessor (later rounds, and the first where FIRST_WINDOW asks: WINDOW of them, in flight
// together), adds the published counts up to the first unpublished or inclusive state, and stops at an
// inclusive one, publishing its own inclusive state at once: a successor's digit waits on this digit's
// walk, not on the slowest one's and a barrier (Onesweep's threads publish so too). A digit whose nearest
// predecessor stays unpublished for ONESWEEP_SPINS rounds (at once when pretending) gives up; after
// one barrier, if any did, the workgroup counts the nearest tile given up on (Decoupled Fallback),
// the digits waiting on it take that count, and the waiting digits walk on. In the common case the
// whole look-back has one barrier.
void onesweep_look_back_per_digit(uint tile, Words state) {
  const uint d = gl_LocalInvocationID.x;
  // (s_stuck and the round counts were reset when the tile was taken.)
  uint excl = 0u;
  uint pred = tile;  // this digit's predecessors from pred - 1 down are unread
  bool found = d >= RADIX || tile == 0u;
  uint rounds = 0u, spin_rounds = 0u;
  bool published = false;  // this digit's inclusive state
  uint seen[WINDOW];
  while (true) {  // uniform: once, and once more after each fallback
    uint idle = 0u;
    while (!found) {
      ++rounds;
      // pred >= 1 here: tile 0's state is inclusive, so a digit that passes it is done.
      const uint span = min(rounds == 1u && !FIRST_WINDOW ? 1u : WINDOW, pred);
      [[unroll]] for (uint j = 0u; j < WINDOW; ++j) {
        const uint p = pred - 1u - j;
        if (j < span) seen[j] = pretend_stall(tile, p) ? 0u : state_load(state, p * RADIX + d);
      }
      uint take = 0u;
      bool open = true;
      [[unroll]] for (uint j = 0u; j < WINDOW; ++j) {
        const uint v = seen[j];
        if (!open || j >= span || v < ONESWEEP_FLAG_AGGREGATE) {
          open = false;
          continue;
        }
        excl += v & ONESWEEP_COUNT_MASK;
        take = j + 1u;
        if ((v & ONESWEEP_FLAG_INCLUSIVE) != 0u) found = true, open = false;
      }
      pred -= take;
      if (found) break;
      if (take != 0u) {
        idle = 0u;
        continue;
      }
      if (pretend_stall(tile, pred - 1u) || ++idle >= ONESWEEP_SPINS) break;
      ++spin_rounds;
    }
    if (found && !published) {
      if (tile != 0u && d < RADIX) state_store(state, tile * RADIX + d, (excl + s_total[d]) | ONESWEEP_FLAG_INCLUSIVE);
      published = true;
    }
    if (!found) atomicMax(s_stuck, pred);
    // Every digit is done or has given up.
    barrier();
    const uint stuck = s_stuck;
    if (stuck == 0u) break;
    // Decoupled Fallback: count the predecessor's keys instead of waiting for it.
    count_predecessor(stuck - 1u);
    if (!found && pred == stuck) {
      const uint flag = stuck == 1u ? ONESWEEP_FLAG_INCLUSIVE : ONESWEEP_FLAG_AGGREGATE;
      atomicMax(state.w[(stuck - 1u) * RADIX + d], s_counted[d] | flag);
      excl += s_counted[d];
      pred -= 1u;
      found = stuck == 1u;
    }
    if (d == 0u) {
      s_stuck = 0u;
      atomicAdd(g_control.w[ONESWEEP_CONTROL_FALLBACKS], 1u);
    }
    // Everyone read s_stuck and s_counted before the next round sets them.
    barrier();
  }
  // Digit d's result, for its own invocation (others: after the caller's barrier).
  if (d < RADIX) s_excl[d] = excl;
  onesweep_note_rounds(rounds, spin_rounds);
}

// All digits walk back together, a round at a time: each looking digit reads the next WINDOW (first
// round: 1) predecessors, pred - 1, pred - 2, ... A digit that meets an inclusive state before any
// unpublished one is done. The others all take the predecessors that every one of them read published
// (s_advance: aggregates only, so the sums stay exact), and the next round starts after those. When
// that is none, the nearest predecessor is unpublished for some digit: the round spins, and after
// ONESWEEP_SPINS such rounds (at once when pretending) the workgroup counts that tile itself.
// Returns the tile's rounds and spin rounds.
uvec2 onesweep_look_back_lockstep(uint tile, Words state) {
  const uint t = gl_LocalInvocationID.x;
  for (uint d = t; d < RADIX; d += WG) {
    s_excl[d] = 0u;
    s_found[d] = 0u;
  }
  if (t == 0u) s_looking = tile == 0u ? 0u : RADIX;
  // s_looking, s_excl and s_found are set.
  barrier();
  uint pred = tile;  // predecessors from pred - 1 down are unread (uniform)
  uint spins = 0u, rounds = 0u, spin_rounds = 0u;
  uint seen[LOOKBACK_GROUPED_DIGITS * WINDOW];  // this round's reads of the invocation's digits
  while (s_looking != 0u) {
    ++rounds;
    // The first round reads the nearest predecessor only: it is often inclusive already, and the rest
    // of a window would be traffic for nothing. At least 1: tile 0's state is inclusive, so no digit
    // still looks once pred reaches 0.
    const uint span = min(rounds == 1u ? 1u : WINDOW, pred);
    if (t == 0u) s_advance = span;
    // The reset is visible, and everyone read the previous round's s_advance and s_looking.
    barrier();
    FOR_EACH_LOOKBACK_DIGIT(k) {
      const uint d = t + k * WG;
      if (d >= RADIX || s_found[d] != 0u) continue;
      // Loops over the window run WINDOW times without breaks, so compilers unroll them: registers,
      // and none of lavapipe's shared loop budget (loop_budget.hpp).
      [[unroll]] for (uint j = 0u; j < WINDOW; ++j) {
        const uint p = pred - 1u - j;
        if (j < span) seen[k * WINDOW + j] = pretend_stall(tile, p) ? 0u : state_load(state, p * RADIX + d);
      }
      uint published = span;  // reads before the first unpublished one
      bool ends = false;      // an inclusive state comes first: the digit ends this round
      [[unroll]] for (uint j = 0u; j < WINDOW; ++j) {
        const uint v = seen[k * WINDOW + j];
        const bool open = j < published && !ends;
        if (open && v < ONESWEEP_FLAG_AGGREGATE) published = j;
        else if (open && (v & ONESWEEP_FLAG_INCLUSIVE) != 0u) ends = true;
      }
      if (!ends) atomicMin(s_advance, published);
    }
    // Every digit's reads are in.
    barrier();
    uint advance = s_advance;
    if (advance == 0u) {
      const bool stall = pretend_stall(tile, pred - 1u);
      if (!stall && ++spins < ONESWEEP_SPINS) {
        ++spin_rounds;
        // Everyone read s_advance before the next round resets it.
        barrier();
        continue;
      }
      // Decoupled Fallback: count the predecessor's keys instead of waiting for it.
      count_predecessor(pred - 1u);
      const uint flag = pred == 1u ? ONESWEEP_FLAG_INCLUSIVE : ONESWEEP_FLAG_AGGREGATE;
      FOR_EACH_LOOKBACK_DIGIT(k) {
        const uint d = t + k * WG;
        if (d >= RADIX || s_found[d] != 0u) continue;
        // Keep what was read where it is inclusive (unless pretending): it ends this digit's search.
        if ((seen[k * WINDOW] & ONESWEEP_FLAG_INCLUSIVE) != 0u && !stall) continue;
        seen[k * WINDOW] = s_counted[d] | flag;
        atomicMax(state.w[(pred - 1u) * RADIX + d], s_counted[d] | flag);
      }
      if (t == 0u) atomicAdd(g_control.w[ONESWEEP_CONTROL_FALLBACKS], 1u);
      advance = 1u;
    }
    // Each digit takes the predecessors up to its first inclusive state where every one before it is
    // published, else the common advance.
    FOR_EACH_LOOKBACK_DIGIT(k) {
      const uint d = t + k * WG;
      if (d >= RADIX || s_found[d] != 0u) continue;
      uint take = advance, published = span;
      bool ends = false;
      [[unroll]] for (uint j = 0u; j < WINDOW; ++j) {
        const uint v = seen[k * WINDOW + j];
        const bool open = j < published && !ends;
        if (open && v < ONESWEEP_FLAG_AGGREGATE) published = j;
        else if (open && (v & ONESWEEP_FLAG_INCLUSIVE) != 0u) {
          ends = true;
          take = j + 1u;
        }
      }
      uint sum = 0u;
      [[unroll]] for (uint j = 0u; j < WINDOW; ++j)
        if (j < take) sum += seen[k * WINDOW + j] & ONESWEEP_COUNT_MASK;
      s_excl[d] += sum;
      if (ends) {
        s_found[d] = 1u;
        atomicAdd(s_looking, uint(-1));
      }
    }
    pred -= advance;
    spins = 0u;
    // s_looking is final for this round.
    barrier();
  }
  return uvec2(rounds, spin_rounds);
}

// Looks back until every digit has found an inclusive state, leaves the keys of each digit in earlier
// tiles in s_excl, publishes the inclusive state, and clears this tile's row of `next_state` (the
// region the next pass that runs uses). Call publish_aggregate(tile, state) first, as early as the
// tile's counts allow: successors read it. Barriers inside: call in uniform control flow. It ends
// without a barrier: s_excl[d] is visible to the invocation that owns digit d in the look-back
// (d = gl_LocalInvocationID.x + k * WG) at once, to the others after the caller's next barrier, after
// which the caller calls onesweep_count_rounds().
void onesweep_look_back(uint tile, Words state, Words next_state) {
  if (LOOKBACK_DIGITS == 1u) {
    onesweep_look_back_per_digit(tile, state);
    publish_inclusive(tile, state, next_state, true);
  } else {
    const uvec2 rounds = onesweep_look_back_lockstep(tile, state);
    // Uniform: the first invocation keeps them for onesweep_count_rounds (it alone writes and reads
    // them here).
    if (gl_LocalInvocationIndex == 0u) s_rounds = rounds.x, s_spin_rounds = rounds.y;
    publish_inclusive(tile, state, next_state, false);
  }
}

// Adds the tile's look-back rounds to the pass's facts. Call after the barrier that follows
// onesweep_look_back (the per-digit walk's round counts come from every invocation).
void onesweep_count_rounds() {
  if (gl_LocalInvocationIndex == 0u && s_rounds != 0u) {
    atomicAdd(g_control.w[g_pass_words + ONESWEEP_PASS_ROUNDS], s_rounds);
    if (s_spin_rounds != 0u) atomicAdd(g_control.w[g_pass_words + ONESWEEP_PASS_SPINS], s_spin_rounds);
  }
}

#endif
