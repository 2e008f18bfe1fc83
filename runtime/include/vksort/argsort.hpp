// SPDX-License-Identifier: MIT
// vksort/argsort.hpp — the sorting permutation of keys (argsort), on the host or inside a command buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include <vulkan/vulkan_core.h>

#include "vksort/buffer.hpp"
#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/sorter.hpp"
#include "vksort/types.hpp"

namespace vksort {

// The buffers one argsort works on.
struct ArgsortBuffers {
  BufferRef keys;     // n keys of SortOptions::key: read, never written
  BufferRef indices;  // n indices of index_bytes (4: uint32_t, 8: uint64_t) each: written
  BufferRef scratch;  // at least ArgSorter::scratch_bytes(n) bytes; contents need not be initialised
};

// Pipelines for the argsort of one SortOptions (any key, order, algorithm, bit range; value_bytes must
// be 0) with indices of index_bytes (4 or 8). The permutation is stable: equal keys keep input order.
// How: the keys are copied into scratch beside an index written on the GPU (the records' index_fill,
// index[i] = i), the copy is sorted carrying the index as its 32-bit value, and 64-bit indices are
// widened from it by one final kernel. Ownership, threading and moved-from objects as Sorter's.
class VKSORT_API ArgSorter {
 public:
  // Throws vksort::Error for invalid options (as Sorter), value_bytes != 0 or index_bytes not 4 or 8.
  ArgSorter(Device& device, const SortOptions& options, uint32_t index_bytes = 4);
  ~ArgSorter();
  ArgSorter(ArgSorter&&) noexcept;
  ArgSorter& operator=(ArgSorter&&) noexcept;

  const SortOptions& options() const;
  uint32_t index_bytes() const;
  // Bytes of scratch an argsort of n keys needs (never 0). Arithmetic only. Beyond max_sort_keys: the
  // largest VkDeviceSize.
  VkDeviceSize scratch_bytes(uint64_t n) const;

  // Records the argsort of n keys into cmd: indices[i] = the position in keys of the i-th smallest (or
  // largest, descending) key. Barrier contract as Sorter::record: keys' writes visible to compute
  // shader reads before; indices written by the compute stage (shader writes) after. keys are only
  // read. Never throws: a bad argument returns a Status naming it and records nothing.
  Status record(VkCommandBuffer cmd, const ArgsortBuffers& buffers, uint64_t n) noexcept;

  struct Impl;
 private:
  std::unique_ptr<Impl> impl_;
};

// Host: indices[i] = the position in `keys` of the i-th key in sorted order (stable: equal keys keep input
// order). keys are not modified. index_bytes is 4 (uint32_t indices, n < 2^32) or 8 (uint64_t).
// Throws vksort::Error on bad arguments.
VKSORT_API SortStats argsort_host(Device& device, const void* keys, uint64_t n, void* indices, uint32_t index_bytes,
                                  const SortOptions& options);

// keys may be a std::span<const K> or a std::span<K> (std::span(vector) of a non-const vector): a
// parameter std::span<const K> alone deduced nothing from the latter, and the call did not compile.
template <class K, class I>
  requires(SortableKey<std::remove_const_t<K>> && (std::is_same_v<I, uint32_t> || std::is_same_v<I, uint64_t>))
SortStats argsort(Device& device, std::span<K> keys, std::span<I> indices, SortOptions options = {}) {
  options = detail::typed_options<std::remove_const_t<K>>(options);
  if (indices.size() != keys.size()) detail::throw_error("argsort: indices must have one entry per key");
  return argsort_host(device, keys.data(), keys.size(), indices.data(), uint32_t(sizeof(I)), options);
}

}  // namespace vksort
