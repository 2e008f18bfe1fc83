// SPDX-License-Identifier: MIT
#include "api/host_sorters.hpp"

#include <algorithm>
#include <cstring>

#if defined(_WIN32)
#include <stdlib.h>  // _environ
#elif defined(__APPLE__)
#include <crt_externs.h>  // _NSGetEnviron: a shared library on macOS cannot name `environ` itself
#else
extern char** environ;
#endif

namespace vksort::detail {

namespace {

char** process_environment() {
#if defined(_WIN32)
  return _environ;
#elif defined(__APPLE__)
  return *_NSGetEnviron();
#else
  return environ;
#endif
}

// "NAME=value;" for every VKSORT_* variable, sorted (setenv may move a variable in the list).
std::string vksort_environment() {
  std::vector<std::string> vars;
  if (char** env = process_environment())
    for (; *env; ++env)
      if (std::strncmp(*env, "VKSORT_", 7) == 0) vars.emplace_back(*env);
  std::sort(vars.begin(), vars.end());
  std::string all;
  for (const std::string& v : vars) all += v + ";";
  return all;
}

}  // namespace

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
  return key + " " + vksort_environment();
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

VkDeviceSize HostSorters::held_bytes(Entry& entry) {
  return entry.keys.size() + entry.values.size() + sorter_held_bytes(entry.sorter);
}

void HostSorters::give_back(std::unique_ptr<Entry> entry, bool completed) {
  if (!entry || !completed) return;  // a sort that threw: freed here
  entry->bytes = held_bytes(*entry);
  if (entry->bytes > keep_bytes) return;  // too large to keep: freed here
  std::unique_ptr<Entry> dropped;  // destroyed outside the lock (declared before it: destroyed after it is released)
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

std::vector<std::string> HostSorters::idle_keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> keys;
  for (const auto& e : idle_) keys.push_back(e->key);
  return keys;
}

VkDeviceSize HostSorters::idle_bytes() const {
  std::lock_guard lock(mutex_);
  VkDeviceSize bytes = 0;
  for (const auto& e : idle_) bytes += e->bytes;
  return bytes;
}

size_t HostSorters::idle_composed() const {
  std::lock_guard lock(mutex_);
  return idle_composed_.size();
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
