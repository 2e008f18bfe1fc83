// SPDX-License-Identifier: MIT
// vksort/sorter.hpp — sorting keys (and values) that live in GPU buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vksort/buffer.hpp"
#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/types.hpp"

namespace vksort {

// The buffers one sort works on. The sorted result always ends in `keys` (and `values`).
struct SortBuffers {
  BufferRef keys;     // n keys of SortOptions::key, tightly packed, little-endian
  BufferRef values;   // empty, or n values of SortOptions::value_bytes bytes each, tightly packed:
                      // n * value_bytes bytes, required iff value_bytes != 0. Records (value_bytes > 4)
                      // move whole: their bytes are copied unchanged, never interpreted.
  BufferRef scratch;  // at least Sorter::scratch_bytes(n) bytes; contents need not be initialised
};

// Pipelines for one SortOptions on one Device. Creating one compiles pipelines (milliseconds); keep it
// and reuse it. A Sorter may be used from one thread at a time; separate Sorters on one Device may be
// used from different threads.
//
// Ownership: a Sorter shares the Device's state (the vksort::Device object itself may go first), and
// owns only its pipelines (and, after sort(), its own scratch). A borrowed VkDevice must outlive every
// Sorter made on it, and command buffers recorded by a Sorter must have completed before it is
// destroyed (they use its pipelines). A moved-from Sorter may only be destroyed or assigned to; its
// other calls throw vksort::Error (record() returns it as its Status).
//
// Stability: radix, brick and sample sort are stable in both orders (equal keys keep their input
// order; sample sort orders every step by (key, original index)). So is `automatic`, whatever it picks.
//
// Records (SortOptions::value_bytes 8..256): the algorithm sorts (key, original index) pairs, the index
// written into scratch by a small kernel, then one gather moves every record to its place from a copy
// in scratch (Ha, Krüger & Silva, section 4.7). The result is the same stable order, in keys and values
// as for any sort; SortStats then has the phases "stage" (index and record copy) and "gather".
class VKSORT_API Sorter {
 public:
  // Never throws: the Sorter, or a Status naming the option: invalid_argument for invalid options (an
  // enum outside its values, a bad value_bytes, tuning that contradicts itself), unsupported for tuning
  // the device cannot run, the Vulkan codes when a pipeline cannot be created. This is where SortOptions
  // are checked for every entry point (sort_host and sort() make a Sorter).
  static Result<Sorter> create(Device& device, const SortOptions& options) noexcept;
  // The same, throwing vksort::Error (with the Status's code, result and message) instead.
  Sorter(Device& device, const SortOptions& options);
  ~Sorter();
  Sorter(Sorter&&) noexcept;
  Sorter& operator=(Sorter&&) noexcept;

  // These queries touch no GPU state and do not throw.
  const SortOptions& options() const;  // as given, but an unset key (Key::element) reads u32
  // The algorithm that sorts n keys: the one SortOptions names, or for `automatic` the choice of the
  // device's AutoProfile (read when this Sorter was created) for n, key width and values.
  Algorithm algorithm_for(uint64_t n) const;
  Algorithm algorithm() const;  // algorithm_for(a large n): what `automatic` resolves to beyond small sizes
  uint32_t tile_size() const;   // keys one workgroup sorts in shared memory (block algorithms)

  // Bytes of scratch a sort of n keys needs (never 0). n is a count of keys, not bytes. Arithmetic
  // only: no GPU work, no allocation. For records it includes the index (4 bytes per key) and the
  // record copy (value_bytes per key). Beyond max_sort_keys: the largest VkDeviceSize.
  VkDeviceSize scratch_bytes(uint64_t n) const;

