// SPDX-License-Identifier: MIT
// The error model an engine relies on: exception-free creation, a Status code that tells the caller's
// mistakes from the device's limits and from Vulkan failures, the same code in a thrown Error, and a
// borrowed device used on the application's terms (its enabled features, pipeline cache and host
// allocator).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "distributions.hpp"
#include "support/sort_check.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

DeviceOptions plain_options() {
  DeviceOptions o = test::options_like_device();
  return o;
}

// A second VkDevice on the test device's physical device, made as an application would, with the
// feature chain it passes to vkCreateDevice.
class AppDevice {
 public:
  AppDevice(gpu::Context& owner, const VkPhysicalDeviceFeatures2& features, const std::vector<const char*>& extensions = {})
      : owner_(owner) {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = owner.info.queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = uint32_t(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    REQUIRE(owner.ifn.vkCreateDevice(owner.physical, &info, nullptr, &device) == VK_SUCCESS);
    destroy_ = reinterpret_cast<PFN_vkDestroyDevice>(owner.ifn.vkGetDeviceProcAddr(device, "vkDestroyDevice"));
    auto get_queue = reinterpret_cast<PFN_vkGetDeviceQueue>(owner.ifn.vkGetDeviceProcAddr(device, "vkGetDeviceQueue"));
    get_queue(device, owner.info.queue_family, 0, &queue_);
  }
  ~AppDevice() { destroy_(device, nullptr); }
  AppDevice(const AppDevice&) = delete;
  AppDevice& operator=(const AppDevice&) = delete;

  BorrowedVulkan borrowed(const VkPhysicalDeviceFeatures2* enabled) const {
    BorrowedVulkan b{owner_.instance, owner_.physical, device, queue_, owner_.info.queue_family,
                     owner_.ifn.vkGetInstanceProcAddr};
    b.enabled_features = enabled;
    return b;
  }
  VkDevice device = VK_NULL_HANDLE;

 private:
  gpu::Context& owner_;
  PFN_vkDestroyDevice destroy_ = nullptr;
  VkQueue queue_ = VK_NULL_HANDLE;
};

// Host allocation callbacks that count: every allocation vksort makes through them, and how many are
// still live.
struct CountingAllocator {
  std::mutex mutex;
  std::unordered_map<void*, size_t> sizes;
  std::atomic<uint64_t> allocations{0}, frees{0};

