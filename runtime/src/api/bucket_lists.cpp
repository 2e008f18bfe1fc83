// SPDX-License-Identifier: MIT
// vksort::BucketLists: buffers, argument checks, the recording path and the convenience path.
#include "vksort/bucket_lists.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

#include "api/call_checks.hpp"
#include "api/internals.hpp"
#include "api/option_checks.hpp"
#include "api/ranges.hpp"
#include "api/status_of.hpp"
#include "buckets/bucket_builder.hpp"
#include "gpu/memory.hpp"
#include "gpu/recorder.hpp"
#include "gpu/submit.hpp"
#include "gpu/timestamps.hpp"

namespace vksort {

namespace {
constexpr uint32_t max_count = 0x7FFFFFFFu;  // indices carry BUCKET_DONE in their top bit
// Iterations per submission of the convenience path: uniform ids need about 8 (1 element per bucket)
// to 25 (16 per bucket, or partial update); checking after every 8 wastes at most 7 empty iterations.
constexpr uint32_t convenience_batch = 8;

void check_options(const BucketOptions& o) {
  api::check_enum("BucketOptions", "mode", o.mode, BucketMode::sort, "BucketMode");
  api::check_tuning("BucketOptions", o.tuning);
  if (o.buckets < 1 || o.buckets > max_count - 1)
    throw Error("BucketOptions::buckets must be between 1 and 2^31 - 2 (got " + std::to_string(o.buckets) + ")");
  if (o.capacity < 1 || o.capacity > max_count)
    throw Error("BucketOptions::capacity must be between 1 and 2^31 - 1 (got " + std::to_string(o.capacity) + ")");
  if (!(o.rebuild_above >= 0.0))
    throw Error("BucketOptions::rebuild_above must be a share of at least 0 (got " + std::to_string(o.rebuild_above) + ")");
  if (o.max_iterations < 1 || o.max_iterations > 4096)
    throw Error("BucketOptions::max_iterations must be between 1 and 4096 (got " + std::to_string(o.max_iterations) + ")");
}

gpu::DeviceBuffer words(gpu::Context& ctx, uint64_t count, const std::string& purpose) {
  return gpu::DeviceBuffer(ctx, std::max<uint64_t>(count, 1) * 4, gpu::MemoryKind::device_local, purpose);
}
algo::BucketSpan span_of(const gpu::DeviceBuffer& b) { return {b.buffer(), b.address()}; }
}  // namespace

Status BucketReport::status(uint32_t buckets) const {
  if (missing_words)
    return {Status::Code::invalid_argument, VK_SUCCESS,
            "BucketLists::decode_report was given " + std::to_string(missing_words) + " words fewer than the report's " +
                std::to_string(BucketLists::report_bytes / 4) + " (report_bytes / 4): the report was not read"};
  if (!out_of_range) return {};
  return {Status::Code::invalid_argument, VK_SUCCESS,
          "bucket id " + std::to_string(bad_id) + " of element " + std::to_string(bad_element) +
              " is out of range: there are " + std::to_string(buckets) +
              " buckets (such elements were left out of every list)"};
}

struct BucketLists::Impl {
  Device device;
  BucketOptions options;
  algo::BucketBuilder builder;
  gpu::DeviceBuffer head, next, prev, bucket, list0, list1, blocks, control, sort_scratch;
  std::optional<gpu::DeviceBuffer> readback;  // convenience path: the report
  std::optional<Buffer> host_ids;             // span helpers: the uploaded ids
  uint32_t n = 0;
  bool built = false;
  bool prev_valid = false;  // the lists' prev pointers are kept (the last work recorded was a resort's)

  Impl(Device& d, const BucketOptions& o) : device(d), options(o), builder(detail::context_of(d), o) {
    gpu::Context& ctx = detail::context_of(d);
    const uint64_t N = o.capacity;
    const std::string of = " of bucket lists (" + std::to_string(N) + " elements, " + std::to_string(o.buckets) + " buckets)";
    head = words(ctx, o.buckets, "the heads" + of);
    next = words(ctx, N, "the next pointers" + of);
    prev = words(ctx, N, "the prev pointers" + of);
    bucket = words(ctx, N, "the element buckets" + of);
    list0 = words(ctx, N, "active list 0" + of);
    list1 = words(ctx, N, "active list 1" + of);
    blocks = words(ctx, builder.block_words(o.capacity), "tile counts" + of);
    control = words(ctx, BUCKET_CONTROL_WORDS, "control words" + of);
    if (builder.sorts())
      sort_scratch = gpu::DeviceBuffer(ctx, std::max<VkDeviceSize>(builder.sort_scratch_bytes(o.capacity), 4),
                                       gpu::MemoryKind::device_local, "sort scratch" + of);
  }