  // Records a sort of n keys into the caller's command buffer, which must be in the recording state on
  // a queue family with compute support, and allocated on this Device's VkDevice (one of another
  // VkDevice is refused: through the Vulkan loader its dispatch table is another). Records only compute dispatches, fills and pipeline barriers;
  // binds its own pipelines and push constants, and on a device vksort created that takes push
  // descriptors (VK_KHR_push_descriptor) pushes compute descriptor set 0 (so rebind yours afterwards).
  //
  // Barrier contract. Before: writes to keys/values must be made available and visible to
  //   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT.
  //   The scratch buffer may still be in use by an earlier sort only if that use is ordered before by
  //   the caller's barrier (the same stage and access). Brick and sample sort start by filling scratch
  //   (transfer writes): vksort records the barrier that orders those fills after earlier compute,
  //   indirect and transfer use itself, so the caller's barrier never needs the transfer stage.
  // After: keys/values are written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with VK_ACCESS_SHADER_WRITE_BIT;
  //   the caller inserts the barrier its next use needs. Scratch contents are undefined afterwards.
  //   Records (value_bytes > 4) are no different: their copy, index and gather are compute dispatches
  //   too, and the last write to `values` is the gather's.
  // Ownership: the caller owns cmd and every buffer and keeps them alive until the recorded work has
  //   completed; vksort keeps no reference to them after returning. Nothing is submitted.
  // Units: n is a count of keys (below 2^31); BufferRef offsets and sizes are bytes (values: at least
  //   n * value_bytes).
  // Timing: nothing is written to any query pool here. To time the sort, write your own timestamps
  //   (vkCmdWriteTimestamp, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, your pool) just before and after
  //   this call, as apps/embed_example does.
  // Thread safety: as for any vkCmd*, the caller externally synchronises cmd and its pool.
  // Never throws: a bad argument (no buffer, a range too small, an offset not a multiple of 8, a size
  //   of VK_WHOLE_SIZE, a range beyond its VkBuffer, values given or missing against
  //   SortOptions::value_bytes, n too large, or keys, values and scratch overlapping in one VkBuffer)
  //   returns a Status naming it and records nothing. Overlap is judged on the bytes the sort uses
  //   (n keys, n values, scratch_bytes(n)); the end of a range is checked against the exact size of a
  //   vksort::Buffer, and for the application's VkBuffers against their memory requirements' size
  //   (Vulkan has no query for a buffer's size), which alignment may make a little larger.
  //   With validation on, a message the layer reports on this thread while recording (e.g. cmd not in
  //   the recording state) is returned as Code::vulkan_error (VK_ERROR_VALIDATION_FAILED_EXT); what was
  //   recorded then stays, and no other thread's call raises it. "On" means vksort's own validation
  //   (DeviceOptions::validation): on a borrowed device the layer's messages go to the application's
  //   messenger, and record returns ok.
  // Partial subgroups: on a device whose pipelines cannot require full subgroups
  //   (DeviceInfo::full_subgroups false), the single-pass radix sort's ballot ranking counts on each
  //   subgroup having a share of its lanes live that Vulkan does not promise; a workgroup with more
  //   subgroups than that allows sorts nothing and cancels the rest of the sort (the buffers are left
  //   as they were where the first pass that runs refuses). sort() reports that (unsupported); a
  //   recorded sort cannot: on such a device, record with RadixRanking::columns if that matters.
  Status record(VkCommandBuffer cmd, const SortBuffers& buffers, uint64_t n) noexcept;

  // Records a sort whose key count the GPU reads when it runs: `count` holds one uint32_t (written by
  // an earlier pass of the caller's, e.g. a compaction), and the first min(*count, max_n) keys (and
  // values or records) are sorted; keys and values past them are not touched. Buffers are checked
  // against max_n, and scratch must hold scratch_bytes_indirect(max_n). The count buffer needs
  // VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT; its write is part of the barrier contract's "before".
  // Radix sort only: a Sorter for automatic uses its radix sort here (whatever max_n), one for brick
  // or sample sort returns a Status. The recording does not depend on the count: it may be recorded
  // once and submitted many times. Never throws.
  Status record_indirect(VkCommandBuffer cmd, const SortBuffers& buffers, BufferRef count, uint64_t max_n) noexcept;
  // Scratch bytes record_indirect needs for up to max_n keys (0 for a Sorter without radix sort).
  VkDeviceSize scratch_bytes_indirect(uint64_t max_n) const;

  // Convenience: allocates scratch (kept for the next call, grown when needed), records, submits on the
  // device's queue, waits for completion and reads the GPU timestamps into the returned SortStats
  // (milliseconds). keys and values (or nullptr) hold n keys / n values of SortOptions::value_bytes
  // from offset 0 and stay owned by the caller. Blocks the calling thread; the queue is locked only
  // while submitting, so other threads may use other Sorters meanwhile. Earlier uploads and sorts on these buffers are
  // complete before it starts.
  // Throws vksort::Error (bad argument, out of device memory, device lost, a validation message); an
  // empty Buffer, a Buffer made on another Device, or n beyond the Buffers is refused before scratch is
  // allocated.
  SortStats sort(Buffer& keys, Buffer* values, uint64_t n);

  // For benchmarks: results.size() sorts of one input, as sort() does them but back to back in ONE
  // submission, so the GPU runs them as one sustained load (a GPU whose clock follows its utilisation
  // keeps it up, as it does for a stream of work; separate sort() calls leave it idle in between).
  // Before sort k, GPU copies refill keys (and values) with n keys from input_keys (n values from
  // input_values); after it, its keys (values) are copied into results[k].keys (.values). Values go
  // all the way or not at all: values, input_values and every results[k].values are given together
  // (with SortOptions::value_bytes) or not at all. Returns each sort's SortStats, its GPU time and
  // phases between its own timestamps. Throws vksort::Error as sort() does, and for missing, too small
  // or aliased buffers before anything is recorded.
  struct RunResult {
    Buffer* keys = nullptr;
    Buffer* values = nullptr;
  };
  std::vector<SortStats> sort_back_to_back(Buffer& keys, Buffer* values, uint64_t n, const Buffer& input_keys,
                                           const Buffer* input_values, std::span<const RunResult> results);

