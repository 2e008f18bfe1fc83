// SPDX-License-Identifier: MIT
// No sort reads (or writes) outside the ranges it is given, checked where a stray access faults. The
// ranges lie in host memory imported as device memory (VK_EXT_external_memory_host, which lavapipe
// offers), between two inaccessible pages; each range in turn is placed against one of them, at the
// start (an access before it faults) and at the end (an access past it faults, to within the 8-byte
// alignment of a range's start). On a GPU such an access reads another allocation or faults the device
// (a lost device); on lavapipe it would read host memory unnoticed, which is why the pages are there.
// test_write_bounds checks the bytes around every range for writes; this test adds reads. Every
// algorithm and path, on lavapipe's shapes, GPU shapes (pretend.gpu) and a pretend-small device
// (3-D grids), from 1 key. A fault ends the run with the sort it happened in printed (doctest's report
// comes from the driver's thread).
// Skipped where the device does not offer the extension.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "support/range_sorts.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

// Host memory between two inaccessible pages, imported as a device buffer usable as keys, values and
// scratch (every usage vksort's own buffers have).
class FencedBuffer {
 public:
  FencedBuffer(gpu::Context& ctx, VkDeviceSize bytes) : ctx_(ctx) {
    page_ = VkDeviceSize(sysconf(_SC_PAGESIZE));
    size_ = (bytes + page_ - 1) / page_ * page_;
    void* map = mmap(nullptr, size_ + 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    map_ = static_cast<std::byte*>(map);
    REQUIRE(mprotect(map_, page_, PROT_NONE) == 0);
    REQUIRE(mprotect(map_ + page_ + size_, page_, PROT_NONE) == 0);
    data_ = map_ + page_;

    VkMemoryHostPointerPropertiesEXT host{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    REQUIRE(ctx.vk.vkGetMemoryHostPointerPropertiesEXT(ctx.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                                        data_, &host) == VK_SUCCESS);
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
    info.size = size_;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    REQUIRE(ctx.vk.vkCreateBuffer(ctx.device, &info, nullptr, &buffer_) == VK_SUCCESS);
    VkMemoryRequirements needs{};
    ctx.vk.vkGetBufferMemoryRequirements(ctx.device, buffer_, &needs);
    REQUIRE(needs.size <= size_);
    const uint32_t types = needs.memoryTypeBits & host.memoryTypeBits;
    REQUIRE(types != 0);
    VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
    import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    import.pHostPointer = data_;
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, &import};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
    allocate.allocationSize = size_;
    allocate.memoryTypeIndex = uint32_t(__builtin_ctz(types));
    REQUIRE(ctx.vk.vkAllocateMemory(ctx.device, &allocate, nullptr, &memory_) == VK_SUCCESS);
    REQUIRE(ctx.vk.vkBindBufferMemory(ctx.device, buffer_, memory_, 0) == VK_SUCCESS);
  }
  ~FencedBuffer() {
    ctx_.vk.vkDestroyBuffer(ctx_.device, buffer_, nullptr);
    ctx_.vk.vkFreeMemory(ctx_.device, memory_, nullptr);
    munmap(map_, size_ + 2 * page_);
  }
  FencedBuffer(const FencedBuffer&) = delete;
  FencedBuffer& operator=(const FencedBuffer&) = delete;

  VkDeviceSize size() const { return size_; }  // bytes between the inaccessible pages
  // The memory is the host's: copies are plain (every submission is waited for before them).
  test::RangeStore store() {
    return {buffer_, [this](std::span<const std::byte> d, VkDeviceSize at) { std::memcpy(data_ + at, d.data(), d.size()); },
            [this](std::span<std::byte> d, VkDeviceSize at) { std::memcpy(d.data(), data_ + at, d.size()); }};
  }

 private:
  gpu::Context& ctx_;
  VkDeviceSize page_ = 0, size_ = 0;
  std::byte* map_ = nullptr;
  std::byte* data_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
};

// The sort running now, for the fault handler (a fault comes on one of the driver's threads, where
// doctest knows no context).
std::atomic<const char*> g_running{nullptr};
struct sigaction g_previous {};

void on_fault(int signal, siginfo_t* info, void* context) {
  const char* what = g_running.load();
  const char intro[] = "\ntest_read_bounds: a memory fault (an access outside the ranges) during: ";
  [[maybe_unused]] ssize_t w = write(2, intro, sizeof intro - 1);
  if (what) w = write(2, what, strlen(what));
  w = write(2, "\n", 1);
  // Then whatever handled it before (doctest's report and exit).
  sigaction(signal, &g_previous, nullptr);
  if (g_previous.sa_flags & SA_SIGINFO) g_previous.sa_sigaction(signal, info, context);
  else raise(signal);
}

VkDeviceSize round_up(VkDeviceSize v, VkDeviceSize to) { return (v + to - 1) / to * to; }

// Runs `sort` once per range that has bytes and per end: that range against the inaccessible page
// before the memory (at 0) or after it (ending at the last multiple of 8 that holds it), the others
// after or before it, 256-byte aligned.
void sort_against_the_fences(gpu::Context& ctx, const test::RangeSort& sort, uint64_t& seed) {
  VkDeviceSize room = 0;
  for (VkDeviceSize b : sort.bytes) room += round_up(b, 256) + 256;
  FencedBuffer fenced(ctx, room);
  const test::RangeStore store = fenced.store();
  for (size_t range = 0; range < sort.bytes.size(); ++range) {
    if (sort.bytes[range] == 0) continue;
    for (bool at_end : {false, true}) {
      std::vector<VkDeviceSize> at(sort.bytes.size());
      at[range] = at_end ? fenced.size() - round_up(sort.bytes[range], 8) : 0;
      VkDeviceSize next = at_end ? 0 : round_up(sort.bytes[range], 256);
      for (size_t other = 0; other < sort.bytes.size(); ++other)
        if (other != range) at[other] = next, next = round_up(next + sort.bytes[other] + 8, 256);
      REQUIRE(next <= (at_end ? at[range] : fenced.size()));
      const std::string running = sort.name + ": " + sort.ranges[range] + (at_end ? " against the end" : " against the start");
      INFO(running);
      g_running = running.c_str();
      CHECK(sort.run(store, at, seed++) == "");
      g_running = nullptr;
    }
  }
}

// Sizes from 1 key to several tiles; even, so that 4-byte keys and values end at the page.
std::vector<uint64_t> sizes(uint64_t tile) { return {1, 2, tile + 2, 3 * tile + 6}; }

void every_sort_stays_within_its_ranges(Device& gpu) {
  gpu::Context& ctx = detail::context_of(gpu);
  if (!ctx.host_pointer_import) {
    test::skip("the device does not offer VK_EXT_external_memory_host: no memory with inaccessible pages beside it");
    return;
  }
  struct sigaction fault {};
  fault.sa_sigaction = on_fault;
  fault.sa_flags = SA_SIGINFO;
  sigemptyset(&fault.sa_mask);
  sigaction(SIGSEGV, &fault, &g_previous);

  uint64_t seed = 1;
  test::for_each_range_sort(gpu, sizes, [&](const test::RangeSort& sort) { sort_against_the_fences(ctx, sort, seed); });
  sigaction(SIGSEGV, &g_previous, nullptr);
}

}  // namespace

TEST_CASE("sorts access nothing outside their ranges: inaccessible pages around them") {
  every_sort_stays_within_its_ranges(test::device());
}

TEST_CASE("sorts with GPU shapes access nothing outside their ranges") {
  Device gpu(test::gpu_shapes_options());
  every_sort_stays_within_its_ranges(gpu);
}

TEST_CASE("sorts on a pretend-small device access nothing outside their ranges") {
  Device gpu(test::small_device_options());
  every_sort_stays_within_its_ranges(gpu);
}