  // Checks what record_* relies on; throws Error naming the offending argument.
  algo::BucketTarget target(const BufferRef& ids, uint64_t count, const char* op) const {
    const std::string what = std::string(op) + " of " + std::to_string(count) + " elements";
    if (count > options.capacity)
      throw Error(what + ": more than the capacity of " + std::to_string(options.capacity) + " elements");
    const api::RangeUse use{"ids", ids, count * 4};
    api::check_ranges(detail::context_of(device), what, {&use, 1});
    // The lists' own buffers (head(), next(), report(), ...) are written by the build: ids there were
    // overwritten before they were read (every element dropped, silently).
    const std::pair<const char*, const gpu::DeviceBuffer*> own[] = {
        {"heads", &head},   {"next pointers", &next},  {"prev pointers", &prev},    {"element buckets", &bucket},
        {"active list 0", &list0}, {"active list 1", &list1}, {"tile counts", &blocks}, {"control words", &control},
        {"sort scratch", &sort_scratch}};
    for (const auto& [name, b] : own)
      if (b->buffer() != VK_NULL_HANDLE && b->buffer() == ids.buffer)
        throw Error(what + ": the ids range lies in these bucket lists' own buffer (the " + name +
                    "), which the build writes; give the ids a buffer of their own");
    algo::BucketTarget t;
    t.ids = gpu::buffer_address(detail::context_of(device), ids.buffer, ids.offset);
    t.bucket = span_of(bucket);
    t.head = span_of(head);
    t.next = span_of(next);
    t.list[0] = span_of(list0);
    t.list[1] = span_of(list1);
    t.blocks = span_of(blocks);
    t.prev = span_of(prev);
    t.control = span_of(control);
    if (builder.sorts()) t.sort_scratch = span_of(sort_scratch);
    t.n = uint32_t(count);
    t.prev_valid = prev_valid;
    return t;
  }

  void check_resort(uint32_t count) const {
    if (!built) throw Error("resort of " + std::to_string(count) + " elements: no lists were built yet");
    if (count != n)
      throw Error("resort of " + std::to_string(count) + " elements: the lists hold " + std::to_string(n) +
                  " (resort keeps the elements, only their buckets change)");
  }

  // The convenience path: the recording path's work in batches of iterations, reading the GPU's count
  // of elements left after each and stopping once it is zero, so a build pays only for the iterations
  // it needs (an empty recorded iteration is three dispatches and barriers: about 0.3 ms on lavapipe).
  BucketStats run(const Buffer& ids, uint32_t count, bool resort) {
    gpu::Context& ctx = detail::context_of(device);
    const char* op = resort ? "resorting bucket lists" : "building bucket lists";
    if (resort) check_resort(count);
    api::check_buffer_device(ctx, detail::Internals::context(ids), std::string(op) + " of " + std::to_string(count) + " elements", "ids");
    algo::BucketTarget t = target(ids.ref(), count, op);
    if (!readback) readback.emplace(ctx, report_bytes, gpu::MemoryKind::staging, "the bucket lists' report");
    const std::string what = std::string(op) + " of " + std::to_string(count) + " elements";

    BucketStats stats;
    stats.gpu_ms = 0.0;
    uint32_t w[BUCKET_CONTROL_WORDS] = {};
    auto submit = [&](const std::function<void(gpu::Recorder&)>& body) {
      gpu::Timestamps timestamps(ctx, 32);  // ours (6 at most) and those of the sort it may run
      gpu::submit_and_wait(ctx, what, [&](VkCommandBuffer cmd) {
        gpu::Recorder rec(ctx, cmd, &timestamps);
        timestamps.reset(cmd);
        // Uploads of the ids, earlier work on them and the previous batch finish before this batch.
        gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                                VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
        rec.phase("start");
        body(rec);
        rec.phase("end");
        gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_ACCESS_TRANSFER_READ_BIT);
        VkBufferCopy region{0, 0, report_bytes};
        ctx.vk.vkCmdCopyBuffer(cmd, control.buffer(), readback->buffer(), 1, &region);
        gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                            VK_ACCESS_HOST_READ_BIT);
      });
      std::memcpy(w, readback->mapped(), sizeof w);
      double ms = -1.0;
      for (const auto& phase : timestamps.phases_ms(&ms)) {
        auto it = std::find_if(stats.phases_ms.begin(), stats.phases_ms.end(),
                               [&](const auto& p) { return p.first == phase.first; });
        if (it == stats.phases_ms.end()) stats.phases_ms.push_back(phase);
        else it->second += phase.second;
      }
      if (ms < 0.0 || stats.gpu_ms < 0.0) stats.gpu_ms = -1.0;
      else stats.gpu_ms += ms;
    };

