// SPDX-License-Identifier: MIT
// What argsort and segmented sort share as sorts built from a Sorter and kernels of their own: a
// Sorter recorded in the middle of their recording, and their host paths' timed submission.
#pragma once

#include <functional>
#include <string>

#include "gpu/recorder.hpp"
#include "vksort/sorter.hpp"
#include "vksort/types.hpp"

namespace vksort::api {

// Records `sorter` into rec's command buffer; throws vksort::Error with its Status when it refuses.
void record_nested(gpu::Recorder& rec, Sorter& sorter, const SortBuffers& buffers, uint64_t n);

// Records with `record` (which marks its phases with rec.phase), after a barrier that makes earlier
// uploads visible; submits, waits and returns the phases' GPU times. Throws vksort::Error.
SortStats timed_submit(gpu::Context& ctx, const std::string& what, const std::function<void(gpu::Recorder&)>& record);

}  // namespace vksort::api
