// SPDX-License-Identifier: MIT
// vksort inside an application's own Vulkan frame. The application (app_vulkan.*: plain Vulkan loader,
// its own instance, validation messenger, device, queue, buffers, pipelines, command buffer and
// timestamp query pool) records three things into one command buffer:
//   1. its own compute pass that fills keys (a hash of the index) and values (the index),
//   2. a vksort sort of those buffers, recorded with Sorter::record (its scratch is the app's too),
//   3. its own compute pass that checks the result on the GPU and counts what is wrong,
// with the barriers vksort/sorter.hpp documents between them, and submits it once. Exit status: 0 when
// the sort is right and no validation message was seen, 1 otherwise, 2 for bad arguments.
//
// With --gpu-count the fill pass also writes how many keys are live (a count the host never sees) and
// the sort is recorded with Sorter::record_indirect, which reads it on the GPU.
//
// Built with -fno-exceptions, as many engines are: vksort is reached only through its exception-free
// entry points (Device::create, Sorter::create, Sorter::record), which return a Status.
//
//   embed_example [--n N] [--key-bits B] [--gpu-count] [--validate] [--device NAME]
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include <vksort/vksort.hpp>

#include "app_vulkan.hpp"
#include "passes.h"

namespace {

const uint32_t fill_spirv[] =
#include "fill.spv.h"
    ;
const uint32_t check_spirv[] =
#include "check.spv.h"
    ;
constexpr uint32_t workgroup = 64;  // local_size_x of both passes

struct Args {
  uint32_t n = 300'000;
  uint32_t key_bits = 16;  // keys below 2^16: many equal keys, so stability is checked too
  bool validate = false;
  bool gpu_count = false;
  std::string device;
};

// The whole of `s` as a decimal number that fits 32 bits: no sign, nothing after it (strtoul read
// "1000abc" as 1000, 4294967297 as 1 and "-1" as 2^32 - 1).
bool whole_number(const char* s, uint32_t& out) {
  const char* end = s + std::strlen(s);
  const auto [stop, error] = std::from_chars(s, end, out);
  return error == std::errc() && stop == end;
}

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    bool valid = true;
    if (arg == "--validate") a.validate = true;
    else if (arg == "--gpu-count") a.gpu_count = true;
    else if (arg == "--n" && has_value) valid = whole_number(argv[++i], a.n);
    else if (arg == "--key-bits" && has_value) valid = whole_number(argv[++i], a.key_bits);
    else if (arg == "--device" && has_value) {
      a.device = argv[++i];
      valid = !a.device.empty();  // "" (a script's unset variable) names no device: it ran on the default
    } else return false;
    if (!valid) return false;
  }
  // One dispatch of 64-wide groups covers n: stay within the 65535 groups every device allows.
  return a.n >= 1 && a.n <= 65535u * workgroup && a.key_bits >= 1 && a.key_bits <= 32;
}

