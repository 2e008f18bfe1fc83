// SPDX-License-Identifier: MIT
// gpu_kernel.hpp — one compute pipeline from embedded SPIR-V, fed by push constants (buffer device
// addresses inside them) and the particle arrays' descriptor set (gpu::Bindings), dispatched over n items.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include <vulkan/vulkan_core.h>

#include "gpu_bindings.hpp"
#include "gpu_context.hpp"

namespace particles::gpu {

class Kernel {
 public:
  static constexpr uint32_t workgroup_size = 64;  // every particle shader's local_size_x (spec id 0)

  // `variant` is specialization constant 1, for shaders that compile work in or out by it, and
  // constants[k] is specialization constant first_constant + k (the particle kernels: Params' words,
  // shaders/params_constants.glsl); shaders without them ignore them.
  static constexpr uint32_t first_constant = 16;
  // `bindings` is bound as set 0 at every dispatch; it must outlive the kernel.
  Kernel(const Context& ctx, const Bindings& bindings, std::span<const uint32_t> spirv, uint32_t push_bytes,
         const char* name, uint32_t variant = 0, std::span<const uint32_t> constants = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Binds, pushes `push` and dispatches ceil(n / workgroup_size) groups on a 2-D grid (x stays within
  // maxComputeWorkGroupCount[0]); the shader recovers the linear group id and drops items >= n.
  void dispatch(VkCommandBuffer cmd, const void* push, uint32_t n) const;
  // The same with the group counts (x, y, z) read from `args` at `offset` when the GPU runs it (some
  // earlier pass wrote them: groups(n), or zeros for no work).
  void dispatch_indirect(VkCommandBuffer cmd, const void* push, VkBuffer args, VkDeviceSize offset) const;
  // The group counts dispatch() uses for n items.
  std::array<uint32_t, 3> groups(uint32_t n) const;

 private:
  void bind(VkCommandBuffer cmd) const;
  const Context& ctx_;
  uint32_t push_bytes_;
  const Bindings& bindings_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace particles::gpu
