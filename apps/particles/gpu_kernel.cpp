// SPDX-License-Identifier: MIT
#include "gpu_kernel.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "model.hpp"

namespace particles::gpu {

Kernel::Kernel(const Context& ctx, const Bindings& bindings, std::span<const uint32_t> spirv, uint32_t push_bytes,
               const char* name, uint32_t variant, std::span<const uint32_t> constants)
    : ctx_(ctx), push_bytes_(push_bytes), bindings_(bindings) {
  if (spirv.empty()) throw Error(std::string("shader ") + name + " is not embedded");
  const std::string what = std::string("creating the ") + name + " pipeline";
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = spirv.size_bytes();
  smci.pCode = spirv.data();
  check(vkCreateShaderModule(ctx.device(), &smci, nullptr, &module_), what.c_str());
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  const VkDescriptorSetLayout set_layout = bindings.layout();
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout;
  check(vkCreatePipelineLayout(ctx.device(), &plci, nullptr, &layout_), what.c_str());
  std::vector<uint32_t> words = {workgroup_size, variant};
  words.insert(words.end(), constants.begin(), constants.end());
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t k = 0; k < words.size(); ++k)
    entries.push_back({k < 2 ? k : first_constant + k - 2, 4 * k, sizeof(uint32_t)});
  VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), 4 * words.size(), words.data()};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module_;
  cpci.stage.pName = "main";
  cpci.stage.pSpecializationInfo = &spec;
  cpci.layout = layout_;
  check(vkCreateComputePipelines(ctx.device(), VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline_), what.c_str());
}

Kernel::~Kernel() {
  vkDestroyPipeline(ctx_.device(), pipeline_, nullptr);
  vkDestroyPipelineLayout(ctx_.device(), layout_, nullptr);
  vkDestroyShaderModule(ctx_.device(), module_, nullptr);
}

void Kernel::dispatch(VkCommandBuffer cmd, const void* push, uint32_t n) const {
  if (n == 0) return;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  bind(cmd);
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_, push);
  const std::array<uint32_t, 3> g = groups(n);
  vkCmdDispatch(cmd, g[0], g[1], g[2]);
}

void Kernel::dispatch_indirect(VkCommandBuffer cmd, const void* push, VkBuffer args, VkDeviceSize offset) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  bind(cmd);
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_, push);
  vkCmdDispatchIndirect(cmd, args, offset);
}

void Kernel::bind(VkCommandBuffer cmd) const {
  const VkDescriptorSet set = bindings_.set();
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
}

std::array<uint32_t, 3> Kernel::groups(uint32_t n) const {
  const uint32_t groups = (n + workgroup_size - 1) / workgroup_size;
  const uint32_t x = std::max(1u, std::min(groups, ctx_.max_group_count_x()));
  return {x, (groups + x - 1) / x, 1};
}

}  // namespace particles::gpu