int run(const Args& args) {
  app::Gpu gpu = app::create_gpu(args.validate, args.device);
  std::printf("device: %s, n = %u, keys below 2^%u%s\n", gpu.name.c_str(), args.n, args.key_bits,
              args.gpu_count ? ", the first n - n/3 sorted (a count only the GPU knows)" : "");
  int status = 1;
  {
    // vksort borrows the application's handles and never destroys them; it calls Vulkan through its own
    // function table, so nothing the application set up (loader, messenger, queue) changes. It is told
    // which features the device was created with, and makes its pipelines through the engine's cache.
    VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &gpu.enabled12};
    vksort::BorrowedVulkan borrowed{gpu.instance, gpu.physical, gpu.device, gpu.queue, gpu.family, vkGetInstanceProcAddr};
    borrowed.enabled_features = &enabled;
    borrowed.pipeline_cache = gpu.pipeline_cache;
    vksort::Result<vksort::Device> sort_device = vksort::Device::create(borrowed);
    if (!sort_device) app::fail("vksort::Device::create: " + sort_device.status().message);
    vksort::Result<vksort::Sorter> made = vksort::Sorter::create(sort_device.value(), {.key = vksort::Key::u32, .value_bytes = 4});
    if (!made) app::fail("vksort::Sorter::create: " + made.status().message);
    vksort::Sorter& sorter = made.value();

    const VkDeviceSize bytes = VkDeviceSize(args.n) * 4;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    app::Buffer keys = app::create_buffer(gpu, bytes, storage, false);
    app::Buffer values = app::create_buffer(gpu, bytes, storage, false);
    app::Buffer scratch = app::create_buffer(gpu, args.gpu_count ? sorter.scratch_bytes_indirect(args.n) : sorter.scratch_bytes(args.n),
                                             storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
    app::Buffer counters = app::create_buffer(gpu, 4 * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    app::Buffer live = app::create_buffer(gpu, 4, storage, false);  // the GPU-side count
    app::Pipeline fill = app::create_pipeline(gpu, fill_spirv, sizeof(PassConstants));
    app::Pipeline check = app::create_pipeline(gpu, check_spirv, sizeof(PassConstants));

    VkCommandPool pool;
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = gpu.family;
    app::check(vkCreateCommandPool(gpu.device, &pool_info, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cmd_info.commandPool = pool;
    cmd_info.commandBufferCount = 1;
    app::check(vkAllocateCommandBuffers(gpu.device, &cmd_info, &cmd), "vkAllocateCommandBuffers");
    // The application's own timestamps: 0 before its fill pass, 1 before the sort, 2 after it,
    // 3 after its check pass.
    const bool timed = gpu.timestamp_period_ns > 0.0;
    VkQueryPool queries = VK_NULL_HANDLE;
    if (timed) {
      VkQueryPoolCreateInfo query_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      query_info.queryCount = 4;
      app::check(vkCreateQueryPool(gpu.device, &query_info, nullptr, &queries), "vkCreateQueryPool");
    }
    auto timestamp = [&](uint32_t index) {
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, index);
    };

    const PassConstants pc{keys.address, values.address, counters.address, args.gpu_count ? live.address : 0, args.n,
                           args.key_bits == 32 ? 0xFFFFFFFFu : (1u << args.key_bits) - 1};
    const uint32_t groups = (args.n + workgroup - 1) / workgroup;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    app::check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    if (timed) vkCmdResetQueryPool(cmd, queries, 0, 4);
    vkCmdFillBuffer(cmd, counters.buffer, 0, VK_WHOLE_SIZE, 0);
    timestamp(0);

    // 1. The application's pass writes keys and values.
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fill.pipeline);
    vkCmdPushConstants(cmd, fill.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    vkCmdDispatch(cmd, groups, 1, 1);
    // sorter.hpp, before: writes to keys/values visible to COMPUTE_SHADER as SHADER_READ | SHADER_WRITE.
    app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);

    // 2. The sort, recorded into the application's command buffer. The timestamps around it are the
    // application's own: BOTTOM_OF_PIPE latches once everything recorded before has finished, so
    // 2 - 1 is the GPU time of the sort alone (vksort's own timing exists only on Sorter::sort).
    timestamp(1);
    // The count's write (the fill pass) is covered by the same barrier.
    const vksort::SortBuffers buffers{.keys = {keys.buffer, 0, bytes}, .values = {values.buffer, 0, bytes},
                                      .scratch = {scratch.buffer, 0, scratch.size}};
    const vksort::Status recorded = args.gpu_count ? sorter.record_indirect(cmd, buffers, {live.buffer, 0, 4}, args.n)
                                                   : sorter.record(cmd, buffers, args.n);
    if (!recorded) {
      std::fprintf(stderr, "embed_example: vksort could not record the sort: %s\n", recorded.message.c_str());
    } else {
      timestamp(2);
      // sorter.hpp, after: keys/values written by COMPUTE_SHADER (SHADER_WRITE); our check reads them.
      // The fill of the counters (TRANSFER) must be visible to the check's atomics as well.
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);

      // 3. The application's pass uses the sorted buffers. vksort bound its own pipelines and push
      // constants, so bind ours again.
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, check.pipeline);
      vkCmdPushConstants(cmd, check.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
      vkCmdDispatch(cmd, groups, 1, 1);
      timestamp(3);
      app::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      app::check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

      VkFence fence;
      VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
      app::check(vkCreateFence(gpu.device, &fence_info, nullptr, &fence), "vkCreateFence");
      VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &cmd;
      app::check(vkQueueSubmit(gpu.queue, 1, &submit, fence), "vkQueueSubmit");
      app::check(vkWaitForFences(gpu.device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
      vkDestroyFence(gpu.device, fence, nullptr);

      // What a right result gives: no disorder, no torn pair, the values a permutation of 0..n-1.
      const uint32_t* c = static_cast<const uint32_t*>(counters.mapped);
      const uint32_t sum = uint32_t(uint64_t(args.n) * (args.n - 1) / 2);
      uint32_t xor_all = 0;
      for (uint32_t i = 0; i < args.n; ++i) xor_all ^= i;
      const bool right = c[0] == 0 && c[1] == 0 && c[2] == sum && c[3] == xor_all;
      std::printf("check pass: %u neighbours out of order, %u pairs torn apart, values %s\n", c[0], c[1],
                  c[2] == sum && c[3] == xor_all ? "a permutation" : "NOT a permutation");
      if (timed) {
        uint64_t t[4];
        app::check(vkGetQueryPoolResults(gpu.device, queries, 0, 4, sizeof t, t, sizeof t[0],
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                   "vkGetQueryPoolResults");
        auto ms = [&](int a, int b) { return double(t[b] - t[a]) * gpu.timestamp_period_ns * 1e-6; };
        std::printf("GPU time (application's timestamps): fill %.3f ms, sort %.3f ms, check %.3f ms\n", ms(0, 1),
                    ms(1, 2), ms(2, 3));
      }
      status = right ? 0 : 1;
    }

    if (queries) vkDestroyQueryPool(gpu.device, queries, nullptr);
    vkDestroyCommandPool(gpu.device, pool, nullptr);
    app::destroy_pipeline(gpu, check);
    app::destroy_pipeline(gpu, fill);
    for (app::Buffer* b : {&keys, &values, &scratch, &counters, &live}) app::destroy_buffer(gpu, *b);
  }  // the Sorter and vksort::Device let go of the borrowed device before the application destroys it
  app::destroy_gpu(gpu);
  if (app::validation_messages() > 0) {
    std::fprintf(stderr, "embed_example: %u validation message(s)\n", app::validation_messages());
    status = 1;
  }
  std::printf("%s\n", status == 0 ? "OK" : "FAILED");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr, "usage: embed_example [--n 1..%u] [--key-bits 1..32] [--gpu-count] [--validate] [--device NAME]\n",
                 65535u * workgroup);
    return 2;
  }
  return run(args);
}