  static void* allocate(void* user, size_t size, size_t alignment, VkSystemAllocationScope) {
    auto& self = *static_cast<CountingAllocator*>(user);
    void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    if (!p) return nullptr;
    std::lock_guard lock(self.mutex);
    self.sizes[p] = size;
    self.allocations++;
    return p;
  }
  static void release(void* user, void* p) {
    if (!p) return;
    auto& self = *static_cast<CountingAllocator*>(user);
    {
      std::lock_guard lock(self.mutex);
      self.sizes.erase(p);
      self.frees++;
    }
    std::free(p);
  }
  static void* reallocate(void* user, void* old, size_t size, size_t alignment, VkSystemAllocationScope scope) {
    if (!old) return allocate(user, size, alignment, scope);
    if (size == 0) {
      release(user, old);
      return nullptr;
    }
    size_t old_size;
    {
      auto& self = *static_cast<CountingAllocator*>(user);
      std::lock_guard lock(self.mutex);
      old_size = self.sizes.at(old);
    }
    void* p = allocate(user, size, alignment, scope);
    if (!p) return nullptr;
    std::memcpy(p, old, std::min(old_size, size));
    release(user, old);
    return p;
  }
  size_t live() {
    std::lock_guard lock(mutex);
    return sizes.size();
  }
  VkAllocationCallbacks callbacks() {
    VkAllocationCallbacks c{};
    c.pUserData = this;
    c.pfnAllocation = allocate;
    c.pfnReallocation = reallocate;
    c.pfnFree = release;
    return c;
  }
};

// A loader entry point that hands vksort the real functions but for a few device calls it watches:
// which pipeline cache and allocator every pipeline, buffer and memory allocation was made with, and
// whether vksort made a pipeline cache of its own.
namespace watch {
PFN_vkGetInstanceProcAddr real_gipa = nullptr;
PFN_vkGetDeviceProcAddr real_gdpa = nullptr;
PFN_vkCreateComputePipelines real_create_pipelines = nullptr;
PFN_vkCreatePipelineCache real_create_cache = nullptr;
PFN_vkCreateBuffer real_create_buffer = nullptr;
PFN_vkAllocateMemory real_allocate_memory = nullptr;
VkPipelineCache app_cache = VK_NULL_HANDLE;
const VkAllocationCallbacks* app_allocator = nullptr;
std::atomic<int> pipelines{0}, pipelines_on_app_terms{0}, caches_made{0}, objects{0}, objects_with_allocator{0};

VKAPI_ATTR VkResult VKAPI_CALL create_pipelines(VkDevice d, VkPipelineCache cache, uint32_t count,
                                                const VkComputePipelineCreateInfo* info,
                                                const VkAllocationCallbacks* allocator, VkPipeline* out) {
  pipelines += int(count);
  if (cache == app_cache && allocator == app_allocator) pipelines_on_app_terms += int(count);
  return real_create_pipelines(d, cache, count, info, allocator, out);
}
VKAPI_ATTR VkResult VKAPI_CALL create_cache(VkDevice d, const VkPipelineCacheCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkPipelineCache* out) {
  caches_made++;
  return real_create_cache(d, info, allocator, out);
}
VKAPI_ATTR VkResult VKAPI_CALL create_buffer(VkDevice d, const VkBufferCreateInfo* info, const VkAllocationCallbacks* allocator,
                                             VkBuffer* out) {
  objects++;
  if (allocator == app_allocator) objects_with_allocator++;
  return real_create_buffer(d, info, allocator, out);
}
VKAPI_ATTR VkResult VKAPI_CALL allocate_memory(VkDevice d, const VkMemoryAllocateInfo* info,
                                               const VkAllocationCallbacks* allocator, VkDeviceMemory* out) {
  objects++;
  if (allocator == app_allocator) objects_with_allocator++;
  return real_allocate_memory(d, info, allocator, out);
}

template <class Real, class Hook>
PFN_vkVoidFunction hook(Real& real, PFN_vkVoidFunction found, Hook* replacement) {
  real = reinterpret_cast<Real>(found);
  return reinterpret_cast<PFN_vkVoidFunction>(replacement);
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL gdpa(VkDevice d, const char* name) {
  PFN_vkVoidFunction f = real_gdpa(d, name);
  if (!std::strcmp(name, "vkCreateComputePipelines")) return hook(real_create_pipelines, f, create_pipelines);
  if (!std::strcmp(name, "vkCreatePipelineCache")) return hook(real_create_cache, f, create_cache);
  if (!std::strcmp(name, "vkCreateBuffer")) return hook(real_create_buffer, f, create_buffer);
  if (!std::strcmp(name, "vkAllocateMemory")) return hook(real_allocate_memory, f, allocate_memory);
  return f;
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL gipa(VkInstance instance, const char* name) {
  PFN_vkVoidFunction f = real_gipa(instance, name);
  if (!std::strcmp(name, "vkGetDeviceProcAddr")) return hook(real_gdpa, f, gdpa);
  return f;
}
}  // namespace watch

// As a device of an instance created for Vulkan 1.0 or 1.1 looks: no core 1.2 entry points.
namespace old_instance {
PFN_vkGetInstanceProcAddr real_gipa = nullptr;
PFN_vkGetDeviceProcAddr real_gdpa = nullptr;
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL gdpa(VkDevice d, const char* name) {
  if (!std::strcmp(name, "vkGetBufferDeviceAddress")) return nullptr;
  return real_gdpa(d, name);
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL gipa(VkInstance instance, const char* name) {
  PFN_vkVoidFunction f = real_gipa(instance, name);
  if (!std::strcmp(name, "vkGetDeviceProcAddr")) {
    real_gdpa = reinterpret_cast<PFN_vkGetDeviceProcAddr>(f);
    return reinterpret_cast<PFN_vkVoidFunction>(gdpa);
  }
  return f;
}
}  // namespace old_instance

}  // namespace

TEST_CASE("argument errors are Status::Code::invalid_argument, distinct from Vulkan failures") {
  Device& gpu = test::device();
  // Creation without exceptions: the Status says what and why.
  Result<Sorter> bad = Sorter::create(gpu, {.order = Order(7)});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code == Status::Code::invalid_argument);
  CHECK(bad.status().result == VK_SUCCESS);  // which is why `result != VK_SUCCESS` alone cannot tell
  CHECK(bad.status().message.find("SortOptions::order") != std::string::npos);
  CHECK(to_string(bad.status().code) == "invalid_argument");

  // The throwing form carries the same code.
  try {
    Sorter s(gpu, {.order = Order(7)});
    FAIL("an invalid Order was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == Status::Code::invalid_argument);
    CHECK(e.status().message == bad.status().message);
  }

  // The recording path: a missing command buffer is the caller's mistake.
  Result<Sorter> good = Sorter::create(gpu, {.key = Key::u32});
  REQUIRE(good.ok());
  Sorter& sorter = good.value();
  Buffer keys(gpu, 64);
  Buffer scratch(gpu, sorter.scratch_bytes(16));
  const Status s = sorter.record(VK_NULL_HANDLE, {keys.ref(), {}, scratch.ref()}, 16);
  CHECK_FALSE(s.ok());
  CHECK(s.code == Status::Code::invalid_argument);
  CHECK(s.message.find("no command buffer") != std::string::npos);
  CHECK(sorter.record(VK_NULL_HANDLE, {keys.ref(), {}, scratch.ref()}, 16).message == s.message);

  // Device and Buffer creation: a bad selection is an argument; too large an allocation is memory.
  Result<Device> nowhere = Device::create(DeviceOptions{.select = "99", .validation = 0});
  REQUIRE_FALSE(nowhere.ok());
  CHECK(nowhere.status().code == Status::Code::invalid_argument);
  Result<Buffer> huge = Buffer::create(gpu, uint64_t(1) << 50, "keys");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.status().code == Status::Code::out_of_memory);
  CHECK(huge.status().result == VK_ERROR_OUT_OF_DEVICE_MEMORY);
  Result<Device> none = Device::create(BorrowedVulkan{});
  CHECK(none.status().code == Status::Code::invalid_argument);
  Result<BucketLists> lists = BucketLists::create(gpu, {.buckets = 0});
  CHECK(lists.status().code == Status::Code::invalid_argument);
}

TEST_CASE("what the device lacks is Status::Code::unsupported; a lost device is device_lost") {
  DeviceOptions o = plain_options();
  o.pretend.no_subgroups = true;
  Device no_subgroups(o);
  SortOptions ballot{.key = Key::u32, .algorithm = Algorithm::radix};
  ballot.tuning.radix_scan = RadixScan::single_pass;
  ballot.tuning.radix_ranking = RadixRanking::ballot;
  Result<Sorter> refused = Sorter::create(no_subgroups, ballot);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code == Status::Code::unsupported);
  CHECK(refused.status().message.find("subgroup ballot") != std::string::npos);

