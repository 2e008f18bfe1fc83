// SPDX-License-Identifier: MIT
// vksort/bucket_lists.hpp — linked lists of the elements in each bucket, built on the GPU.
//
// Element i (0 <= i < n) belongs to bucket ids[i] (0 <= ids[i] < M). The result is two arrays of u32:
//   head[b]  the first element of bucket b's list, or BucketLists::null for an empty bucket;
//   next[i]  the element after i in its bucket's list, or BucketLists::null at the end.
// Walking head[b], next[head[b]], ... visits every element of bucket b exactly once. This is what a
// particle simulation needs for its neighbour search over a cell grid (bucket = cell), without
// sorting the particles.
//
// Two ways to build (BucketMode):
//   scatter  the repeated-scatter algorithm of Rozen, Boryczko and Alda (seed 002, Listing 1), without
//            atomics: every unplaced element stores its index into its bucket's head (one writer wins),
//            the winners are prepended to the lists, the others try again. A bucket of s elements
//            needs s iterations. They end on the GPU (no host round trip per iteration); once some
//            bucket holds more elements than the remaining iterations (of `max_iterations`) can place,
//            the GPU stops iterating and a fallback sorts what is left by bucket (a stable radix sort
//            on the bits in which those buckets differ) and links it in front of the lists. So heavy
//            buckets cost a bounded number of passes: all elements in one bucket take one iteration
//            and no radix pass. The order inside a list depends on which store won: it can differ
//            from run to run.
//   sort     sort (bucket, index) pairs stably (vksort's radix sort) and link each run: every list is
//            in ascending element order, identical on every run.
// Resort (section 2.2 of the paper) takes only the elements whose bucket changed out of their lists
// and inserts them again by repeated scatter. Besides one streaming pass over the ids, its work is
// proportional to the moved elements (the lists keep prev pointers internally for that), so it is
// much cheaper than a build when few moved; above BucketOptions::rebuild_above, resort() builds.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "vksort/buffer.hpp"
#include "vksort/device.hpp"
#include "vksort/error.hpp"
#include "vksort/types.hpp"

namespace vksort {

enum class BucketMode : uint32_t { scatter, sort };

struct BucketOptions {
  uint32_t buckets = 0;   // M: bucket ids are 0 .. M-1; 1 <= M <= 2^31 - 2
  uint32_t capacity = 0;  // N: the most elements a build handles; 1 <= N < 2^31
  // How build() links. `sort` resorts like `scatter` (the moved elements are inserted by repeated
  // scatter), so only its builds are in ascending order; see `deterministic`.
  BucketMode mode = BucketMode::scatter;
  // Every list in ascending element order and every buffer identical from run to run, for build and
  // resort alike. It makes both sort-based (resort becomes a rebuild from the new ids), whatever `mode`.
  bool deterministic = false;
  // Repeated-scatter iterations recorded before the fallback links what is left (fewer when the GPU
  // sees the fallback is inevitable). A bucket of s elements needs s iterations; uniform ids average
  // n / M per bucket (16 per bucket: about 35 at 2^20 elements). On the recording path, iterations
  // after the last needed one cost three empty dispatches and barriers each (about 0.3 ms on
  // lavapipe); the convenience path submits 8 at a time and stops when the GPU says it is done.
  uint32_t max_iterations = 32;
  // Partial update (section 2.1): the elements are split into this many parts; the first races alone
  // and each next part joins once fewer than `admit_below` elements are left racing (0: one part's
  // worth). Fewer elements race at once, so fewer are visited in all, at the price of more iterations.
  // 1 disables it. 0 chooses: 8 parts on CPU devices from 2 elements per bucket on average (lavapipe:
  // 1.1 - 3x faster builds, more the fuller the buckets), otherwise off (at 1 per bucket it does not
  // pay on lavapipe; unmeasured on GPUs). Builds only, not resorts.
  uint32_t parts = 0;
  uint32_t admit_below = 0;
  // resort() (the convenience path) builds instead when more than this share of the elements moved:
  // it reads the GPU's moved count after the first pass, and above the share a build from the new ids
  // is faster than inserting the moved elements. Lavapipe, 4 elements per bucket, 2^16 - 2^20
  // elements: a resort right after a build costs as much as a build at 35-40% moved. 1 (or more):
  // always resort. record_resort cannot read the count and always resorts: a caller that expects
  // more than this share to move should record_build.
  double rebuild_above = 0.35;
  Tuning tuning{};  // workgroup_size / items_per_thread of the list kernels; 0 = from the device
  // Workgroup prefix sums with subgroup arithmetic where the device offers it in compute (and the
  // workgroup is a whole number of subgroups); false: the shared-memory path everywhere.
  bool subgroups = true;
};

// What one build or resort measured (convenience path). Times come from GPU timestamps (absent, < 0,
// where the queue has none).
struct BucketStats {
  double gpu_ms = -1.0;
  std::vector<std::pair<std::string, double>> phases_ms;  // "init", "iterations", "fallback", "sort", ...
  uint32_t iterations = 0;  // repeated-scatter iterations that had elements to place
  uint32_t fallback = 0;    // elements the heavy-bucket fallback linked (those the iterations left)
  // Elements (re)inserted: n for a build (and for a deterministic resort, which rebuilds), those
  // whose bucket changed for a resort (also when it rebuilt).
  uint32_t moved = 0;
  bool rebuilt = false;     // a resort that built from the new ids instead (BucketOptions::rebuild_above)
  bool timed() const { return gpu_ms >= 0.0; }
};

// What the GPU found while building: read from BucketLists::report() after the work completed.
struct BucketReport {
  uint32_t iterations = 0;
  uint32_t fallback = 0;
  uint32_t moved = 0;           // resort only
  bool out_of_range = false;    // some id was >= M
  uint32_t bad_element = 0;     // one such element (which one is unspecified) ...
  uint32_t bad_id = 0;          // ... and its id
  // decode_report() was given this many words fewer than report_bytes / 4: nothing above was read, and
  // status() is invalid_argument saying so (a short copy of the report is no report of success).
  uint32_t missing_words = 0;
  // ok(), or "bucket id 70000 of element 12 is out of range: there are 65536 buckets".
  VKSORT_API Status status(uint32_t buckets) const;
};

// Buffers and pipelines for lists of up to `capacity` elements in `buckets` buckets on one Device. Owns
// head, next and its scratch; creating one compiles pipelines and allocates about 4 * (M + 5 N) bytes
// (plus a sort's scratch for sort-based or deterministic builds). One thread at a time. A moved-from
// BucketLists may only be destroyed or assigned to; its other calls throw vksort::Error (the record
// calls return it as their Status).
//
// Ids out of range are detected on the GPU: such an element is in no list (its next is null) while
// every other element is listed correctly. The convenience path throws an Error naming one of them;
// the recording path reports it in report() (see BucketReport).
class VKSORT_API BucketLists {
 public:
  static constexpr uint32_t null = 0xFFFFFFFFu;

