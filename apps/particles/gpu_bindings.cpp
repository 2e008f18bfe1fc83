// SPDX-License-Identifier: MIT
#include "gpu_bindings.hpp"

#include <algorithm>
#include <vector>

#include "model.hpp"

namespace particles::gpu {

void Bindings::check_limits(std::span<const Buffer> buffers, const VkPhysicalDeviceLimits& limits) {
  const uint64_t count = buffers.size();
  const uint32_t most = std::min(limits.maxPerStageDescriptorStorageBuffers, limits.maxDescriptorSetStorageBuffers);
  if (count > most)
    throw Error("the particle kernels bind " + std::to_string(count) + " storage buffers; this device allows " +
                std::to_string(most) + " (maxPerStageDescriptorStorageBuffers)");
  for (const Buffer& b : buffers)
    if (b.bytes > limits.maxStorageBufferRange)
      throw Error("the " + b.what + " take " + std::to_string(b.bytes) +
                  " bytes, more than this device binds at once (maxStorageBufferRange " +
                  std::to_string(limits.maxStorageBufferRange) + "): fewer particles");
}

Bindings::Bindings(const Context& ctx, std::span<const Buffer> buffers) : ctx_(ctx) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(ctx.physical(), &props);
  check_limits(buffers, props.limits);
  const uint32_t count = uint32_t(buffers.size());
  std::vector<VkDescriptorSetLayoutBinding> entries;
  for (uint32_t k = 0; k < count; ++k)
    entries.push_back({k, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayoutCreateInfo lci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  lci.bindingCount = count;
  lci.pBindings = entries.data();
  check(vkCreateDescriptorSetLayout(ctx.device(), &lci, nullptr, &layout_), "creating the buffer bindings' layout");
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count};
  VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pci.maxSets = 1;
  pci.poolSizeCount = 1;
  pci.pPoolSizes = &size;
  check(vkCreateDescriptorPool(ctx.device(), &pci, nullptr, &pool_), "creating the buffer bindings' pool");
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout_;
  check(vkAllocateDescriptorSets(ctx.device(), &ai, &set_), "allocating the buffer bindings");
  std::vector<VkDescriptorBufferInfo> infos;
  for (const Buffer& b : buffers) infos.push_back({b.buffer, 0, VK_WHOLE_SIZE});
  std::vector<VkWriteDescriptorSet> writes;
  for (uint32_t k = 0; k < count; ++k) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set_;
    w.dstBinding = k;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &infos[k];
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(ctx.device(), count, writes.data(), 0, nullptr);
}

Bindings::~Bindings() {
  vkDestroyDescriptorPool(ctx_.device(), pool_, nullptr);
  vkDestroyDescriptorSetLayout(ctx_.device(), layout_, nullptr);
}

}  // namespace particles::gpu
