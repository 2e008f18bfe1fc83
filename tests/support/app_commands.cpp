// SPDX-License-Identifier: MIT
#include "support/app_commands.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <mutex>

#include "api/internals.hpp"
#include "distributions.hpp"
#include "reference_sort.hpp"
#include "support/test_device.hpp"

namespace vksort::test {

AppCommands::AppCommands(Device& device) : ctx_(detail::context_of(device)) {
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = device.info().queue_family;
  REQUIRE(ctx_.vk.vkCreateCommandPool(ctx_.device, &pool_info, nullptr, &pool_) == VK_SUCCESS);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  REQUIRE(ctx_.vk.vkAllocateCommandBuffers(ctx_.device, &alloc, &cmd_) == VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  REQUIRE(ctx_.vk.vkBeginCommandBuffer(cmd_, &begin) == VK_SUCCESS);
}

AppCommands::~AppCommands() {
  if (pool_) ctx_.vk.vkDestroyCommandPool(ctx_.device, pool_, nullptr);
}

void AppCommands::barrier(VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                          VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  ctx_.vk.vkCmdPipelineBarrier(cmd_, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void AppCommands::documented_barrier() {
  barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void AppCommands::submit_and_wait() {
  REQUIRE(ctx_.vk.vkEndCommandBuffer(cmd_) == VK_SUCCESS);
  submit_again_and_wait();
}

void AppCommands::submit_again_and_wait() {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd_;
  {
    // The queue is shared with vksort's own submissions on this device.
    std::lock_guard lock(ctx_.submit_mutex);
    REQUIRE(ctx_.vk.vkQueueSubmit(ctx_.queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS);
    REQUIRE(ctx_.vk.vkQueueWaitIdle(ctx_.queue) == VK_SUCCESS);
  }
  CHECK_NOTHROW(ctx_.raise_validation_messages());
}

void check_two_recorded_sorts(const SortOptions& o) {
  using workloads::Distribution;
  Device& gpu = device();
  Sorter sorter(gpu, o);
  const uint64_t na = 30011, nb = 777;
  std::vector<std::byte> a = workloads::generate_keys(o.key, {Distribution::special, 0}, na, 1);
  std::vector<std::byte> b = workloads::generate_keys(o.key, {Distribution::uniform, 0}, nb, 2);
  std::vector<uint32_t> va = workloads::generate_values(na), vb = workloads::generate_values(nb);
  Buffer ka(gpu, a.size(), "a"), kb(gpu, b.size(), "b"), vals_a(gpu, na * 4, "va"), vals_b(gpu, nb * 4, "vb");
  Buffer scratch(gpu, std::max(sorter.scratch_bytes(na), sorter.scratch_bytes(nb)), "scratch");
  ka.upload(a), kb.upload(b);
  vals_a.upload(std::as_bytes(std::span(va))), vals_b.upload(std::as_bytes(std::span(vb)));

  AppCommands app(gpu);
  Status s1 = sorter.record(app.cmd(), {ka.ref(), vals_a.ref(), scratch.ref()}, na);
  CHECK_MESSAGE(s1.ok(), s1.message);
  // The contract (sorter.hpp's "before"): the second sort may reuse the scratch once the caller's
  // compute-stage barrier orders the first sort before it. Nothing more: a wider barrier (indirect or
  // transfer stages) would hide a sort that fails to order its own fills and indirect reads.
  app.documented_barrier();
  Status s2 = sorter.record(app.cmd(), {kb.ref(), vals_b.ref(), scratch.ref()}, nb);
  CHECK_MESSAGE(s2.ok(), s2.message);
  Status small = sorter.record(app.cmd(), {kb.ref(), vals_b.ref(), {scratch.vk_buffer(), 0, 4}}, nb);
  CHECK_FALSE(small.ok());
  CHECK(small.message.find("scratch") != std::string::npos);
  app.submit_and_wait();

  std::vector<std::byte> ea = a, eb = b;
  std::vector<uint32_t> eva = va, evb = vb;
  workloads::reference_sort(o.key, o.order, ea, eva);
  workloads::reference_sort(o.key, o.order, eb, evb);
  ka.download(a), kb.download(b);
  vals_a.download(std::as_writable_bytes(std::span(va))), vals_b.download(std::as_writable_bytes(std::span(vb)));
  CHECK(workloads::first_difference(o.key, ea, a, eva, va) == "");
  CHECK(workloads::first_difference(o.key, eb, b, evb, vb) == "");
}

void check_sorts_sharing_scratch(std::span<Sorter* const> sorters, std::span<const uint64_t> ns,
                                 const std::function<std::vector<std::byte>(int)>& keys_of) {
  REQUIRE(sorters.size() == ns.size());
  Device& gpu = device();
  const int count = int(sorters.size());
  VkDeviceSize scratch_bytes = 0;
  for (int i = 0; i < count; ++i) scratch_bytes = std::max(scratch_bytes, sorters[i]->scratch_bytes(ns[i]));
  Buffer scratch(gpu, scratch_bytes, "shared scratch");
  std::vector<std::vector<std::byte>> keys;
  std::vector<std::vector<uint32_t>> values;
  std::vector<Buffer> key_buffers, value_buffers;
  for (int i = 0; i < count; ++i) {
    keys.push_back(keys_of(i));
    REQUIRE(keys[i].size() == ns[i] * key_bytes(sorters[i]->options().key));
    values.push_back(workloads::generate_values(ns[i]));
    key_buffers.emplace_back(gpu, keys[i].size(), "keys");
    value_buffers.emplace_back(gpu, ns[i] * 4, "values");
    key_buffers[i].upload(keys[i]);
    value_buffers[i].upload(std::as_bytes(std::span(values[i])));
  }
  {
    AppCommands app(gpu);
    for (int i = 0; i < count; ++i) {
      if (i) app.documented_barrier();
      const Status s = sorters[i]->record(app.cmd(), {key_buffers[i].ref(), value_buffers[i].ref(), scratch.ref()}, ns[i]);
      REQUIRE_MESSAGE(s.ok(), s.message);
    }
    app.submit_and_wait();  // raises any validation message, synchronization hazards included
  }
  for (int i = 0; i < count; ++i) {
    INFO("sort " << i);
    const SortOptions& o = sorters[i]->options();
    std::vector<std::byte> want = keys[i], got(keys[i].size());
    std::vector<uint32_t> want_values = values[i], got_values(ns[i]);
    workloads::reference_sort(o.key, o.order, want, want_values);
    key_buffers[i].download(got);
    value_buffers[i].download(std::as_writable_bytes(std::span(got_values)));
    CHECK(workloads::first_difference(o.key, want, got, want_values, got_values) == "");
  }
}

}  // namespace vksort::test
