// SPDX-License-Identifier: MIT
#include "gpu/kernel.hpp"

#include <cstddef>
#include <utility>
#include <vector>

#include "gpu/pipeline_statistics.hpp"
#include "gpu/shader_code.hpp"
#include "vksort/error.hpp"

namespace vksort::gpu {

Kernel::Kernel(Context& ctx, const std::string& shader, uint32_t workgroup_size, std::initializer_list<SpecValue> spec,
               uint32_t push_bytes, bool full_subgroups, std::initializer_list<uint32_t> buffer_bindings)
    : ctx_(&ctx), buffer_bindings_(buffer_bindings), workgroup_size_(workgroup_size), push_bytes_(push_bytes), name_(shader) {
  if (!buffer_bindings_.empty() && !ctx.push_descriptors)
    throw Error("internal: " + shader + " binds storage buffers on \"" + ctx.info.name + "\", which vksort pushes no descriptors to");
  std::span<const uint32_t> code = shader_code(shader);
  if (code.empty()) throw Error("internal: no embedded shader named \"" + shader + "\"");
  if (full_subgroups && !can_require_full_subgroups(ctx.info, workgroup_size))
    throw Error("internal: " + shader + " asks for full subgroups of " + std::to_string(workgroup_size) + " invocations on \"" +
                ctx.info.name + "\" (full subgroups " + (ctx.info.full_subgroups ? "on" : "off") + ", maxSubgroupSize " +
                std::to_string(ctx.info.max_subgroup_size) + ")");
  if (push_bytes > ctx.info.max_push_constants)
    throw Error(Status::Code::unsupported, "shader " + shader + " needs " + std::to_string(push_bytes) + " bytes of push constants; \"" +
                ctx.info.name + "\" offers " + std::to_string(ctx.info.max_push_constants));

  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = code.size_bytes();
  module_info.pCode = code.data();
  VkShaderModule module = VK_NULL_HANDLE;
  check(ctx.vk.vkCreateShaderModule(ctx.device, &module_info, ctx.allocator, &module), "creating shader module " + shader);

  if (!buffer_bindings_.empty()) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (uint32_t k = 0; k < buffer_bindings_.size(); ++k)
      bindings.push_back({k, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffer_bindings_[k], VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    set_info.bindingCount = uint32_t(bindings.size());
    set_info.pBindings = bindings.data();
    if (VkResult r = ctx.vk.vkCreateDescriptorSetLayout(ctx.device, &set_info, ctx.allocator, &set_layout_); r != VK_SUCCESS) {
      ctx.vk.vkDestroyShaderModule(ctx.device, module, ctx.allocator);
      throw Error("creating the descriptor set layout of " + shader + ": " + result_name(r), r);
    }
  }
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = set_layout_ ? 1 : 0;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = push_bytes ? 1 : 0;
  layout_info.pPushConstantRanges = &range;
  if (VkResult r = ctx.vk.vkCreatePipelineLayout(ctx.device, &layout_info, ctx.allocator, &layout_); r != VK_SUCCESS) {
    ctx.vk.vkDestroyShaderModule(ctx.device, module, ctx.allocator);
    release();
    throw Error("creating the pipeline layout of " + shader + ": " + result_name(r), r);
  }

  std::vector<SpecValue> values{{0, workgroup_size}};
  values.insert(values.end(), spec.begin(), spec.end());
  std::vector<VkSpecializationMapEntry> entries;
  for (size_t i = 0; i < values.size(); ++i)
    entries.push_back({values[i].id, uint32_t(i * sizeof(SpecValue) + offsetof(SpecValue, value)), sizeof(uint32_t)});
  VkSpecializationInfo spec_info{uint32_t(entries.size()), entries.data(), values.size() * sizeof(SpecValue), values.data()};

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = &spec_info;
  if (full_subgroups) info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
  info.layout = layout_;
  // Statistics describe a compilation: no cache, whose hit might carry none.
  if (ctx.pipeline_statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkResult r = ctx.vk.vkCreateComputePipelines(ctx.device, ctx.pipeline_statistics ? VK_NULL_HANDLE : ctx.pipeline_cache, 1,
                                               &info, ctx.allocator, &pipeline_);
  ctx.vk.vkDestroyShaderModule(ctx.device, module, ctx.allocator);
  if (r != VK_SUCCESS) {
    release();
    throw Error("creating the compute pipeline " + shader + ": " + result_name(r), r);
  }
  if (ctx.pipeline_statistics) {
    std::string constants = "workgroup " + std::to_string(workgroup_size) + (full_subgroups ? " full subgroups" : "");
    for (const SpecValue& v : spec) constants += ", spec " + std::to_string(v.id) + "=" + std::to_string(v.value);
    report_pipeline_statistics(ctx, pipeline_, shader, constants);
  }
}

void Kernel::release() noexcept {
  if (!ctx_) return;
  if (pipeline_) ctx_->vk.vkDestroyPipeline(ctx_->device, pipeline_, ctx_->allocator);
  if (layout_) ctx_->vk.vkDestroyPipelineLayout(ctx_->device, layout_, ctx_->allocator);
  if (set_layout_) ctx_->vk.vkDestroyDescriptorSetLayout(ctx_->device, set_layout_, ctx_->allocator);
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
}

Kernel::~Kernel() { release(); }

Kernel::Kernel(Kernel&& o) noexcept
    : ctx_(o.ctx_), pipeline_(std::exchange(o.pipeline_, VK_NULL_HANDLE)), layout_(std::exchange(o.layout_, VK_NULL_HANDLE)),
      set_layout_(std::exchange(o.set_layout_, VK_NULL_HANDLE)), buffer_bindings_(std::move(o.buffer_bindings_)),
      workgroup_size_(o.workgroup_size_), push_bytes_(o.push_bytes_), name_(std::move(o.name_)) {}

Kernel& Kernel::operator=(Kernel&& o) noexcept {
  if (this != &o) {
    release();
    ctx_ = o.ctx_;
    pipeline_ = std::exchange(o.pipeline_, VK_NULL_HANDLE);
    layout_ = std::exchange(o.layout_, VK_NULL_HANDLE);
    set_layout_ = std::exchange(o.set_layout_, VK_NULL_HANDLE);
    buffer_bindings_ = std::move(o.buffer_bindings_);
    workgroup_size_ = o.workgroup_size_;
    push_bytes_ = o.push_bytes_;
    name_ = std::move(o.name_);
  }
  return *this;
}

}  // namespace vksort::gpu
