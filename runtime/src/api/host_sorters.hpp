// SPDX-License-Identifier: MIT
// What vksort::sort on host data (sort_host) keeps between calls on one Device: a Sorter per options,
// whose pipelines are most of a small sort's cost when made anew every call, with the device buffers the
// keys and values pass through. Entries whose memory (buffers and the Sorter's scratch, as allocated:
// held_bytes) exceeds `keep_bytes` are not kept, so no large allocation outlives its call; at most
// `keep_entries` are kept, the least recently used going first. Thread-safe: each call takes an entry
// for itself (a Sorter is not shared by concurrent sorts) and gives it back.
//
// The Device owns this cache; the Sorters and Buffers in it hold a Device copy without it (see
// detail::Internals::without_host_sorters), or they would keep the cache, and so themselves, alive forever.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vksort/buffer.hpp"
#include "vksort/sorter.hpp"

namespace vksort::detail {

class HostSorters {
 public:
  static constexpr VkDeviceSize keep_bytes = VkDeviceSize(16) << 20;
  static constexpr size_t keep_entries = 4;

  struct Entry {
    std::string key;  // the options it was made for (options_key)
    Sorter sorter;
    Buffer keys, values;  // empty until a call needs them; grown on demand
    uint64_t generation = 0;  // the cache's generation when the Sorter was made (see clear())
    VkDeviceSize bytes = 0;  // held_bytes when it was last given back
  };

  class Lease {
   public:
    Lease(HostSorters& cache, std::unique_ptr<Entry> entry) : cache_(cache), entry_(std::move(entry)) {}
    ~Lease() { cache_.give_back(std::move(entry_), completed); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Entry& operator*() const { return *entry_; }
    Entry* operator->() const { return entry_.get(); }
    // Set by a caller whose sort completed; an entry left unset (a sort that threw) is not kept. What
    // the entry then holds is measured when it is given back (held_bytes), not taken from the caller.
    bool completed = false;

   private:
    HostSorters& cache_;
    std::unique_ptr<Entry> entry_;
  };

  // An entry for `options` on `device` (a Device copy without this cache): an idle one made for the same
  // options, or a new one (throws what the Sorter's constructor throws).
  Lease take(const Device& device, const SortOptions& options);
  // Argsort's and segmented sort's host paths keep their pipelines here too (their own Impl, made on a
  // Device copy without this cache), by a key naming the kind and the options: an idle one taken out
  // (null if none), given back after a call that completed. Up to keep_entries are kept. *generation is
  // set to the cache's generation (the one to make a new Impl under, and to give it back with).
  std::shared_ptr<void> take_composed(const std::string& key, uint64_t* generation);
  void give_back_composed(std::string key, std::shared_ptr<void> sorter, uint64_t generation);
  // Drops every idle entry (their memory and pipelines): after the auto profile changes, or to give
  // device memory back (Device::release_cached_memory). Entries in use then (another thread's sort) are
  // not freed under it; they are not kept when given back: a new generation begins, and only entries
  // made in it are kept.
  void clear();

  // What is kept now, for tests: Sorter entries, their keys (least recently used first) and the bytes
  // they hold (the sum of their held_bytes); argsort's and segmented sort's entries.
  size_t idle() const;
  std::vector<std::string> idle_keys() const;
  VkDeviceSize idle_bytes() const;
  size_t idle_composed() const;

  // The device memory an entry holds between calls: its key and value buffers and what its Sorter
  // holds (sorter_held_bytes), as allocated, however large the last call was.
  static VkDeviceSize held_bytes(Entry& entry);

 private:
  void give_back(std::unique_ptr<Entry> entry, bool completed);
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> idle_;  // least recently used first
  std::vector<std::pair<std::string, std::shared_ptr<void>>> idle_composed_;  // likewise
  uint64_t generation_ = 0;  // clear()s so far
};

// Every field of SortOptions, and the VKSORT_* environment variables with their values, as one string:
// equal strings, equal Sorters. Sorters read the sorts' environment knobs (sort/env_knobs.hpp:
// VKSORT_RADIX_PLAIN_SCANS, VKSORT_HISTOGRAM_REPLICAS, ...) when they are made, so a kept one made
// under other values would sort as they said: a changed knob makes a new entry instead. Every
// VKSORT_* variable joins the key (the knobs need no list kept here); one that changes nothing a
// Sorter reads costs a Sorter made anew, once.
std::string options_key(const SortOptions& o);

// The device memory a Sorter holds between calls: the scratch and read-back staging its sort() grew
// (sorter.cpp), at their allocated sizes (an earlier, larger call's, or another algorithm's under
// Algorithm::automatic), not what the next n needs.
VkDeviceSize sorter_held_bytes(Sorter& sorter);

}  // namespace vksort::detail
