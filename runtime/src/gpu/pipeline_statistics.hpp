// SPDX-License-Identifier: MIT
// What the driver compiled each vksort pipeline into (VK_KHR_pipeline_executable_properties): register
// counts, shared memory, spills, as the driver names them. A diagnostic for tuning on a real GPU, where
// registers per invocation decide how many workgroups share a multiprocessor. Opt-in, because drivers
// may compile differently (and skip their pipeline caches) when asked to keep statistics:
//
//   VKSORT_PIPELINE_STATS=1 vksort bench ...   (any program on a device vksort creates)
//
// writes one line per pipeline to stderr, "vksort: pipeline NAME (workgroup W, spec ID=V ...): STAT
// VALUE; ...", and keeps them in Context::compiled (test_kernel_compile reads them there). A device
// without the extension gets one line saying so, and sorts as usual.
#pragma once

#include <string>
#include <vector>

#include "gpu/context.hpp"

namespace vksort::gpu {

// VKSORT_PIPELINE_STATS is set (and not "0").
bool pipeline_statistics_requested();

// The device extension and feature the statistics need, when `physical` offers both: appends the
// extension's name to `extensions` and links `feature` (pipelineExecutableInfo on) in front of
// `*chain`. Returns false, having changed nothing, otherwise.
bool add_pipeline_statistics(const InstanceFns& ifn, VkPhysicalDevice physical, std::vector<const char*>& extensions,
                             VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR& feature, void** chain);

// Keeps what the driver reports for each executable of `pipeline` (created with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR on a context with ctx.pipeline_statistics) in
// ctx.compiled, and writes it as one line to stderr: "vksort: pipeline KERNEL (CONSTANTS): ...".
void report_pipeline_statistics(Context& ctx, VkPipeline pipeline, const std::string& kernel, const std::string& constants);

}  // namespace vksort::gpu
