// vksort::Device: the public face of gpu::Context.
#include "gpu/context.hpp"
#include "vksort/device.hpp"

namespace vksort {

namespace gpu {
std::vector<DeviceListing> list_devices_impl();
}

Device::Device(const DeviceOptions& options) : ctx_(gpu::create_context(options)) {}
Device::Device(const BorrowedVulkan& borrowed) : ctx_(gpu::borrow_context(borrowed)) {}
Device::~Device() = default;
Device::Device(const Device&) = default;
Device& Device::operator=(const Device&) = default;

const DeviceInfo& Device::info() const { return ctx_->info; }
VkDevice Device::vk_device() const { return ctx_->device; }
VkPhysicalDevice Device::vk_physical_device() const { return ctx_->physical; }
bool Device::validation_enabled() const { return ctx_->validation; }

std::vector<DeviceListing> list_devices() { return gpu::list_devices_impl(); }
bool validation_layer_available() { return gpu::validation_layer_installed(); }

}  // namespace vksort
