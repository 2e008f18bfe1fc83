// SPDX-License-Identifier: MIT
#include "api/host_sorters.hpp"

namespace vksort::detail {

std::string options_key(const SortOptions& o) {
  // A new field of SortOptions or Tuning must join the key: this size changes with it.
  static_assert(sizeof(SortOptions) == 60 && sizeof(Tuning) == 32, "options_key must list every field");
  const Tuning& t = o.tuning;
  const uint32_t fields[] = {uint32_t(o.key), uint32_t(o.order), uint32_t(o.algorithm), o.value_bytes,
                             uint32_t(o.brick_variant), t.workgroup_size, t.items_per_thread, t.radix_bits,
                             t.samples, uint32_t(t.radix_ranking), uint32_t(t.radix_scan), t.lookback_window,
                             uint32_t(t.radix_staging), o.begin_bit, o.end_bit};
  std::string key;
  for (uint32_t f : fields) key += std::to_string(f) + ",";
  return key;
}

HostSorters::Lease HostSorters::take(const Device& device, const SortOptions& options) {
  std::string key = options_key(options);
  uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it)
      if ((*it)->key == key) {
        std::unique_ptr<Entry> entry = std::move(*it);
        idle_.erase(std::next(it).base());
        return Lease(*this, std::move(entry));
      }
    // Read before the Sorter reads the profile: a clear() in between makes the entry one not kept.
    generation = generation_;
  }
  Device plain = device;
  return Lease(*this,
               std::unique_ptr<Entry>(new Entry{std::move(key), Sorter(plain, options), Buffer(), Buffer(), generation}));
}

void HostSorters::give_back(std::unique_ptr<Entry> entry, VkDeviceSize bytes_held) {
  if (!entry || bytes_held > keep_bytes) return;  // too large to keep: freed here
  std::unique_ptr<Entry> dropped;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  if (entry->generation != generation_) {  // made before a clear(): its choices may be stale
    dropped = std::move(entry);
    return;
  }
  idle_.push_back(std::move(entry));
  if (idle_.size() > keep_entries) {
    dropped = std::move(idle_.front());
    idle_.erase(idle_.begin());
  }
}

std::shared_ptr<void> HostSorters::take_composed(const std::string& key, uint64_t* generation) {
  std::lock_guard lock(mutex_);
  *generation = generation_;
  for (auto it = idle_composed_.rbegin(); it != idle_composed_.rend(); ++it)
    if (it->first == key) {
      std::shared_ptr<void> sorter = std::move(it->second);
      idle_composed_.erase(std::next(it).base());
      return sorter;
    }
  return nullptr;
}

void HostSorters::give_back_composed(std::string key, std::shared_ptr<void> sorter, uint64_t generation) {
  std::shared_ptr<void> dropped;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  if (generation != generation_) {  // made before a clear(), as in give_back
    dropped = std::move(sorter);
    return;
  }
  idle_composed_.emplace_back(std::move(key), std::move(sorter));
  if (idle_composed_.size() > keep_entries) {
    dropped = std::move(idle_composed_.front().second);
    idle_composed_.erase(idle_composed_.begin());
  }
}

size_t HostSorters::idle() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

void HostSorters::clear() {
  std::vector<std::unique_ptr<Entry>> dropped;
  std::vector<std::pair<std::string, std::shared_ptr<void>>> dropped_composed;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(idle_);
    dropped_composed.swap(idle_composed_);
    ++generation_;
  }
}

}  // namespace vksort::detail