  struct Impl;
 private:
  friend struct detail::Internals;  // argsort and segmented sort check a nested recording before theirs
  explicit Sorter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Host convenience: uploads, sorts and downloads in place. K must match options.key in size. The Device
// keeps, per options, the Sorter and device buffers of earlier calls (and staging memory) for the next
// call (lavapipe, 1000 keys: 2.3 ms a call instead of 35), up to 16 MiB of memory per entry and four
// entries (the least recently used goes first); larger sorts keep nothing, and
// Device::release_cached_memory frees what is kept. A VKSORT_* environment variable changed between
// calls is followed: the Sorters kept were made under the old values, so new ones are made. Safe
// from several threads on one Device.
// keys (n keys of options.key) and values (n u32, or nullptr) are the caller's host memory, sorted in
// place; values decide options.value_bytes. Takes the kept Sorter and buffers for these options, or
// makes them (see above); blocks until done. Safe from several threads on one Device (above).
// Throws vksort::Error, also for keys == nullptr with n > 0; keys and values are then as they were
// (the results come back together, or not at all: never keys sorted beside values that are not).
VKSORT_API SortStats sort_host(Device& device, void* keys, uint64_t n, uint32_t* values, const SortOptions& options);
// The same for values of any SortOptions-valid size: `values` holds n * value_bytes bytes (or is
// nullptr: keys only), value_bytes overrides options.value_bytes. Throws vksort::Error for a
// value_bytes SortOptions refuses, or values given with value_bytes 0.
VKSORT_API SortStats sort_host(Device& device, void* keys, uint64_t n, void* values, uint32_t value_bytes,
                               const SortOptions& options);

// The typed forms of sort_host: keys sorted in place, values moved with their keys. The key kind is
// the element type's (key_of<K>: float sorts as f32, int64_t as i64, ...); SortOptions::key may be
// left unset or name that same kind. Element types without a kind of their own (an enum, a 4- or
// 8-byte wrapper) need SortOptions::key of their size. Throw vksort::Error when SortOptions::key
// contradicts the element type or the spans differ in length. Elements of other sizes do not compile.

// Keys are 32 or 64 bits wide and writable (they are sorted in place); a constraint, so that a
// wrong element type fails to compile at the call and can be tested for (std::is_invocable).
template <class K>
concept SortableKey = (sizeof(K) == 4 || sizeof(K) == 8) && !std::is_const_v<K> && std::is_trivially_copyable_v<K>;

namespace detail {
template <class K>
SortOptions typed_options(SortOptions options) {
  constexpr std::optional<Key> deduced = key_of<K>;
  if constexpr (deduced.has_value()) {
    // A contradiction is refused, never resolved either way: sorting float bits as u32 (or the
    // reverse) gives a plausible-looking, wrong order.
    if (options.key != Key::element && options.key != *deduced)
      throw_error("sort: SortOptions::key is " + std::string(to_string(options.key)) + " but the keys are " +
                  std::string(to_string(*deduced)) + " (leave .key unset: the element type decides)");
    options.key = *deduced;
  } else {
    if (options.key == Key::element)
      throw_error("sort: SortOptions::key must be given for an element type that is not a 32/64-bit number");
    if (key_bytes(options.key) != sizeof(K)) throw_error("sort: key type size does not match SortOptions::key");
  }
  return options;
}
}  // namespace detail

template <SortableKey K>
SortStats sort(Device& device, std::span<K> keys, SortOptions options = {}) {
  options = detail::typed_options<K>(options);
  options.value_bytes = 0;
  return sort_host(device, keys.data(), keys.size(), nullptr, options);
}

// Values are uint32_t or any trivially copyable record type whose size is a multiple of 4 bytes, up to
// 256 (SortOptions::value_bytes = sizeof(V)); records are moved as bytes, never interpreted.
template <SortableKey K, class V>
  requires(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0)
SortStats sort(Device& device, std::span<K> keys, std::span<V> values, SortOptions options = {}) {
  options = detail::typed_options<K>(options);
  if (values.size() != keys.size()) detail::throw_error("sort: values must have one entry per key");
  return sort_host(device, keys.data(), keys.size(), static_cast<void*>(values.data()), uint32_t(sizeof(V)), options);
}

}  // namespace vksort
