// SPDX-License-Identifier: MIT
#include "gpu/pipeline_statistics.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vksort::gpu {

bool pipeline_statistics_requested() {
  const char* v = std::getenv("VKSORT_PIPELINE_STATS");
  return v && *v && std::strcmp(v, "0") != 0;
}

bool add_pipeline_statistics(const InstanceFns& ifn, VkPhysicalDevice physical, std::vector<const char*>& extensions,
                             VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR& feature, void** chain) {
  return add_extension_feature(ifn, physical, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME,
                               VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
                               &VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR::pipelineExecutableInfo, feature,
                               extensions, chain);
}

bool CompiledPipeline::number(const std::string& name, double& value) const {
  for (const auto& [n, text] : statistics) {
    if (n != name) continue;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0';
  }
  return false;
}

namespace {

std::string statistic_text(const VkPipelineExecutableStatisticKHR& s) {
  char text[64];
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: std::snprintf(text, sizeof text, "%" PRId64, s.value.i64); break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: std::snprintf(text, sizeof text, "%" PRIu64, s.value.u64); break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: std::snprintf(text, sizeof text, "%g", s.value.f64); break;
    default: return "?";
  }
  return text;
}

}  // namespace

void report_pipeline_statistics(Context& ctx, VkPipeline pipeline, const std::string& kernel, const std::string& constants) {
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  if (ctx.vk.vkGetPipelineExecutablePropertiesKHR(ctx.device, &info, &count, nullptr) != VK_SUCCESS) return;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (ctx.vk.vkGetPipelineExecutablePropertiesKHR(ctx.device, &info, &count, executables.data()) != VK_SUCCESS) return;
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR exe{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    exe.pipeline = pipeline;
    exe.executableIndex = e;
    uint32_t n = 0;
    if (ctx.vk.vkGetPipelineExecutableStatisticsKHR(ctx.device, &exe, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (ctx.vk.vkGetPipelineExecutableStatisticsKHR(ctx.device, &exe, &n, stats.data()) != VK_SUCCESS) continue;
    CompiledPipeline compiled{kernel, constants, executables[e].name, {}};
    std::string line = "vksort: pipeline " + kernel + " (" + constants + ")";
    if (count > 1) line += std::string(" [") + executables[e].name + "]";
    line += ":";
    for (uint32_t i = 0; i < n; ++i) {
      compiled.statistics.emplace_back(stats[i].name, statistic_text(stats[i]));
      line += std::string(i ? "; " : " ") + stats[i].name + " " + compiled.statistics.back().second;
    }
    if (n == 0) line += " (the driver reports no statistics)";
    std::fprintf(stderr, "%s\n", line.c_str());
    std::lock_guard lock(ctx.compiled_mutex);
    ctx.compiled.push_back(std::move(compiled));
  }
}

}  // namespace vksort::gpu
