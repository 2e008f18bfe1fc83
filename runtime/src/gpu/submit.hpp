// SPDX-License-Identifier: MIT
// The convenience path: record into a command buffer of vksort's own pool, submit, wait.
#pragma once

#include <functional>
#include <string>

#include "gpu/context.hpp"

namespace vksort::gpu {

// Records with `record`, submits on the context's queue and waits. `what` names the work in errors
// ("sorting 1000000 u32 keys"). Raises validation messages reported meanwhile.
void submit_and_wait(Context& ctx, const std::string& what, const std::function<void(VkCommandBuffer)>& record);

}  // namespace vksort::gpu