    const uint32_t K = builder.max_iterations();
    uint32_t k = 0;
    bool iterate = false;
    // A resort first gathers the moved elements and counts them; with more than rebuild_above of
    // them, a build from the new ids is faster than their insertion (it overwrites every buffer the
    // gather touched). `inserting`: the iterations are a resort's.
    bool inserting = resort, gathered = false;
    uint32_t moved = 0;
    if (resort && !options.deterministic && options.rebuild_above < 1.0) {
      // Without the prev pointers: a build would not need them (record_find_prev sets them below).
      algo::BucketTarget without_prev = t;
      without_prev.prev_valid = true;
      submit([&](gpu::Recorder& rec) { gathered = builder.record_resort_gather(rec, without_prev); });
      moved = w[BUCKET_CONTROL_MOVED];
      inserting = double(moved) <= options.rebuild_above * double(count);
    }
    // Everything is placed once the list of what is left is empty and no part waits to be admitted;
    // once the GPU stopped iterating, only the fallback is left to record.
    auto finished = [&] {
      const uint32_t* s = w + algo::BucketBuilder::slot_of(inserting, k) * BUCKET_SLOT_WORDS;
      return s[BUCKET_SLOT_COUNT] == 0 && s[BUCKET_SLOT_ADMIT_BEGIN] == s[BUCKET_SLOT_ADMIT_END] &&
             w[BUCKET_CONTROL_NEXT_PART] >= count;
    };
    auto iterations = [&](gpu::Recorder& rec) {
      const uint32_t end = std::min(K, k + convenience_batch);
      builder.record_iterations(rec, t, inserting, k, end);
      k = end;
      if (k == K) builder.record_fallback(rec, t, inserting);
    };
    auto start = [&](gpu::Recorder& rec) {
      if (!inserting) {
        iterate = builder.record_build_start(rec, t);
      } else if (gathered) {
        if (!t.prev_valid) builder.record_find_prev(rec, t);
        builder.record_resort_unlink(rec, t);
        iterate = true;
      } else {
        iterate = builder.record_resort_start(rec, t);
      }
      if (iterate) iterations(rec);
    };
    // When nothing moved the lists stand as they are (the gather changed nothing): no more work.
    if (!gathered || moved != 0 || !inserting) submit(start);
    while (iterate && k < K && !finished()) {
      if (w[BUCKET_CONTROL_STOPPED]) {
        submit([&](gpu::Recorder& rec) { builder.record_fallback(rec, t, inserting); });
        break;
      }
      submit(iterations);
    }
    n = count;
    built = true;
    // A resort that inserted set prev (FIND_PREV or record_find_prev) and kept it; builds do not. One
    // that stopped after its gather (nothing moved) left it as it was.
    const bool stopped_after_gather = gathered && moved == 0 && inserting;
    if (!stopped_after_gather) prev_valid = resort && !options.deterministic && inserting;

    const BucketReport report = decode_report(w);
    stats.iterations = report.iterations;
    stats.fallback = report.fallback;
    stats.moved = !resort ? count : options.deterministic ? count : gathered ? moved : report.moved;
    stats.rebuilt = resort && !inserting;
    if (Status s = report.status(options.buckets); !s.ok()) throw Error(std::string(op) + ": " + s.message);
    return stats;
  }

  std::vector<uint32_t> download(const gpu::DeviceBuffer& b, uint64_t count, const char* what) const {
    std::vector<uint32_t> out(count);
    if (count == 0) return out;
    gpu::Context& ctx = detail::context_of(device);
    gpu::DeviceBuffer staging(ctx, count * 4, gpu::MemoryKind::staging, what);
    gpu::submit_and_wait(ctx, std::string("downloading ") + what, [&](VkCommandBuffer cmd) {
      gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      VkBufferCopy region{0, 0, count * 4};
      ctx.vk.vkCmdCopyBuffer(cmd, b.buffer(), staging.buffer(), 1, &region);
      gpu::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_READ_BIT);
    });
    std::memcpy(out.data(), staging.mapped(), count * 4);
    return out;
  }
};

