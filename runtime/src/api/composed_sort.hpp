// SPDX-License-Identifier: MIT
// What argsort and segmented sort share as sorts built from a Sorter and kernels of their own: a
// Sorter recorded in the middle of their recording, and their host paths' timed submission.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>

#include "api/host_sorters.hpp"
#include "api/internals.hpp"
#include "gpu/recorder.hpp"
#include "vksort/sorter.hpp"
#include "vksort/types.hpp"

namespace vksort::api {

// Records `sorter` into rec's command buffer (with a GPU-side count: record_indirect, n its max_n);
// throws vksort::Error with its Status when it refuses.
void record_nested(gpu::Recorder& rec, Sorter& sorter, const SortBuffers& buffers, uint64_t n, BufferRef count = {});
// Throws vksort::Error when record_nested with these arguments would, recording nothing: called before a
// recording's first command, so that a refusal records nothing (as the public record() calls promise).
void check_nested(Sorter& sorter, const SortBuffers& buffers, uint64_t n, BufferRef count = {});

// A host path's Impl (pipelines), taken from the Device's cache or made by make(Device) on a Device copy
// without the cache; given back to the cache when `completed` is set (a call that threw keeps nothing).
template <class Impl>
struct CachedImpl {
  std::shared_ptr<Impl> impl;
  detail::HostSorters* cache = nullptr;
  std::string key;
  uint64_t generation = 0;  // the cache's, when impl was taken or made (HostSorters::take_composed)
  bool completed = false;
  ~CachedImpl() {
    if (completed && cache) cache->give_back_composed(std::move(key), std::move(impl), generation);
  }
  Impl* operator->() const { return impl.get(); }
};
template <class Impl, class Make>
CachedImpl<Impl> cached_impl(Device& device, std::string key, Make&& make) {
  CachedImpl<Impl> c;
  c.cache = detail::Internals::host_sorters(device);
  c.key = std::move(key);
  if (c.cache) c.impl = std::static_pointer_cast<Impl>(c.cache->take_composed(c.key, &c.generation));
  if (!c.impl) c.impl = make(detail::Internals::without_host_sorters(device));
  return c;
}

// One result of a host path on its way back: `bytes` from `offset` in `from` into the caller's `to`.
struct HostDownload {
  const Buffer* from;
  void* to;
  uint64_t bytes;
  uint64_t offset = 0;
};
// Brings every download back in ONE submission (Buffer::download is one of them) (each through staging of its own) and writes the caller's
// memory only once it has completed: a failure (a lost device, no staging memory) leaves all of it as
// it was. Downloading keys and then values one by one left the keys sorted beside values that were
// not when the second download failed, the pairs lost. Downloads of 0 bytes are skipped. Throws
// vksort::Error.
void download_together(gpu::Context& ctx, std::initializer_list<HostDownload> downloads);

// Records with `record` (which marks its phases with rec.phase), after a barrier that makes earlier
// uploads visible; submits, waits and returns the phases' GPU times. Throws vksort::Error.
SortStats timed_submit(gpu::Context& ctx, const std::string& what, const std::function<void(gpu::Recorder&)>& record);

}  // namespace vksort::api