  // Tuning past the device's limits is unsupported (Sorter::create's contract), tuning that is wrong on
  // any device invalid_argument. (These came back invalid_argument.)
  Device gpu(plain_options());
  const uint32_t too_wide = 2 * std::bit_floor(gpu.info().max_workgroup_invocations);
  const auto code_of = [&](SortOptions s) { return Sorter::create(gpu, s).status().code; };
  CHECK(code_of({.algorithm = Algorithm::brick, .tuning = {.items_per_thread = 1u << 16}}) == Status::Code::unsupported);
  CHECK(code_of({.algorithm = Algorithm::brick, .tuning = {.workgroup_size = too_wide}}) == Status::Code::unsupported);
  CHECK(code_of({.algorithm = Algorithm::brick, .tuning = {.workgroup_size = 3}}) == Status::Code::invalid_argument);
  SortOptions one_pass{.key = Key::u32, .algorithm = Algorithm::radix};
  one_pass.tuning.radix_scan = RadixScan::single_pass;
  one_pass.tuning.workgroup_size = too_wide;
  CHECK(code_of(one_pass) == Status::Code::unsupported);
  one_pass.tuning.radix_ranking = RadixRanking::columns;
  CHECK(code_of(one_pass) == Status::Code::unsupported);
  DeviceOptions small = plain_options();
  small.pretend.max_shared_memory = 700;  // 32 keys with their positions: less than the small-segment kernel's least tile
  Device tiny(small);
  try {
    SegmentedSorter segmented(tiny, {.key = Key::u64});
    FAIL("a segmented sorter was made with 700 bytes of shared memory");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("segmented sort: the device's shared memory holds only") != std::string::npos);
    CHECK(e.code() == Status::Code::unsupported);
  }

