// SPDX-License-Identifier: MIT
// gpu_buffer.hpp — what the app's kernels need of buffers beyond vksort::Buffer (the device memory
// the app allocates on its borrowed vksort::Device, host copies included): the device address of a
// buffer vksort lent (its bucket lists), and the barriers between passes.
#pragma once

#include <vulkan/vulkan_core.h>

#include <vksort/buffer.hpp>

#include "gpu_context.hpp"

namespace particles::gpu {

// The device address of any buffer made with SHADER_DEVICE_ADDRESS usage (vksort's head and next).
VkDeviceAddress address_of(const Context& ctx, const vksort::BufferRef& ref);

// Makes compute-shader writes visible to compute-shader reads and writes (the barrier between passes).
void compute_barrier(VkCommandBuffer cmd);
// Compute and transfer writes visible to compute and transfer reads and writes (around buffer copies).
void compute_transfer_barrier(VkCommandBuffer cmd);
// Compute writes visible to compute reads and writes and to indirect dispatches' argument reads.
void compute_indirect_barrier(VkCommandBuffer cmd);

}  // namespace particles::gpu