  // Never throws: the lists, or a Status: invalid_argument for options out of range, unsupported for
  // a capacity or workgroup the device cannot run, out_of_memory or another Vulkan code when allocation
  // fails or a pipeline cannot be made.
  static Result<BucketLists> create(Device& device, const BucketOptions& options) noexcept;
  // The same, throwing vksort::Error (with the Status's code, result and message) instead.
  BucketLists(Device& device, const BucketOptions& options);
  ~BucketLists();
  BucketLists(BucketLists&&) noexcept;
  BucketLists& operator=(BucketLists&&) noexcept;

  const BucketOptions& options() const;
  uint32_t size() const;  // n of the last build/resort recorded (0 before any)

  // The object's own buffers (valid while it lives; do not destroy them). Never throw.
  BufferRef head() const;    // M u32
  BufferRef next() const;    // capacity u32; the first n are meaningful
  BufferRef report() const;  // report_bytes: the GPU's report words, decoded by decode_report()
  static constexpr VkDeviceSize report_bytes = 40 * 4;
  // Never throws; `words` should be the report_bytes / 4 words copied from report() (fewer: see
  // BucketReport::missing_words).
  static BucketReport decode_report(std::span<const uint32_t> words);

  // Records a build from `ids` (n u32, the caller's buffer; read only) into the caller's command
  // buffer, which must be recording on a queue family with compute support. n may be 0 (here and in
  // the convenience calls): every head becomes null. Records only compute
  // dispatches (some indirect), fills, buffer updates and pipeline barriers; binds its own pipelines
  // and push constants, and may push compute descriptor set 0 as Sorter::record does (rebind yours
  // afterwards).
  //
  // Barrier contract. Before: the caller's writes to `ids` are available and visible to
  //   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT; the caller's own reads of head,
  //   next and report have completed before VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
  //   VK_PIPELINE_STAGE_TRANSFER_BIT (an execution dependency). Earlier builds of this object need no
  //   barrier: the recording starts with one for its own buffers.
  // After: head, next and report are written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with
  //   VK_ACCESS_SHADER_WRITE_BIT; the caller inserts the barrier its next use needs (to read the
  //   report on the host: COMPUTE -> TRANSFER, copy report() into host-visible memory, TRANSFER ->
  //   HOST, then decode_report()). `ids` is not read after the recorded work completes.
  // Never throws: a bad argument (no buffer, a range too small, beyond its VkBuffer or of size
  // VK_WHOLE_SIZE, an offset not a multiple of 8, n beyond the capacity) returns a Status naming it
  // and records nothing.
  Status record_build(VkCommandBuffer cmd, BufferRef ids, uint32_t n) noexcept;

  // Records a resort: `new_ids` (n u32) are the elements' new buckets; the lists become those a build
  // from new_ids gives (as sets per bucket; deterministic objects give exactly a build's lists). The
  // lists of the last record_build / record_resort of this object, with the same n, must precede it
  // in submission order; the object remembers the ids they were built from. A command buffer holding
  // an older recording must not be submitted again after a newer one: its resort would follow prev
  // pointers that no longer describe the lists and may write anywhere in them (not only build wrong
  // lists). Barrier contract as record_build. Elements whose new id is out of range leave every list
  // (and are reported). It always inserts, however many moved (see BucketOptions::rebuild_above).
  Status record_resort(VkCommandBuffer cmd, BufferRef new_ids, uint32_t n) noexcept;

  // Convenience: record, submit on the device's queue, wait, read the report and the timestamps.
  // Throws vksort::Error, also for ids out of range (after the lists were built without them), and
  // for an empty `ids` Buffer or one made on another Device (before any work).
  // resort() submits its first pass alone, reads the moved count, and stops there when none moved
  // or builds when more than rebuild_above of the elements moved.
  BucketStats build(const Buffer& ids, uint32_t n);
  BucketStats resort(const Buffer& new_ids, uint32_t n);
  // Host helpers: upload the ids, build / resort, keep the ids' buffer for later resorts.
  BucketStats build(std::span<const uint32_t> ids);
  BucketStats resort(std::span<const uint32_t> new_ids);
  // Downloads head (M words) and next (n words); submit and wait like build(). Throw vksort::Error.
  std::vector<uint32_t> download_head() const;
  std::vector<uint32_t> download_next() const;

  struct Impl;
 private:
  explicit BucketLists(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vksort