  o = plain_options();
  o.pretend.lose_device_after = 1;
  Device doomed(o);
  Buffer keys(doomed, 4096);  // the upload below is the one submission that succeeds
  std::vector<uint32_t> data(1024, 1);
  keys.upload(std::as_bytes(std::span(data)));
  Sorter sorter(doomed, {.key = Key::u32, .algorithm = Algorithm::brick});
  try {
    sorter.sort(keys, nullptr, 1024);
    FAIL("a sort on a lost device succeeded");
  } catch (const Error& e) {
    CHECK(e.code() == Status::Code::device_lost);
    CHECK(e.result() == VK_ERROR_DEVICE_LOST);
  }
}

TEST_CASE("a borrowed device created without bufferDeviceAddress enabled is refused as unsupported") {
  gpu::Context& owner = detail::context_of(test::device());
  // The device supports the feature (vksort's own device enabled it), but this application did not.
  VkPhysicalDeviceVulkan12Features off{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 without{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &off};
  AppDevice app(owner, without);
  Result<Device> refused = Device::create(app.borrowed(&without));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code == Status::Code::unsupported);
  CHECK(refused.status().message.find("bufferDeviceAddress") != std::string::npos);
  CHECK(refused.status().message.find("not enabled") != std::string::npos);
  CHECK_THROWS_AS(Device(app.borrowed(&without)), Error);

  // A chain that is not a VkPhysicalDeviceFeatures2 is an argument error, not a guess.
  VkPhysicalDeviceFeatures2 wrong = without;
  wrong.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  CHECK(Device::create(app.borrowed(&wrong)).status().code == Status::Code::invalid_argument);
}

// Sorter::record called a null vkGetBufferDeviceAddress (SIGSEGV) on a device of a Vulkan 1.1 instance,
// and a queue_family out of range was taken silently (vksort's command pool on another family).
TEST_CASE("a borrowed device of a 1.0/1.1 instance, or with a queue family not its queue's, is refused") {
  gpu::Context& owner = detail::context_of(test::device());
  VkPhysicalDeviceVulkan12Features on{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  on.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceFeatures2 with{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &on};
  AppDevice app(owner, with);
  REQUIRE(Device::create(app.borrowed(&with)).ok());

  BorrowedVulkan old = app.borrowed(&with);
  old_instance::real_gipa = owner.ifn.vkGetInstanceProcAddr;
  old.get_instance_proc_addr = old_instance::gipa;
  Result<Device> refused = Device::create(old);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code == Status::Code::unsupported);
  CHECK_MESSAGE(refused.status().message.find("apiVersion") != std::string::npos, refused.status().message);

  uint32_t families = 0;
  owner.ifn.vkGetPhysicalDeviceQueueFamilyProperties(owner.physical, &families, nullptr);
  for (uint32_t family : {families, families + 6, UINT32_MAX}) {
    BorrowedVulkan b = app.borrowed(&with);
    b.queue_family = family;
    Result<Device> wrong = Device::create(b);
    REQUIRE_FALSE(wrong.ok());
    CHECK(wrong.status().code == Status::Code::invalid_argument);
    CHECK_MESSAGE(wrong.status().message.find("is not one of the device's") != std::string::npos, wrong.status().message);
  }
}

TEST_CASE("a borrowed device enabled through the extension's feature struct is accepted and sorts") {
  gpu::Context& owner = detail::context_of(test::device());
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  address.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceFeatures2 with{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &address};
  AppDevice app(owner, with);
  Result<Device> made = Device::create(app.borrowed(&with));
  REQUIRE_MESSAGE(made.ok(), made.status().message);
  std::vector<float> keys = {1.5f, -2.0f, 0.5f, -0.25f};
  sort(made.value(), std::span(keys));
  CHECK(keys == std::vector<float>{-2.0f, -0.25f, 0.5f, 1.5f});
}

