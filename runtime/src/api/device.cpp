// SPDX-License-Identifier: MIT
// vksort::Device: the public face of gpu::Context.
#include <fstream>
#include <sstream>

#include "gpu/context.hpp"
#include "vksort/auto_profile.hpp"
#include "vksort/device.hpp"

#include "api/host_sorters.hpp"
#include "api/status_of.hpp"
#include "vksort/error.hpp"

namespace vksort {

namespace gpu {
std::vector<DeviceListing> list_devices_impl();
}

namespace {
AutoProfile profile_for(const DeviceInfo& info, const std::string& choice) {
  if (choice.empty()) return load_auto_profile(info);
  if (choice == "builtin") return {};
  std::ifstream in(choice);
  if (!in) throw Error("DeviceOptions::auto_profile: cannot read " + choice);
  std::ostringstream text;
  text << in.rdbuf();
  return AutoProfile::parse(text.str(), choice);
}
}  // namespace

Device::Device(std::shared_ptr<gpu::Context> ctx, const AutoProfile& profile)
    : ctx_(std::move(ctx)),
      profile_(std::make_shared<AutoProfile>(profile)),
      host_sorters_(std::make_shared<detail::HostSorters>()) {}

Result<Device> Device::create(const DeviceOptions& options) noexcept {
  return api::result_of<Device>([&] {
    std::shared_ptr<gpu::Context> ctx = gpu::create_context(options);
    return Device(ctx, profile_for(ctx->info, options.auto_profile));
  });
}
Result<Device> Device::create(const BorrowedVulkan& borrowed) noexcept {
  return api::result_of<Device>([&] {
    std::shared_ptr<gpu::Context> ctx = gpu::borrow_context(borrowed);
    return Device(ctx, load_auto_profile(ctx->info));
  });
}
Device::Device(const DeviceOptions& options) : Device(api::value_or_throw(create(options))) {}
Device::Device(const BorrowedVulkan& borrowed) : Device(api::value_or_throw(create(borrowed))) {}
Device::~Device() = default;
Device::Device(const Device&) = default;
Device& Device::operator=(const Device&) = default;

const DeviceInfo& Device::info() const { return ctx_->info; }
VkDevice Device::vk_device() const { return ctx_->device; }
VkPhysicalDevice Device::vk_physical_device() const { return ctx_->physical; }
bool Device::validation_enabled() const { return ctx_->validation; }
const AutoProfile& Device::auto_profile() const { return *profile_; }
void Device::set_auto_profile(const AutoProfile& profile) {
  profile.check();
  *profile_ = profile;
  if (host_sorters_) host_sorters_->clear();  // their automatic choices were made with the old profile
}

std::vector<DeviceListing> list_devices() { return gpu::list_devices_impl(); }
bool validation_layer_available() { return gpu::validation_layer_installed(); }

}  // namespace vksort
