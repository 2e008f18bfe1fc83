// SPDX-License-Identifier: MIT
// vksort/mpi.hpp — a distributed sort over an MPI communicator: each rank sorts its keys on its own GPU,
// then one all-to-all exchange moves every key to the rank that owns its range (target vksort::mpi,
// library libvksort_mpi; find_package(vksort COMPONENTS mpi)). The core library never links MPI.
//
//   MPI_Init(&argc, &argv);
//   vksort::Device gpu(vksort::mpi::device_options(MPI_COMM_WORLD));  // one GPU per rank on a node
//   auto result = vksort::mpi::sort(MPI_COMM_WORLD, gpu, std::span<const float>(my_keys));
//   // result.keys: this rank's part of the global order; ranks 0, 1, ... hold consecutive parts.
//
// The algorithm is Dehne & Zaboli's deterministic sample sort (regular sampling) with one rank per
// sublist: local GPU sort, regular samples all-gathered, p - 1 splitters, a binary search per splitter,
// one MPI_Alltoallv, a stable k-way merge of the p received runs on the host.
//
// Order and stability: keys are ordered as vksort orders them (floats in IEEE total order, see
// vksort/sorter.hpp), ties by (rank, index on that rank). The result is therefore the stable sort of
// the concatenation of all ranks' inputs in rank order, values included, and every element is distinct
// in this order, so even all-equal keys split evenly.
//
// Balance (the guarantee): with n keys in all, p ranks, oversampling s (default max(p + 1, 64)) and sample
// step d = max(1, ceil(n / (p s))), each rank takes the samples at its local positions d-1, 2d-1, ...
// (S samples in all), so at most d - 1 of its keys lie between two of its samples; a rank then receives
// at most ceil(S/p) d + p (d - 1) keys (received_bound), which for any s >= p + 1 is below 2n/p + 1
// however the keys are distributed over the ranks (all on one rank, some ranks empty, n < p). The
// floor of 64 keeps buckets of random keys within a few percent of n/p on few ranks: with s = p + 1
// and p = 2, the first sample of each run sits at a third of it and rank 0 would get 2/3 of the keys.
//
// Collectives: every rank of `comm` must call the same function with the same key type, order and
// presence of values. A failure on any rank (a bad argument, the GPU out of memory) is agreed on by all
// ranks before the next collective step, so every rank throws vksort::Error with the same message
// ("... failed on rank 2: ...") instead of leaving the others blocked. MPI's own errors follow the
// communicator's error handler (MPI_ERRORS_ARE_FATAL by default: the job ends); under MPI_ERRORS_RETURN
// a failing MPI call throws vksort::Error naming it, on the ranks where it failed. MPI_COMM_NULL and
// intercommunicators are refused (vksort::Error) before any collective.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/export.hpp"
#include "vksort/types.hpp"

