// SPDX-License-Identifier: MIT
// vksort/types.hpp — the vocabulary of the public API: key kinds, orders, algorithms, options, stats.
// No Vulkan types here, so host-only code (file tools, references) can include it cheaply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "vksort/export.hpp"

namespace vksort {

// The key types vksort sorts. 64-bit keys never need shaderInt64: shaders hold them as two words.
// `element` (SortOptions' default) means "not given": the typed host entry points (vksort::sort on a
// std::span<K>) then sort as the element type's key (key_of<K>), and the untyped ones (Sorter,
// sort_host) as u32. It sits apart (0xFF) so the six kinds keep their values and Key(6) stays invalid.
enum class Key : uint32_t { u32, i32, f32, u64, i64, f64, element = 0xFF };

enum class Order : uint32_t { ascending, descending };

// automatic: chosen per sort by n, key width and values from the Device's AutoProfile
// (vksort/auto_profile.hpp; Sorter::algorithm_for(n) tells which).
enum class Algorithm : uint32_t { automatic, radix, sample, brick };

// The key kind of element type K, for the typed host entry points: float f32, double f64, signed
// 32/64-bit integers i32/i64, unsigned u32/u64. Other element types (enums, wrappers) have none and
// need SortOptions::key.
template <class K>
inline constexpr std::optional<Key> key_of = [] {
  using T = std::remove_cv_t<K>;
  if constexpr (std::is_floating_point_v<T> && sizeof(T) == 4) return std::optional<Key>(Key::f32);
  else if constexpr (std::is_floating_point_v<T> && sizeof(T) == 8) return std::optional<Key>(Key::f64);
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8))
    return std::optional<Key>(sizeof(T) == 4 ? (std::is_signed_v<T> ? Key::i32 : Key::u32)
                                             : (std::is_signed_v<T> ? Key::i64 : Key::u64));
  else return std::optional<Key>();
}();

// Bytes of one key of kind `k` (4 or 8).
constexpr uint32_t key_bytes(Key k) { return (k == Key::u64 || k == Key::i64 || k == Key::f64) ? 8u : 4u; }
// The most keys one sort takes: keys are indexed with 32-bit integers in the shaders, and sign
// extension of an index is not ruled out on every driver. Sorts of more are refused, and the
// scratch_bytes queries answer the largest VkDeviceSize for them (no such buffer exists).
inline constexpr uint64_t max_sort_keys = (uint64_t(1) << 31) - 1;
constexpr bool is_signed_integer(Key k) { return k == Key::i32 || k == Key::i64; }
constexpr bool is_floating(Key k) { return k == Key::f32 || k == Key::f64; }

// Names as the CLI and reports spell them ("u32", "brick", ...), and their inverse (nullopt if unknown).
// Pure functions, safe from any thread; the returned views point to static strings. A value outside
// the enum (cast from a bad integer) is named "invalid".
VKSORT_API std::string_view to_string(Key k);
VKSORT_API std::string_view to_string(Order o);
VKSORT_API std::string_view to_string(Algorithm a);
VKSORT_API std::optional<Key> parse_key(std::string_view name);
VKSORT_API std::optional<Algorithm> parse_algorithm(std::string_view name);

// Radix sort: how a block ranks its keys by the pass's digit (all stable, same result).
//   splits   Ha et al.'s four-way splits in shared memory, one per 2 bits of the digit: suits wide
//            workgroups (GPUs). Reduce-then-scan only: the paper's reference variant.
//   columns  one counter per digit and invocation: suits workgroups of few invocations holding many
//            keys each (CPU drivers); needs radix >= workgroup size and radix <= keys per invocation.
//   ballot   the whole digit in one step per subgroup (multisplit by subgroup ballots, a histogram per
//            subgroup in shared memory): suits wide workgroups (GPUs); needs subgroup ballot and
//            shuffle in compute, and tiles of at most 2^15 keys. Single-pass only.
//   match    ballot's kernel, but each key finds the keys of its digit in its subgroup in one step
//            (subgroupPartitionNV: NVIDIA's match.any) instead of a ballot per digit bit; needs
//            VK_NV_shader_subgroup_partitioned (DeviceInfo::subgroup_partitioned). Single-pass only.
// automatic takes columns wherever that shape holds; else ballot for the single pass where the device
// has subgroup ballot and shuffle (columns on smaller workgroups where it has not), splits for
// reduce-then-scan. (match is taken only when asked for: measured slower than ballot on an H200.)
enum class RadixRanking : uint32_t { automatic, splits, columns, ballot, match };
VKSORT_API std::string_view to_string(RadixRanking r);
VKSORT_API std::optional<RadixRanking> parse_radix_ranking(std::string_view name);

// Radix sort: how a pass finds where each block's keys of each digit go.
//   single_pass       Onesweep (Adinets & Merrill 2022): one upfront read histograms every digit,
//                     then one dispatch per pass ranks a tile, looks back over the tiles before it for
//                     its offsets and scatters; Decoupled Fallback (Smith, Levien & Owens 2025) keeps
//                     the look-back correct without forward-progress guarantees. Up to 2^30 - 1 keys.
//   reduce_then_scan  count, scan and scatter dispatches per pass (Ha et al.), no inter-workgroup
//                     communication inside a dispatch.
// automatic takes the single pass up to its key limit, reduce-then-scan beyond (and for splits).
enum class RadixScan : uint32_t { automatic, single_pass, reduce_then_scan };
VKSORT_API std::string_view to_string(RadixScan s);
VKSORT_API std::optional<RadixScan> parse_radix_scan(std::string_view name);

