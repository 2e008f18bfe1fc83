// SPDX-License-Identifier: MIT
// A compute pipeline built from an embedded shader, with specialization constants and push constants.
// Buffers reach shaders as device addresses in push constants; kernels built with `buffer_bindings`
// also reach some through storage-buffer bindings of set 0, pushed at record time
// (Recorder::push_buffers; only where Context::push_descriptors).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "gpu/context.hpp"

namespace vksort::gpu {

struct SpecValue {
  uint32_t id;
  uint32_t value;  // bool constants take 0 or 1
};

// Whether a pipeline of `workgroup_size` invocations may require full subgroups on this device: it
// offers computeFullSubgroups (DeviceInfo::full_subgroups) and the workgroup is a multiple of
// maxSubgroupSize (VK_EXT_subgroup_size_control's rule), so of the subgroup size too.
inline bool can_require_full_subgroups(const DeviceInfo& info, uint32_t workgroup_size) {
  return info.full_subgroups && info.max_subgroup_size && workgroup_size % info.max_subgroup_size == 0;
}

class Kernel {
 public:
  Kernel() = default;
  // `shader` names an embedded shader ("brick_tile_sort_k32"); `workgroup_size` is specialization
  // constant 0 (local_size_x_id = 0) of every vksort shader.
  // `full_subgroups`: the pipeline requires full subgroups (REQUIRE_FULL_SUBGROUPS); only where
  // can_require_full_subgroups (else an internal error).
  // `buffer_bindings`: binding k of set 0 is an array of buffer_bindings[k] storage buffers, pushed
  // (a push-descriptor set layout); none by default.
  Kernel(Context& ctx, const std::string& shader, uint32_t workgroup_size, std::initializer_list<SpecValue> spec,
         uint32_t push_bytes, bool full_subgroups = false, std::initializer_list<uint32_t> buffer_bindings = {});
  ~Kernel();
  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&& other) noexcept;

  VkPipeline pipeline() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  // The storage-buffer bindings' descriptor counts (empty: the kernel binds none).
  const std::vector<uint32_t>& buffer_bindings() const { return buffer_bindings_; }
  uint32_t workgroup_size() const { return workgroup_size_; }
  uint32_t push_bytes() const { return push_bytes_; }
  const std::string& name() const { return name_; }

 private:
  void release() noexcept;
  Context* ctx_ = nullptr;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  std::vector<uint32_t> buffer_bindings_;
  uint32_t workgroup_size_ = 0;
  uint32_t push_bytes_ = 0;
  std::string name_;
};

}  // namespace vksort::gpu