namespace vksort::mpi {

struct Options {
  Order order = Order::ascending;
  // How each rank sorts its own keys on its GPU (all vksort algorithms are stable).
  Algorithm algorithm = Algorithm::automatic;
  Tuning tuning{};
  // Rebalance after the sort so that every rank gets back exactly as many keys as it gave (one more
  // exchange): for distributed arrays that must keep their shape. Otherwise a rank gets its bucket,
  // at most received_bound keys.
  bool keep_counts = false;
  // Samples per rank-share of the keys, s; 0: max(p + 1, 64). Any s >= p + 1 keeps the 2n/p + 1
  // bound; more samples give a tighter one, about n/p + (p + 1) n / (p s), and more even buckets, for
  // an all-gather of about p s samples of 24 bytes.
  uint32_t oversampling = 0;
  // Largest MPI message of the exchanges, in bytes; 0: 2^30. Counts and displacements of
  // MPI_Alltoallv are int, so larger exchanges go as chunks of at most this many bytes by point-to-point
  // messages instead (tests set it small to exercise that path).
  uint64_t max_message_bytes = 0;
};

// What one distributed sort measured on this rank (wall-clock milliseconds, steady clock).
struct Stats {
  double local_sort_ms = 0;  // upload, GPU sort, download (vksort::sort on host data)
  double sampling_ms = 0;    // counts and samples all-gathered, splitters chosen and located
  double exchange_ms = 0;    // the all-to-all of counts and of the keys (and values)
  double merge_ms = 0;       // the k-way merge of the received runs
  double rebalance_ms = 0;   // keep_counts only: the second exchange
  double total_ms = 0;
  SortStats local;           // the local GPU sort's own stats (GPU timestamps)
  uint64_t n_total = 0;      // keys on all ranks
  uint64_t received = 0;     // keys this rank received in the exchange (its bucket)
  uint64_t max_received = 0; // the largest bucket of all ranks
  uint64_t received_bound = 0;  // the guarantee max_received never exceeds (see above)
  uint64_t samples = 0;      // S, samples all ranks contributed
  uint64_t sample_step = 0;  // d
  bool chunked_exchange = false;  // the exchange went by chunked point-to-point messages
};

template <class K>
struct Result {
  std::vector<K> keys;           // this rank's consecutive part of the global order
  std::vector<uint32_t> values;  // with them (empty when sorted without values)
  Stats stats;
};

// The key types vksort sorts, by C++ type.
template <class K>
inline constexpr bool is_key_type = std::is_same_v<K, uint32_t> || std::is_same_v<K, int32_t> ||
                                    std::is_same_v<K, float> || std::is_same_v<K, uint64_t> ||
                                    std::is_same_v<K, int64_t> || std::is_same_v<K, double>;

template <class K>
  requires is_key_type<K>
constexpr Key key_of() {
  if constexpr (std::is_same_v<K, uint32_t>) return Key::u32;
  else if constexpr (std::is_same_v<K, int32_t>) return Key::i32;
  else if constexpr (std::is_same_v<K, float>) return Key::f32;
  else if constexpr (std::is_same_v<K, uint64_t>) return Key::u64;
  else if constexpr (std::is_same_v<K, int64_t>) return Key::i64;
  else return Key::f64;
}

namespace detail {
// Grows the caller's key vector to n keys and returns its storage (the typed Result stays in the header).
using ResizeKeys = void* (*)(void* result, uint64_t n);
// The untyped sort behind the templates: `keys` holds n keys of kind `key`; values is null (keys
// only) or holds value_count u32 (which must be n: checked with the other ranks, so that a mistake on
// one rank fails them all). Writes the rank's result through resize_keys and into *values_out.
VKSORT_API Stats sort(MPI_Comm comm, Device& device, Key key, const void* keys, uint64_t n, const uint32_t* values,
                      uint64_t value_count, const Options& options, ResizeKeys resize_keys, void* result,
                      std::vector<uint32_t>* values_out);
}  // namespace detail

namespace detail {
template <class K>
Result<K> sort_typed(MPI_Comm comm, Device& device, std::span<const K> keys, const uint32_t* values,
                     uint64_t value_count, const Options& options) {
  Result<K> r;
  r.stats = sort(
      comm, device, key_of<K>(), keys.data(), keys.size(), values, value_count, options,
      [](void* res, uint64_t n) -> void* {
        auto& v = static_cast<Result<K>*>(res)->keys;
        v.resize(n);
        return v.data();
      },
      &r, &r.values);
  return r;
}
}  // namespace detail

// Sorts the keys of all ranks of `comm` (collective). Returns this rank's part of the global order; the
// inputs are left untouched. A rank may hold as many keys as vksort::sort can sort on its device, at most
// max_sort_keys (2^31 - 1): more on any rank fail every rank ("checking the arguments") before any copy.
template <class K>
  requires is_key_type<K>
Result<K> sort(MPI_Comm comm, Device& device, std::span<const K> keys, const Options& options = {}) {
  return detail::sort_typed<K>(comm, device, keys, nullptr, 0, options);
}

// The same with a 32-bit value per key (values.size() == keys.size()), moved with its key. Every rank
// must pass values (an empty span on a rank with no keys) or none may.
template <class K>
  requires is_key_type<K>
Result<K> sort(MPI_Comm comm, Device& device, std::span<const K> keys, std::span<const uint32_t> values,
               const Options& options = {}) {
  // A non-null pointer says "with values" even for an empty span (a rank with no keys).
  static const uint32_t no_values_here = 0;
  return detail::sort_typed<K>(comm, device, keys, values.empty() ? &no_values_here : values.data(), values.size(),
                               options);
}

// This rank's index among the ranks of `comm` on the same node (MPI_Comm_split_type SHARED), from 0.
// Collective.
VKSORT_API int node_local_rank(MPI_Comm comm);

// `base` with its device chosen for this rank: where base.select and VKSORT_DEVICE are both empty and
// the node has several usable devices, the (node_local_rank mod their number)-th of them; otherwise
// base unchanged. Collective (node_local_rank).
VKSORT_API DeviceOptions device_options(MPI_Comm comm, DeviceOptions base = {});

// The balance guarantee above for n keys, p ranks and s samples per rank-share (0: the default), without
// knowing how the keys are spread: ceil(S/p) d + p (d - 1) with S at most n / d (2^64 - 1 where that
// passes it). Throws vksort::Error for p < 1.
VKSORT_API uint64_t received_bound(uint64_t n, int p, uint32_t oversampling = 0);

}  // namespace vksort::mpi