// Single-pass radix sort ranked by ballot or match: how a tile's keys reach the output.
//   direct  each key from its invocation straight to its place
//   late    through the tile in shared memory, in digit order, so that each digit's run is written to
//           consecutive addresses (coalesced); staged after the look-back, in the shared memory the
//           ranking's histograms used (the least shared memory a staged tile can take)
//   early   the same tile, each key staged as soon as it is ranked into shared memory of its own beside
//           the histograms: neither keys nor ranks stay in registers through the look-back
// automatic takes early where histograms and tile fit the device's shared memory together, else late
// where the tile fits, else direct. Counter columns write directly and refuse the others; so does
// reduce-then-scan.
enum class RadixStaging : uint32_t { automatic, direct, late, early };
VKSORT_API std::string_view to_string(RadixStaging s);
VKSORT_API std::optional<RadixStaging> parse_radix_staging(std::string_view name);

// Knobs that are normally chosen per device from its limits. Zero means "choose for me".
// Overriding them is for tuning and for tests that want small tiles to exercise multi-tile paths.
struct Tuning {
  // Invocations per workgroup and keys each holds in a tile: powers of two, except for the single-pass
  // radix sort's ballot and match rankings (RadixScan::single_pass), which take any number of keys per
  // invocation and any workgroup of whole subgroups (a multiple of the subgroup size, or one subgroup or
  // less; others throw). Radix sort takes at most 32768 keys per invocation (loops beyond that are cut
  // short by some drivers).
  uint32_t workgroup_size = 0;
  uint32_t items_per_thread = 0;
  uint32_t radix_bits = 0;        // radix sort: digit width of a pass, 2, 4 or 8
  uint32_t samples = 0;           // sample sort: s, samples per sublist and buckets (power of two <= tile)
  RadixRanking radix_ranking = RadixRanking::automatic;  // radix sort: see RadixRanking
  RadixScan radix_scan = RadixScan::automatic;           // radix sort: see RadixScan
  // Single-pass radix sort: predecessor tiles each round of the look-back reads per digit after its
  // first, 1 to 32 (0: per device; 8 on GPUs, 1 on CPU drivers). Larger windows pass long runs of
  // unfinished tiles in fewer rounds, for more reads. Checked for every algorithm (a sort may choose
  // the single pass later, by n).
  uint32_t lookback_window = 0;
  static constexpr uint32_t max_lookback_window = 32;  // the reads of a round are held in registers
  RadixStaging radix_staging = RadixStaging::automatic;  // single-pass radix sort: see RadixStaging
};

// Brick sort comes in two shapes: the seed's element-wise odd-even transposition (one compare-exchange
// per pair and phase, up to n phases) and the block variant (tiles sorted in shared memory, then
// neighbouring tiles merge-split: at most n/tile phases). Both stop early once a round changes nothing.
enum class BrickVariant : uint32_t { blocks, pairs };
// The most keys the element-wise variant takes (it records a round per two keys); more are refused.
inline constexpr uint64_t max_brick_pairs_keys = uint64_t(1) << 16;

struct SortOptions {
  Key key = Key::element;  // not given: the element type's for vksort::sort on a span, else u32
  Order order = Order::ascending;
  Algorithm algorithm = Algorithm::automatic;
  // Bytes of the value (payload) carried with each key: 0 (keys only), 4 (one 32-bit value, carried
  // through every pass), or a multiple of 4 from 8 to 256 (a record: the sort carries each key's
  // original index instead and then moves every record once, by one gather; Ha, Krüger & Silva,
  // section 4.7). Any other value is refused with a vksort::Error naming this option.
  uint32_t value_bytes = 0;
  BrickVariant brick_variant = BrickVariant::blocks;
  Tuning tuning{};
  // Radix sort only: order by bits [begin_bit, end_bit) of the encoded key (end_bit 0 = the key's
  // width), e.g. end_bit = 20 for cell ids below 2^20: fewer passes. Keys are then sorted by those
  // bits alone, stably (keys equal in them keep their input order); the other bits travel with the
  // key unchanged. The encoded key is the key itself for unsigned ascending sorts; for the others it
  // is the order-preserving encoding (signed: sign bit flipped; float: IEEE total-order bits;
  // descending: all bits inverted), so [0, width) always means the whole key in the chosen order.
  uint32_t begin_bit = 0;
  uint32_t end_bit = 0;
};

// What one sort measured. Times come from GPU timestamps; they are absent (gpu_ms < 0, phases empty)
// when the queue has no timestamp support, never reported as zero.
struct SortStats {
  double gpu_ms = -1.0;                                   // whole sort, first to last timestamp
  std::vector<std::pair<std::string, double>> phases_ms;  // per phase, in recording order
  std::vector<std::pair<std::string, double>> facts;      // algorithm facts: "rounds", "tile", ...
  bool timed() const { return gpu_ms >= 0.0; }
  // The value of fact `name`, or nullopt. Never throws.
  VKSORT_API std::optional<double> fact(std::string_view name) const;
};

}  // namespace vksort