// computeFullSubgroups in the application's chain (Vulkan 1.3's feature struct or the extension's) lets
// vksort's kernels require full subgroups on a borrowed device, as on its own; without it they do not:
// the single pass's ballot ranking then sizes its histogram rows for partial subgroups. Both sort right.
TEST_CASE("a borrowed device's full subgroups are used where the application enabled them") {
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceFeatures2 chain{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v13};
  CHECK_FALSE(gpu::enabled_compute_full_subgroups(chain));
  v13.computeFullSubgroups = VK_TRUE;
  CHECK(gpu::enabled_compute_full_subgroups(chain));
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  address.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT size_control{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT,
                                                               &address};
  chain.pNext = &size_control;
  CHECK_FALSE(gpu::enabled_compute_full_subgroups(chain));
  CHECK(gpu::enabled_buffer_device_address(chain));
  size_control.computeFullSubgroups = VK_TRUE;
  CHECK(gpu::enabled_compute_full_subgroups(chain));

  gpu::Context& owner = detail::context_of(test::device());
  if (!owner.info.full_subgroups || !owner.info.subgroup_ballot || !owner.info.subgroup_shuffle) {
    test::skip("the device cannot require full subgroups (or has no subgroup ballot)");
    return;
  }
  // The application's device, created as an engine on Vulkan 1.2 would: the extension and its struct.
  AppDevice with_full(owner, chain, {VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME});
  VkPhysicalDeviceFeatures2 plain{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &address};
  AppDevice without_full(owner, plain);
  const uint32_t lanes = owner.info.subgroup_size;
  for (const auto& [app, features, full] : {std::tuple{&with_full, &chain, true}, std::tuple{&without_full, &plain, false}}) {
    INFO("full subgroups enabled: ", full);
    Device gpu(app->borrowed(features));
    CHECK(gpu.info().full_subgroups == full);
    SortOptions o{.key = Key::u32, .algorithm = Algorithm::radix, .value_bytes = 4};
    o.tuning.radix_scan = RadixScan::single_pass;
    o.tuning.radix_ranking = RadixRanking::ballot;
    o.tuning.workgroup_size = 4 * lanes;
    o.tuning.items_per_thread = 4;
    Sorter sorter(gpu, o);
    SortStats stats;
    CHECK(test::check_on(gpu, sorter, workloads::generate_keys(Key::u32, {workloads::Distribution::uniform, 0}, 5000, 7), &stats) == "");
    CHECK(stats.fact("full_subgroups") == (full ? 1 : 0));
    CHECK(stats.fact("ballot_rows") == (full ? 4 : 4 * lanes / gpu::partial_subgroup_lanes(gpu.info())));
  }
}

TEST_CASE("a borrowed device's pipeline cache and allocation callbacks are used for what vksort creates") {
  gpu::Context& owner = detail::context_of(test::device());
  VkPhysicalDeviceVulkan12Features on{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  on.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceFeatures2 with{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &on};
  AppDevice app(owner, with);
  auto create_cache = reinterpret_cast<PFN_vkCreatePipelineCache>(owner.ifn.vkGetDeviceProcAddr(app.device, "vkCreatePipelineCache"));
  auto destroy_cache = reinterpret_cast<PFN_vkDestroyPipelineCache>(owner.ifn.vkGetDeviceProcAddr(app.device, "vkDestroyPipelineCache"));
  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VkPipelineCache cache = VK_NULL_HANDLE;
  REQUIRE(create_cache(app.device, &cache_info, nullptr, &cache) == VK_SUCCESS);

  CountingAllocator counter;
  const VkAllocationCallbacks callbacks = counter.callbacks();
  watch::real_gipa = owner.ifn.vkGetInstanceProcAddr;
  watch::app_cache = cache;
  watch::app_allocator = &callbacks;
  BorrowedVulkan b = app.borrowed(&with);
  b.get_instance_proc_addr = watch::gipa;
  b.pipeline_cache = cache;
  b.allocator = &callbacks;
  {
    Result<Device> made = Device::create(b);
    REQUIRE_MESSAGE(made.ok(), made.status().message);
    Device& borrowed = made.value();
    std::vector<uint32_t> keys(5000), ids(5000);
    for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = (i * 2654435761u) % 1000, ids[i] = i;
    std::vector<uint32_t> expect = keys;
    std::stable_sort(expect.begin(), expect.end());
    sort(borrowed, std::span(keys), std::span(ids), {.algorithm = Algorithm::radix});
    CHECK(keys == expect);
    sort(borrowed, std::span(keys), {.algorithm = Algorithm::sample});
    CHECK(keys == expect);
  }
  CHECK(watch::pipelines > 0);
  CHECK(watch::pipelines_on_app_terms == watch::pipelines.load());  // every pipeline: the app's cache and allocator
  CHECK(watch::caches_made == 0);                                   // and no cache of vksort's own
  CHECK(watch::objects > 0);
  CHECK(watch::objects_with_allocator == watch::objects.load());    // every buffer and memory allocation
  CHECK(counter.allocations > 0);                                   // the driver called the callbacks
  CHECK(counter.live() == 0);                                       // and got everything back
  destroy_cache(app.device, cache, nullptr);
}
