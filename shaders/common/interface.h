// SPDX-License-Identifier: MIT
// The contract between the runtime and the shaders: specialization constant ids and push-constant
// blocks, in one file valid as both C++ and GLSL so the two sides cannot drift apart.
//
// GLSL lays push constants out by std430: a uvec2 (a device address) is 8-byte aligned, a uint 4. The
// C++ mirror uses an 8-byte aligned Address for the same layout; static_asserts in the runtime check
// the sizes. Put addresses first in every block. A shader offsets an address only with address_at
// (common/address.glsl), which carries into the high word.
#ifndef VKSORT_INTERFACE_H
#define VKSORT_INTERFACE_H

#ifdef __cplusplus
#include <cstdint>
namespace vksort::shader {
using uint = uint32_t;
struct alignas(8) Address {
  uint32_t lo = 0, hi = 0;
  Address() = default;
  Address(uint64_t a) : lo(uint32_t(a)), hi(uint32_t(a >> 32)) {}
};
#define VKSORT_ADDRESS Address
#define VKSORT_PUSH_BLOCK(Name) struct Name
#define VKSORT_PUSH_END
#else
#define VKSORT_ADDRESS uvec2
#define VKSORT_PUSH_BLOCK(Name) layout(push_constant, std430) uniform Name
#define VKSORT_PUSH_END pc
#endif

// Specialization constant ids (0 is local_size_x_id in every shader).
#define SPEC_WORKGROUP_SIZE 0
#define SPEC_KEY_KIND 1        // 0 unsigned, 1 signed, 2 float
#define SPEC_DESCENDING 2      // bool
#define SPEC_HAS_VALUES 3      // bool: a 32-bit value travels with each key
#define SPEC_ITEMS_PER_THREAD 4

#define KEY_KIND_UNSIGNED 0
#define KEY_KIND_SIGNED 1
#define KEY_KIND_FLOAT 2

// --- brick sort -----------------------------------------------------------------------------------
// The control block of a brick sort lives at the start of its scratch buffer (32-bit words).
#define BRICK_CONTROL_CHANGED 0     // set to 1 by any phase that moved a key in the current round
#define BRICK_CONTROL_ROUNDS 1      // rounds that ran (the gate counts them)
#define BRICK_CONTROL_EVEN_ARGS 4   // VkDispatchIndirectCommand of the even phase (x, y, z)
#define BRICK_CONTROL_ODD_ARGS 8    // VkDispatchIndirectCommand of the odd phase
#define BRICK_CONTROL_WORDS 12

// tile_sort, merge_split and pairs_phase.
#if defined(__cplusplus) || defined(PUSH_BRICK)
VKSORT_PUSH_BLOCK(BrickPush) {
  VKSORT_ADDRESS keys;
  VKSORT_ADDRESS values;   // unused unless HAS_VALUES
  VKSORT_ADDRESS control;  // BRICK_CONTROL_* words
  uint n;                  // keys
  uint parity;             // 0: even phase (pairs 0-1, 2-3, ...), 1: odd phase (pairs 1-2, 3-4, ...)
  uint group_count;        // logical workgroups; excess groups of a 3-D grid return at once
} VKSORT_PUSH_END;
#endif

// round_gate: one invocation decides whether the next round runs.
#if defined(__cplusplus) || defined(PUSH_GATE)
VKSORT_PUSH_BLOCK(GatePush) {
  VKSORT_ADDRESS control;
  uint force;              // 1 for the first round: it runs whatever the flag says
  uint even_x, even_y, even_z;  // grid of the even phase when the round runs
  uint odd_x, odd_y, odd_z;     // grid of the odd phase
} VKSORT_PUSH_END;
#endif

// --- utilities ------------------------------------------------------------------------------------
#if defined(__cplusplus) || defined(PUSH_COPY)
VKSORT_PUSH_BLOCK(CopyPush) {
  VKSORT_ADDRESS src;
  VKSORT_ADDRESS dst;
  uint words;
  uint group_count;
} VKSORT_PUSH_END;
#endif

// util/dirty_shared.comp (DeviceOptions::pretend.dirty_shared_memory) and util/shared_probe.comp (its
// test): workgroup memory filled with, and read back as, dirty_shared_word(i, seed).
#define SPEC_SHARED_WORDS 25  // 32-bit words of workgroup memory the kernel declares
#if defined(__cplusplus) || defined(PUSH_DIRTY_SHARED)
VKSORT_PUSH_BLOCK(DirtySharedPush) {
  VKSORT_ADDRESS dst;  // shared_probe: where the words go (dirty_shared: unused)
  uint seed;           // dirty_shared: a new one per dispatch, so each kernel finds other bytes
  uint unused;         // pads the block to a multiple of 8 bytes, as in C++
} VKSORT_PUSH_END;
#ifdef __cplusplus
#define VKSORT_INLINE inline
#else
#define VKSORT_INLINE
#endif
// Word i of the pattern for `seed`: a hash, so that no kernel's data looks like it by chance.
VKSORT_INLINE uint dirty_shared_word(uint i, uint seed) {
  uint h = i * 0x9e3779b1u ^ (seed + 0x7f4a7c15u) * 0x85ebca77u;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  return h;
}
#endif

// --- record sorting (shaders/records) ---------------------------------------------------------------
// Records of value_bytes > 4 (seed 003, section 4.7): the sort carries (key, index) pairs, then one
// gather moves whole records by the sorted index. index_fill writes `index`; gather reads it (0 means
// the identity: a copy of the records).
#if defined(__cplusplus) || defined(PUSH_RECORDS)
VKSORT_PUSH_BLOCK(RecordsPush) {
  VKSORT_ADDRESS src;      // gather: records read (as src[index[i]])
  VKSORT_ADDRESS dst;      // gather: records written (dst[i])
  VKSORT_ADDRESS index;    // n words
  VKSORT_ADDRESS count;    // a GPU-side record count (uint) or 0: then n
  uint n;                  // records, or the most records with a GPU-side count
  uint record_bytes;       // bytes of one record, a multiple of 4 * CHUNK_WORDS
  uint record_chunks;      // record_bytes / (4 * CHUNK_WORDS)
  uint group_count;        // logical workgroups
} VKSORT_PUSH_END;
#endif

// --- segmented sort (shaders/segmented) --------------------------------------------------------------
// segment_ids: segment[i] = the segment of input position index[i], by binary search in offsets.
#if defined(__cplusplus) || defined(PUSH_SEGMENT_IDS)
VKSORT_PUSH_BLOCK(SegmentIdsPush) {
  VKSORT_ADDRESS index;    // n words: input positions
  VKSORT_ADDRESS segment;  // n words written
  VKSORT_ADDRESS offsets;  // segments + 1 words
  VKSORT_ADDRESS count;    // a GPU-side key count (uint) or 0: then n
  uint n;                  // keys, or the most keys with a GPU-side count
  uint segments;           // at least 1
  uint group_count;        // logical workgroups
} VKSORT_PUSH_END;
#endif

// segment_tiles: one workgroup per segment sorts a segment that fits its tile in shared memory.
#if defined(__cplusplus) || defined(PUSH_SEGMENT_TILES)
VKSORT_PUSH_BLOCK(SegmentTilesPush) {
  VKSORT_ADDRESS keys;     // n keys, sorted in place segment by segment
  VKSORT_ADDRESS index;    // n words written (the input position of each output slot), or 0: none
  VKSORT_ADDRESS offsets;  // segments + 1 words
  VKSORT_ADDRESS count;    // a GPU-side key count (uint) or 0: then n
  uint n;                  // keys, or the most keys with a GPU-side count
  uint segments;           // at least 1
  uint group_count;        // logical workgroups (= segments)
  uint largest;            // segments with more keys (at most TILE) are left as they are
  uint serial;             // segment_tiles: segments of at most this many keys are left to segment_serial
  uint pad_;
} VKSORT_PUSH_END;
#endif

// segment_compose / segment_decompose: segmented sort of 32-bit keys by one sort of 64-bit
// (segment << 32 | encoded key) keys.
#define SPEC_CONSECUTIVE 9  // bool: an invocation takes ITEMS consecutive positions (CPU devices), else
                            // ITEMS positions a workgroup apart (side by side across a subgroup: GPUs)
#if defined(__cplusplus) || defined(PUSH_SEGMENT_COMPOSE)
VKSORT_PUSH_BLOCK(SegmentComposePush) {
  VKSORT_ADDRESS keys;      // n 32-bit keys: read by compose, written by decompose
  VKSORT_ADDRESS composed;  // n uvec2 (x: encoded key, y: segment): written by compose, read by decompose
  VKSORT_ADDRESS offsets;   // segments + 1 words (compose only)
  VKSORT_ADDRESS count;     // a GPU-side key count (uint) or 0: then n
  uint n;                   // keys, or the most keys with a GPU-side count
  uint segments;            // at least 1 (compose only)
  uint group_count;         // logical workgroups
  uint pad_;
} VKSORT_PUSH_END;
#endif

// --- prefix scan (shaders/scan) -------------------------------------------------------------------
// Exclusive prefix sum of 32-bit words, reduce-then-scan over chunks of WORKGROUP_SIZE * ITEMS words
// (no inter-workgroup communication inside a dispatch). scan_reduce writes each chunk's sum to
// `sums`; scan_exclusive scans each chunk in place and adds sums[chunk] when `add_sums` is 1.
#if defined(__cplusplus) || defined(PUSH_SCAN)
VKSORT_PUSH_BLOCK(ScanPush) {
  VKSORT_ADDRESS data;  // `count` words
  VKSORT_ADDRESS sums;  // one word per chunk: written by scan_reduce, read by scan_exclusive
  uint count;
  uint add_sums;        // scan_exclusive: 1 to add sums[chunk] (the chunk's exclusive offset), 0 not
  uint group_count;     // logical workgroups = chunks
} VKSORT_PUSH_END;
#endif

// --- radix sort -----------------------------------------------------------------------------------
#define SPEC_RADIX_BITS 5      // digit width of a pass: 2, 4 or 8

// Control words at the start of a radix sort's scratch buffer (32-bit words). The init kernel writes
// them; afterwards only the spine (one workgroup, between dispatches) changes them.
//
// Where the data is: CURRENT 0 = the caller's buffers, 1 = the scratch copies. The caller's buffers
// always hold raw keys and scratch always holds encoded ones, so CURRENT also says whether the data
// is encoded: kernels encode when they read the caller's keys and decode when they write them.
#define RADIX_CONTROL_CURRENT 0
#define RADIX_CONTROL_PASS_SOURCE 1    // the buffer this pass's scatter reads (set by the spine)
#define RADIX_CONTROL_DONE 2           // 1 once an order check found the data sorted
#define RADIX_CONTROL_PASSES_RUN 3     // scatters that ran
#define RADIX_CONTROL_PASSES_SKIPPED 4 // passes whose digit was the same for every key
#define RADIX_CONTROL_SORTED_ON_ENTRY 5
#define RADIX_CONTROL_CHECKS 6         // order checks evaluated (one per pass until done)
#define RADIX_CONTROL_N 7              // keys this sort orders: push n, or min(GPU-side count, n)
#define RADIX_CONTROL_SCATTER_ARGS 8   // VkDispatchIndirectCommand of this pass's scatter
#define RADIX_CONTROL_FINISH_ARGS 12   // ... of the finish copy (non-zero only if data ends in scratch)
// Slots, 4 words each, as live arguments and their templates. Slot 0: the grid of count, scatter and
// finish (one workgroup per group of tiles); its live arguments are the count's, zero once the data is
// sorted.
#define RADIX_MAX_SLOTS 1
#define RADIX_SLOT_PASSES 0
#define RADIX_CONTROL_SLOT_ARGS 16
#define RADIX_CONTROL_SLOT_GRIDS (RADIX_CONTROL_SLOT_ARGS + 4 * RADIX_MAX_SLOTS)
#define RADIX_CONTROL_WORDS (RADIX_CONTROL_SLOT_GRIDS + 4 * RADIX_MAX_SLOTS)

// count, scatter and finish. The digit of a pass is bits [shift, shift + bits) of the encoded key.
#if defined(__cplusplus) || defined(PUSH_RADIX)
VKSORT_PUSH_BLOCK(RadixPush) {
  VKSORT_ADDRESS keys;        // the caller's keys (raw)
  VKSORT_ADDRESS values;      // the caller's values; unused unless HAS_VALUES
  VKSORT_ADDRESS alt_keys;    // scratch keys (encoded)
  VKSORT_ADDRESS alt_values;  // scratch values
  VKSORT_ADDRESS control;     // RADIX_CONTROL_* words
  VKSORT_ADDRESS counts;      // digit-major group counts: counts[digit * groups + group], see radix_sort.hpp
  VKSORT_ADDRESS columns;     // column ranking: each tile's counter columns, from count to scatter
  uint n;
  uint blocks;                // tiles (blocks) of WORKGROUP_SIZE * ITEMS keys
  uint shift;                 // lowest bit of this pass's digit
  uint bits;                  // width of this pass's digit, 1..RADIX_BITS
  uint range_lo;              // mask of the encoded key bits the sort orders by, [begin_bit, end_bit)
  uint range_hi;              // its high word (64-bit keys)
  uint groups;                // count, scatter, finish: workgroups, each taking a contiguous range of tiles
  uint tiles_per_group;       // group g's tiles: [g * tiles_per_group, min((g + 1) * tiles_per_group, blocks))
} VKSORT_PUSH_END;
#endif

// radix_spine: one workgroup between the count and the scatter of a pass.
#if defined(__cplusplus) || defined(PUSH_RADIX_SPINE)
VKSORT_PUSH_BLOCK(RadixSpinePush) {
  VKSORT_ADDRESS control;
  VKSORT_ADDRESS counts;  // RADIX rows of `groups` counts, then the inversion row; scanned in place
  uint groups;
  uint digits;            // 1 << bits of this pass
  uint flags;             // RADIX_SPINE_FIRST
  uint unused;
} VKSORT_PUSH_END;
#endif
#define RADIX_SPINE_FIRST 1u  // the first pass: a sorted verdict means sorted on entry

// radix_init: one invocation writes the control words and the slot templates.
#if defined(__cplusplus) || defined(PUSH_RADIX_INIT)
VKSORT_PUSH_BLOCK(RadixInitPush) {
  VKSORT_ADDRESS control;
  VKSORT_ADDRESS count;  // a GPU-side key count (uint) or 0: then n
  uint n;                // keys, or the most keys with a GPU-side count
  uint slots;
  uint grids[3 * RADIX_MAX_SLOTS];  // x, y, z of each slot's grid
  uint unused;                      // pads the block to a multiple of 8 bytes, as in C++
} VKSORT_PUSH_END;
#endif

// --- single-pass radix sort (shaders/radix/onesweep_*): Onesweep with Decoupled Fallback ------------
// Adinets & Merrill's Onesweep: one upfront read builds every pass's digit histogram, then each pass is
// one dispatch that ranks a tile, finds the tile's offset per digit by looking back over the tiles
// before it, and scatters. Smith, Levien & Owens' Decoupled Fallback makes the look-back safe where
// workgroups have no forward-progress guarantee (Vulkan promises none): a workgroup that finds a
// predecessor unpublished counts that tile's digits itself instead of waiting for it.
//
// Control words after the RADIX_CONTROL_* block (which the finish copy and the facts share).
#define SPEC_ONESWEEP_SUBGROUPS 6  // onesweep_ballot: the most subgroups a workgroup may have
#define SPEC_ONESWEEP_TILE 7       // onesweep_plan: keys per tile of the passes
#define SPEC_ONESWEEP_STAGE_KEYS 8 // onesweep_ballot: TILE to stage the tile in shared memory, else 1
#define SPEC_ONESWEEP_WINDOW 10    // onesweep passes: predecessor tiles the look-back reads per round
#define SPEC_BALLOT_WORDS 11       // onesweep_ballot: 32-bit ballot words that hold a subgroup's lanes (1-4)
#define SPEC_ONESWEEP_STAGE_EARLY 12  // onesweep_ballot: bool, stage each key when ranked (own memory)
// (13 and 18 held the rolled-keys and batched-keys experiments, removed in session 33.)
#define SPEC_BALLOT_ROW_BITS 14  // onesweep_ballot: 32 or 16, the width of a subgroup histogram row's counters
#define SPEC_ONESWEEP_FULL_SUBGROUPS 15  // onesweep_ballot: bool, the pipeline requires full subgroups
#define SPEC_HISTOGRAM_REPLICAS 16  // onesweep_histogram: copies of each pass's histogram (1, 2, 4 or 8)
#define SPEC_BALLOT_COUNT_AGGREGATE 17  // onesweep_ballot: bool, the first lane's digit group counts as one (experiment)
#define SPEC_HISTOGRAM_BEGIN_BIT 19  // onesweep_histogram: the first bit the sort orders by
#define SPEC_HISTOGRAM_END_BIT 20    // onesweep_histogram: the bit after the last it orders by
#define SPEC_BALLOT_ROUND_BARRIER 21  // onesweep_ballot: bool, one subgroup barrier on shared memory per ranking round (experiment)
#define SPEC_BALLOT_BUILTIN_LANES 22  // onesweep_ballot: bool, full subgroups' lanes from the builtins, not ballots (experiment)
#define SPEC_BALLOT_LEADER_ATOMIC 23  // onesweep_ballot: bool, 32-bit rows' places moved by an atomic add (experiment)
#define SPEC_ONESWEEP_FIRST_WINDOW 24  // onesweep passes: bool, the per-digit look-back's first round reads a whole window (experiment)
#define SPEC_HISTOGRAM_COLUMN_PASSES 26  // onesweep_histogram, CPU drivers' columns: passes one read of the keys counts (1 or 2)

#define ONESWEEP_CONTROL_INVERSIONS (RADIX_CONTROL_WORDS + 0)  // adjacent pairs out of order on entry
#define ONESWEEP_CONTROL_FALLBACKS (RADIX_CONTROL_WORDS + 1)   // predecessor tiles a look-back counted itself
#define ONESWEEP_CONTROL_FINISH_X (RADIX_CONTROL_WORDS + 2)    // x of the finish copy's grid, when it runs
// 1 + the pass whose ballot kernel refused to run (0: none): its workgroup had more subgroups than
// the histogram rows it was built with (partially filled subgroups, which Vulkan allows where a
// pipeline does not require full ones). It cancels the later passes and the finish copy.
#define ONESWEEP_CONTROL_REFUSED (RADIX_CONTROL_WORDS + 3)
// CPU drivers' histogram (columns), which reads the keys once per two passes: the blocks whose first
// read found no inversion and no other block's either, so that left their later reads to the second
// dispatch, which reads them only if the input is out of order (onesweep_histogram.comp). Their ids
// are listed in tile-state region 1, which the first pass that runs clears.
#define ONESWEEP_CONTROL_DEFERRED (RADIX_CONTROL_WORDS + 4)
#define ONESWEEP_MAX_PASSES 32
#define ONESWEEP_PASS_WORDS 8
#define ONESWEEP_CONTROL_PASSES (RADIX_CONTROL_WORDS + 5)     // ONESWEEP_PASS_WORDS per pass:
#define ONESWEEP_PASS_ARGS 0          //   VkDispatchIndirectCommand of the pass (x = 0: it does not run)
#define ONESWEEP_PASS_SOURCE 3        //   0: it reads the caller's buffers (raw keys), 1: scratch (encoded)
#define ONESWEEP_PASS_REGION 4        //   which of the two tile-state regions it uses (the other it clears)
#define ONESWEEP_PASS_TILE_COUNTER 5  //   tiles taken so far: workgroups take tile ids in start order
#define ONESWEEP_PASS_ROUNDS 6        //   look-back rounds of its tiles, summed
#define ONESWEEP_PASS_SPINS 7         //   ... of them that found the nearest predecessor unpublished
// Phase clocks (DeviceOptions::phase_clocks; kernels built with PHASE_CLOCKS=1): each tile's shader-clock
// ticks per phase of its pass, summed into ONESWEEP_CLOCK_SLOTS slots (tile % slots: fewer atomics on
// one word) of ONESWEEP_CLOCK_ENTRIES 64-bit sums, each a low and a high word.
#define ONESWEEP_CONTROL_CLOCKS (ONESWEEP_CONTROL_PASSES + ONESWEEP_PASS_WORDS * ONESWEEP_MAX_PASSES)
#define ONESWEEP_CLOCK_SLOTS 16
#define ONESWEEP_CLOCK_ENTRIES 8
#define ONESWEEP_CLOCK_TAKE_TILE 0   // from the start to the tile id
#define ONESWEEP_CLOCK_LOAD_COUNT 1  // loading the tile's keys and counting its digits
#define ONESWEEP_CLOCK_OFFSETS 2     // counts to offsets, publishing the aggregate, digit starts
#define ONESWEEP_CLOCK_RANK 3        // ranking each key (ballot, match; columns rank while writing)
#define ONESWEEP_CLOCK_LOOK_BACK 4   // the look-back, and each digit's first destination
#define ONESWEEP_CLOCK_STAGE 5       // keys (and values) to their slots in shared memory (staged tiles)
#define ONESWEEP_CLOCK_WRITE 6       // writing the tile out
#define ONESWEEP_CLOCK_TILES 7       // tiles measured (each adds 1)
// The upfront histogram's clocks, per block, in the same layout: its phases.
#define ONESWEEP_CONTROL_HISTOGRAM_CLOCKS (ONESWEEP_CONTROL_CLOCKS + ONESWEEP_CLOCK_SLOTS * ONESWEEP_CLOCK_ENTRIES * 2)
#define ONESWEEP_HISTOGRAM_CLOCK_CLEAR 0  // clearing tile-state region 0 and the block's histograms
#define ONESWEEP_HISTOGRAM_CLOCK_COUNT 1  // loading the block's keys and counting every pass's digits
#define ONESWEEP_HISTOGRAM_CLOCK_FLUSH 2  // adding the block's histograms to the global ones (atomics)
#define ONESWEEP_CONTROL_WORDS (ONESWEEP_CONTROL_HISTOGRAM_CLOCKS + ONESWEEP_CLOCK_SLOTS * ONESWEEP_CLOCK_ENTRIES * 2)

// A tile's published state for one digit, one 32-bit word (no 64-bit atomics): flag in the top two
// bits, a count of keys below. 0 = not published; AGGREGATE = the tile's own keys of the digit;
// INCLUSIVE = those of every tile up to and including it. The flag order makes atomicMax a safe
// "publish unless something newer is there".
#define ONESWEEP_FLAG_AGGREGATE 0x40000000u
#define ONESWEEP_FLAG_INCLUSIVE 0x80000000u
#define ONESWEEP_COUNT_MASK 0x3fffffffu
#define ONESWEEP_MAX_KEYS ONESWEEP_COUNT_MASK  // counts must fit below the flags

#if defined(__cplusplus) || defined(PUSH_ONESWEEP)
VKSORT_PUSH_BLOCK(OnesweepPush) {
  VKSORT_ADDRESS keys;        // the caller's keys (raw)
  VKSORT_ADDRESS values;      // the caller's values; unused unless VALUE_WORDS == 1
  VKSORT_ADDRESS alt_keys;    // scratch keys (encoded)
  VKSORT_ADDRESS alt_values;  // scratch values
  VKSORT_ADDRESS control;     // RADIX_CONTROL_* and ONESWEEP_CONTROL_* words
  VKSORT_ADDRESS digits;      // passes * RADIX words: histograms, then (plan) each digit's first position
  VKSORT_ADDRESS state;       // two regions of tiles * RADIX words: the tiles' published states
  VKSORT_ADDRESS count;       // init: a GPU-side key count (uint) or 0: then n
  uint n;                     // keys, or the most keys with a GPU-side count (buffers hold that many)
  uint tiles;                 // tiles of n keys: rows of each state region, the histogram's grid
  uint passes;                // passes recorded
  uint pass;                  // onesweep: this pass; histogram (CPU drivers): the first pass this dispatch counts
  uint begin_bit;             // the lowest ordered bit (pass p's digit starts at begin_bit + p * RADIX_BITS)
  uint end_bit;               // one past the highest ordered bit
  uint range_lo;              // mask of the ordered bits, [begin_bit, end_bit), low word
  uint range_hi;              // its high word (64-bit keys)
  uint stall_percent;         // pretend: the look-back finds this share of predecessors unpublished;
                              // not 0: CPU drivers' histogram blocks never see another's inversions
  uint max_x, max_y;          // plan: maxComputeWorkGroupCount[0], [1] (clamped to 65535)
  uint finish_x, finish_y, finish_z;  // init: the finish copy's grid
  uint hist_items;            // histogram: keys per invocation of this dispatch's blocks (at most ITEMS)
} VKSORT_PUSH_END;
#endif

// --- bucket lists (shaders/buckets) ---------------------------------------------------------------
// head[M] / next[N] linked lists built by repeated scatter (seed 002, Listing 1). A list ends in
// BUCKET_NULL; an element whose bucket id is out of range is in no list and has BUCKET_INVALID as its
// bucket. Active-element lists hold element indices; the link kernel marks elements that need no more
// iterations with BUCKET_DONE (indices stay below 2^31).
#define BUCKET_NULL 0xffffffffu
#define BUCKET_INVALID 0xffffffffu
#define BUCKET_DONE 0x80000000u
// Resort, between gather_moved and unlink's PRELINK: set in the bucket of a listed element that moved
// (buckets of listed elements are below 2^31 - 2, so the result is never BUCKET_INVALID).
#define BUCKET_MOVED 0x80000000u
// prev[x] is the element before x in its list; defined only for elements that are not their list's
// first (unlink compares with the head instead), and only after a resort: builds do not keep it
// (what it would cost them, every build would pay), the first resort after one sets it from next.

// Control words (32-bit) of one BucketLists object; the host initialises them, afterwards only the
// scan_blocks gate (one workgroup, between dispatches) changes them, but for BAD_ELEMENT and MOVED.
//
// Iterations: two list slots alternate. A slot holds its list's element count, the element range
// admitted with it (partial update) and the VkDispatchIndirectCommand of the iteration kernels that
// walk it (zero groups once nothing is left, or once the iterations stopped).
#define BUCKET_SLOT_WORDS 8
#define BUCKET_SLOT_COUNT 0          // elements in the slot's list
#define BUCKET_SLOT_ADMIT_BEGIN 1    // partial update: elements [begin, end) join the race with this list
#define BUCKET_SLOT_ADMIT_END 2
#define BUCKET_SLOT_ARGS 4           // x, y, z: groups covering count + admitted elements
#define BUCKET_CONTROL_ITERATIONS 16 // repeated-scatter iterations that had elements to place
#define BUCKET_CONTROL_LEFTOVER 17   // elements the iterations left to the fallback
#define BUCKET_CONTROL_MOVED 18      // resort: elements whose bucket id changed (gather_moved's counter)
#define BUCKET_CONTROL_BAD_ELEMENT 19  // 1 + index of an element with an id >= M (0: none); any writer wins
#define BUCKET_CONTROL_BAD_ID 20     // that element's id (copied by the gate)
#define BUCKET_CONTROL_ZEROS 21      // split pass: leftover elements whose bucket has the pass's bit clear
#define BUCKET_CONTROL_NEXT_PART 22  // partial update: first element not admitted yet
#define BUCKET_CONTROL_STOPPED 23    // 1 once the iterations handed what is left to the fallback
// Fallback (a stable LSD radix sort of the leftover elements by bucket, then linking its runs). Its
// list moves between the slots only in passes on bits where the leftover buckets differ, so where it
// is lives in the control words: before a pass's gate, in slot FALLBACK_SLOT ^ FALLBACK_MOVES; the
// gate folds that into FALLBACK_SLOT and sets FALLBACK_MOVES for its own pass.
#define BUCKET_CONTROL_FALLBACK_SLOT 24
#define BUCKET_CONTROL_FALLBACK_MOVES 25
#define BUCKET_CONTROL_VARYING 26    // bits in which the leftover elements' buckets differ
#define BUCKET_CONTROL_FALLBACK_ARGS 28  // x, y, z: groups covering LEFTOVER
#define BUCKET_CONTROL_SPLIT_COUNT_ARGS 32  // ... or none: the next split_count (its bit does not vary)
#define BUCKET_CONTROL_SPLIT_MOVE_ARGS 36   // ... or none: this pass's compact
#define BUCKET_CONTROL_WORDS 40

// Kernel modes (BucketPush::mode).
#define BUCKET_INIT_SCATTER 0u       // init: bucket/next/range check, heads of [0, `bit`)
#define BUCKET_INIT_SORT_PAIRS 1u    // init: also (key, value) = (bucket, index) pairs for the sort
#define BUCKET_LINK_IDENTITY 0u      // link: the active list is 0..count-1 (first iteration)
#define BUCKET_LINK_LIST 1u          // link: the active list is list_in
#define BUCKET_COMPACT_SCATTER 0u    // compact: keep unmarked elements, write their heads
#define BUCKET_COMPACT_SPLIT 2u      // compact: stable split of the fallback's list by bit `bit`
#define BUCKET_COMPACT_KEEP 3u       // compact: keep unmarked elements only (the last iteration)
#define BUCKET_SCAN_LINK 0u          // scan_blocks after link: next count = kept + admitted
#define BUCKET_SCAN_SPLIT 1u         // after split_count: ZEROS = total
#define BUCKET_SCAN_MOVED 2u         // after gather_moved: next count = MOVED (no scan)
#define BUCKET_SCAN_BITS 3u          // after leftover_bits: VARYING
#define BUCKET_RUNS_NEXT 0u          // link_runs: next pointers of a sorted list's runs
#define BUCKET_RUNS_HEAD 1u          // link_runs: heads of the runs
#define BUCKET_GATHER_MOVED 0u       // gather_moved: list the moved elements (and FIND_PREV)
#define BUCKET_GATHER_PREV_ONLY 1u   // gather_moved: only set prev from next
#define BUCKET_UNLINK_CUT 0u         // unlink: moved elements leave their old lists
#define BUCKET_UNLINK_PRELINK 1u     // unlink: moved elements take their new bucket; next = its head
#define BUCKET_FLAG_LAST 1u          // scan_blocks: last recorded iteration, stop
#define BUCKET_FLAG_ADMIT_ALL 2u     // scan_blocks: admit every element not admitted yet
#define BUCKET_FLAG_REPORT 4u        // link_runs: group 0 copies the bad element's id
#define BUCKET_FLAG_KEEP_PREV 8u     // link, link_runs: keep prev pointers (a resort's insertion)
#define BUCKET_FLAG_FIND_PREV 16u    // gather_moved: first set prev from the lists (stale after a build)

#if defined(__cplusplus) || defined(PUSH_BUCKETS)
VKSORT_PUSH_BLOCK(BucketPush) {
  VKSORT_ADDRESS ids;       // the caller's bucket ids (init, gather_moved, unlink; the gate reads the bad one)
  VKSORT_ADDRESS bucket;    // the bucket each element's list is, or BUCKET_INVALID
  VKSORT_ADDRESS head;      // M words
  VKSORT_ADDRESS next;      // N words
  VKSORT_ADDRESS list_in;   // iterations: list of slot `slot`; fallback: slot 0; init SORT_PAIRS: keys
  VKSORT_ADDRESS list_out;  // iterations: list of the other slot; fallback: slot 1; SORT_PAIRS: values
  VKSORT_ADDRESS blocks;    // two words per tile of the walked list: counts, then exclusive offsets
  VKSORT_ADDRESS control;   // BUCKET_CONTROL_* words
  VKSORT_ADDRESS prev;      // N words: the element before each listed one but a list's first (resorts)
  uint n;                   // elements
  uint m;                   // buckets
  uint mode;                // BUCKET_<KERNEL>_* of the kernel
  uint slot;                // list slot walked (0 or 1)
  uint bit;                 // split: the bucket-id bit; init: elements that scatter a head
  uint group_count;         // direct dispatches: logical workgroups
  uint max_x, max_y;        // scan_blocks: maxComputeWorkGroupCount[0..1] (clamped to 65535)
  uint flags;               // scan_blocks: BUCKET_FLAG_*
  uint part;                // partial update: elements per part (0: off)
  uint admit_below;         // partial update: admit the next part when fewer elements are active
  uint iterations_left;     // scan_blocks LINK: recorded iterations after this one
} VKSORT_PUSH_END;
#endif


// --- sample sort (shaders/sample) -----------------------------------------------------------------
// Deterministic sample sort after Dehne & Zaboli (seed 004). Every kernel orders (encoded key, index)
// pairs, the index being the key's original position, so all elements are distinct: ties cannot
// unbalance buckets and the sort is stable. Padding elements are (KEY_MAX, index >= n) from the last
// sublist, or all-ones words (KEY_MAX, 0xffffffff) from fills: both sort after every real key.
#define SAMPLE_CONTROL_LARGEST 0   // the largest bucket (elements, padding of the last sublist included)
#define SAMPLE_CONTROL_OVERFLOW 1  // 1 if a bucket exceeded its segment (never, by the 2n/s bound)
#define SAMPLE_CONTROL_WORDS 4
#define SAMPLE_FULL 1u             // bitonic_local: the whole network up to min(segment, TILE)
#define SAMPLE_FINAL 2u            // bitonic_local: write the result decoded to the caller's buffers
#define SAMPLE_BUCKETS 4u          // bitonic_*: a_* holds step 9's bucket segments; skip their padding
#define SAMPLE_STEPS_SHIFT 8u      // bitonic_global: flags >> this = half-cleaner steps per pass (1-3)

// Every sample sort kernel. What a_* and b_* hold is per kernel (see shaders/sample/*.comp). The
// sublist, bitonic tile and workgroup shape are one TILE = WORKGROUP_SIZE * ITEMS for all kernels.
#if defined(__cplusplus) || defined(PUSH_SAMPLE)
VKSORT_PUSH_BLOCK(SamplePush) {
  VKSORT_ADDRESS keys;          // the caller's keys (raw)
  VKSORT_ADDRESS values;        // the caller's values; unused unless HAS_VALUES
  VKSORT_ADDRESS a_keys;        // encoded keys of a pair array
  VKSORT_ADDRESS a_idx;         // their original indices
  VKSORT_ADDRESS b_keys;        // a second pair array
  VKSORT_ADDRESS b_idx;
  VKSORT_ADDRESS saved_values;  // the caller's values, copied before the caller's buffer is overwritten
  VKSORT_ADDRESS counts;        // sublists * samples bucket sizes, bucket-major; after the scan, offsets
  VKSORT_ADDRESS starts;        // sublist-major: where bucket j starts inside sublist i
  VKSORT_ADDRESS control;       // SAMPLE_CONTROL_* words
  uint n;                       // keys
  uint sublists;                // m = ceil(n / TILE)
  uint samples;                 // s, a power of two <= TILE
  uint size;                    // bitonic: stage (length of the blocks being sorted)
  uint stride;                  // bitonic_global: compare distance of this step
  uint segment;                 // bitonic: length of the independently sorted segments
  uint group_count;             // logical workgroups
  uint flags;                   // SAMPLE_FULL | SAMPLE_FINAL
} VKSORT_PUSH_END;
#endif

#ifdef __cplusplus
}  // namespace vksort::shader
#endif
#endif  // VKSORT_INTERFACE_H
