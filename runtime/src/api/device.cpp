// SPDX-License-Identifier: MIT
// vksort::Device: the public face of gpu::Context.
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "gpu/context.hpp"
#include "gpu/staging_pool.hpp"
#include "vksort/auto_profile.hpp"
#include "vksort/device.hpp"

#include "api/host_sorters.hpp"
#include "api/internals.hpp"
#include "api/status_of.hpp"
#include "vksort/error.hpp"

namespace vksort {

namespace gpu {
std::vector<DeviceListing> list_devices_impl();
DeviceListing choose_device_impl(const DeviceOptions& options);
}

namespace {
AutoProfile profile_for(const DeviceInfo& info, const std::string& choice) {
  if (choice.empty()) return load_auto_profile(info);
  if (choice == "builtin") return {};
  std::error_code ec;
  if (std::filesystem::is_directory(choice, ec)) throw Error("DeviceOptions::auto_profile: " + choice + " is a folder, not a file");
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
namespace {
// Guards every Device's profile (one lock for all: it is written rarely and read once per new Sorter).
std::mutex& profile_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

const AutoProfile& Device::auto_profile() const { return *profile_; }
void Device::set_auto_profile(const AutoProfile& profile) {
  profile.check();
  {
    std::lock_guard lock(profile_mutex());
    *profile_ = profile;
  }
  // Their automatic choices were made with the old profile: the idle ones go now, those in use when
  // they are given back.
  if (host_sorters_) host_sorters_->clear();
}

void Device::release_cached_memory() {
  // Each drops what is idle now and, by starting a new generation, what a concurrent call gives back
  // later; neither touches what a call holds meanwhile.
  if (host_sorters_) host_sorters_->clear();
  if (ctx_->staging) ctx_->staging->clear();
}

AutoProfile detail::Internals::auto_profile(const Device& d) {
  std::lock_guard lock(profile_mutex());
  return *d.profile_;
}

std::vector<DeviceListing> list_devices() { return gpu::list_devices_impl(); }
DeviceListing choose_device(const DeviceOptions& options) { return gpu::choose_device_impl(options); }
bool validation_layer_available() { return gpu::validation_layer_installed(); }

}  // namespace vksort