Result<BucketLists> BucketLists::create(Device& device, const BucketOptions& options) noexcept {
  return api::result_of<BucketLists>([&] {
    check_options(options);
    return BucketLists(std::make_unique<Impl>(device, options));
  });
}
BucketLists::BucketLists(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BucketLists::BucketLists(Device& device, const BucketOptions& options)
    : BucketLists(api::value_or_throw(create(device, options))) {}
BucketLists::~BucketLists() = default;
BucketLists::BucketLists(BucketLists&&) noexcept = default;
BucketLists& BucketLists::operator=(BucketLists&&) noexcept = default;

const BucketOptions& BucketLists::options() const {
  api::check_not_moved(impl_.get(), "BucketLists::options");
  return impl_->options;
}
uint32_t BucketLists::size() const {
  api::check_not_moved(impl_.get(), "BucketLists::size");
  return impl_->n;
}
BufferRef BucketLists::head() const {
  api::check_not_moved(impl_.get(), "BucketLists::head");
  return {impl_->head.buffer(), 0, VkDeviceSize(impl_->options.buckets) * 4};
}
BufferRef BucketLists::next() const {
  api::check_not_moved(impl_.get(), "BucketLists::next");
  return {impl_->next.buffer(), 0, VkDeviceSize(impl_->options.capacity) * 4};
}
BufferRef BucketLists::report() const {
  api::check_not_moved(impl_.get(), "BucketLists::report");
  return {impl_->control.buffer(), 0, report_bytes};
}

BucketReport BucketLists::decode_report(std::span<const uint32_t> w) {
  BucketReport r;
  static_assert(BucketLists::report_bytes == BUCKET_CONTROL_WORDS * 4);
  if (w.size() < BUCKET_CONTROL_WORDS) {
    r.missing_words = uint32_t(BUCKET_CONTROL_WORDS - w.size());
    return r;
  }
  r.iterations = w[BUCKET_CONTROL_ITERATIONS];
  r.fallback = w[BUCKET_CONTROL_LEFTOVER];
  r.moved = w[BUCKET_CONTROL_MOVED];
  r.out_of_range = w[BUCKET_CONTROL_BAD_ELEMENT] != 0;
  r.bad_element = r.out_of_range ? w[BUCKET_CONTROL_BAD_ELEMENT] - 1 : 0;
  r.bad_id = w[BUCKET_CONTROL_BAD_ID];
  return r;
}

Status BucketLists::record_build(VkCommandBuffer cmd, BufferRef ids, uint32_t n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "BucketLists::record_build");
    if (cmd == VK_NULL_HANDLE) throw Error("BucketLists::record_build: no command buffer");
    algo::BucketTarget t = impl_->target(ids, n, "building bucket lists");
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->builder.record_build(rec, t);
    impl_->n = n;
    impl_->built = true;
    impl_->prev_valid = false;
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

Status BucketLists::record_resort(VkCommandBuffer cmd, BufferRef new_ids, uint32_t n) noexcept {
  return api::status_of([&] {
    api::check_not_moved(impl_.get(), "BucketLists::record_resort");
    if (cmd == VK_NULL_HANDLE) throw Error("BucketLists::record_resort: no command buffer");
    impl_->check_resort(n);
    algo::BucketTarget t = impl_->target(new_ids, n, "resorting bucket lists");
    gpu::Recorder rec(detail::context_of(impl_->device), cmd);
    impl_->builder.record_resort(rec, t);
    impl_->prev_valid = !impl_->options.deterministic;
    // What validation reported while recording this call, raised by it (not by another thread's sort).
    detail::context_of(impl_->device).raise_validation_messages_of_this_thread();
  });
}

BucketStats BucketLists::build(const Buffer& ids, uint32_t n) {
  api::check_not_moved(impl_.get(), "BucketLists::build");
  return impl_->run(ids, n, false);
}
BucketStats BucketLists::resort(const Buffer& new_ids, uint32_t n) {
  api::check_not_moved(impl_.get(), "BucketLists::resort");
  return impl_->run(new_ids, n, true);
}

namespace {
const Buffer& upload_ids(BucketLists::Impl& impl, std::span<const uint32_t> ids) {
  if (ids.size() > impl.options.capacity)
    throw Error("bucket lists of " + std::to_string(ids.size()) + " elements: more than the capacity of " +
                std::to_string(impl.options.capacity));
  if (!impl.host_ids) impl.host_ids.emplace(impl.device, VkDeviceSize(impl.options.capacity) * 4, "bucket ids");
  impl.host_ids->upload(std::as_bytes(ids));
  return *impl.host_ids;
}
}  // namespace

BucketStats BucketLists::build(std::span<const uint32_t> ids) {
  api::check_not_moved(impl_.get(), "BucketLists::build");
  return build(upload_ids(*impl_, ids), uint32_t(ids.size()));
}
BucketStats BucketLists::resort(std::span<const uint32_t> new_ids) {
  api::check_not_moved(impl_.get(), "BucketLists::resort");
  impl_->check_resort(uint32_t(new_ids.size()));
  return resort(upload_ids(*impl_, new_ids), uint32_t(new_ids.size()));
}

std::vector<uint32_t> BucketLists::download_head() const {
  api::check_not_moved(impl_.get(), "BucketLists::download_head");
  return impl_->download(impl_->head, impl_->options.buckets, "bucket heads");
}
std::vector<uint32_t> BucketLists::download_next() const {
  api::check_not_moved(impl_.get(), "BucketLists::download_next");
  return impl_->download(impl_->next, impl_->n, "next pointers");
}

}  // namespace vksort
