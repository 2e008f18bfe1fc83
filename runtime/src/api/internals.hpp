// SPDX-License-Identifier: MIT
// The runtime's own way into the public classes: the gpu::Context behind a Device or Buffer, and the
// host-sort cache a Device carries. Kept out of the public headers, so users see no internals.
#pragma once

#include "vksort/buffer.hpp"
#include "vksort/device.hpp"
#include "vksort/sorter.hpp"

namespace vksort::detail {

struct Internals {
  static gpu::Context& context(const Device& d) { return *d.ctx_; }
  // A Buffer's Device's context; null for an empty Buffer.
  static gpu::Context* context(const Buffer& b) { return b.context(); }
  // The Sorters and buffers vksort::sort on host data keeps between calls (shared by every copy of the
  // Device; null on the copies those Sorters hold), and such a copy: the cache's own entries hold one,
  // or they would keep the cache, and so themselves, alive forever.
  static HostSorters* host_sorters(const Device& d) { return d.host_sorters_.get(); }
  static Sorter::Impl& impl(Sorter& s) { return *s.impl_; }
  // A copy of the Device's auto profile, read under the lock set_auto_profile writes it under (Sorters
  // read it as they are created, which host sorts do on any thread; device.cpp).
  static AutoProfile auto_profile(const Device& d);
  static Device without_host_sorters(const Device& d) {
    Device copy(d);
    copy.host_sorters_.reset();
    return copy;
  }
};

inline gpu::Context& context_of(const Device& d) { return Internals::context(d); }

}  // namespace vksort::detail
