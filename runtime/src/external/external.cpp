// SPDX-License-Identifier: MIT
// external.cpp — the out-of-core sort: GPU-sorted runs, then a streaming k-way merge (loser tree).
//
// Uses the public API only (Device, Buffer, Sorter). Buffer::upload and Sorter::sort each submit and
// wait, but lock the queue only while submitting, and separate Buffers may be used from separate
// threads: so a second thread reads the next run and uploads it into a second set of device buffers
// while the calling thread sorts, downloads and writes the current one. The transfer and the sort are
// then both in flight, as far as the driver runs submissions of one queue side by side.
#include "vksort/external.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "files.hpp"
#include "result_check.hpp"
#include "host_keys.hpp"
#include "vksort/buffer.hpp"
#include "vksort/sorter.hpp"

namespace vksort::external {

namespace {

using detail::quoted;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Where keys and values come from: a file pair, or host memory.
class Source {
 public:
  virtual ~Source() = default;
  virtual void read(uint64_t first, uint64_t count, std::byte* keys, std::byte* values) const = 0;
};

// Where merged keys and values go, in order.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const std::byte* keys, const std::byte* values, uint64_t count) = 0;
};

// Sorted runs, each a range [first, first + n) of elements; keys and values kept apart so that both
// append in order as a merge streams them.
struct Run {
  uint64_t first = 0, n = 0;
};

class RunStore {
 public:
  virtual ~RunStore() = default;
  virtual void write(uint64_t first, const std::byte* keys, const std::byte* values, uint64_t count) = 0;
  virtual void read(uint64_t first, uint64_t count, std::byte* keys, std::byte* values) const = 0;
  virtual void clear() = 0;
};

struct Shape {
  uint32_t kb = 4, vb = 0;
  uint64_t elem() const { return kb + vb; }
};

class FileSource final : public Source {
 public:
  FileSource(const detail::InputFile& keys, const detail::InputFile* values, Shape s) : keys_(keys), values_(values), s_(s) {}
  void read(uint64_t first, uint64_t count, std::byte* keys, std::byte* values) const override {
    keys_.read(first * s_.kb, keys, count * s_.kb);
    if (values_) values_->read(first * s_.vb, values, count * s_.vb);
  }

 private:
  const detail::InputFile& keys_;
  const detail::InputFile* values_;
  Shape s_;
};

class MemorySource final : public Source {
 public:
  MemorySource(std::span<const std::byte> k, std::span<const std::byte> v, Shape s) : k_(k), v_(v), s_(s) {}
  void read(uint64_t first, uint64_t count, std::byte* keys, std::byte* values) const override {
    std::memcpy(keys, k_.data() + first * s_.kb, count * s_.kb);
    if (s_.vb) std::memcpy(values, v_.data() + first * s_.vb, count * s_.vb);
  }

 private:
  std::span<const std::byte> k_, v_;
  Shape s_;
};

class FileStore final : public RunStore {
 public:
  FileStore(const std::filesystem::path& folder, Shape s) : keys_(folder), s_(s) {
    if (s.vb) values_.emplace(folder);
  }
  void write(uint64_t first, const std::byte* keys, const std::byte* values, uint64_t count) override {
    keys_.write(first * s_.kb, keys, count * s_.kb);
    if (values_) values_->write(first * s_.vb, values, count * s_.vb);
  }
  void read(uint64_t first, uint64_t count, std::byte* keys, std::byte* values) const override {
    keys_.read(first * s_.kb, keys, count * s_.kb);
    if (values_) values_->read(first * s_.vb, values, count * s_.vb);
  }
  void clear() override {
    keys_.clear();
    if (values_) values_->clear();
  }

 private:
  detail::TempFile keys_;
  std::optional<detail::TempFile> values_;
  Shape s_;
};

class MemoryStore final : public RunStore {
 public:
  MemoryStore(uint64_t n, Shape s) : keys_(n * s.kb), values_(n * s.vb), s_(s) {}
  void write(uint64_t first, const std::byte* keys, const std::byte* values, uint64_t count) override {
    std::memcpy(keys_.data() + first * s_.kb, keys, count * s_.kb);
    if (s_.vb) std::memcpy(values_.data() + first * s_.vb, values, count * s_.vb);
  }
  void read(uint64_t first, uint64_t count, std::byte* keys, std::byte* values) const override {
    std::memcpy(keys, keys_.data() + first * s_.kb, count * s_.kb);
    if (s_.vb) std::memcpy(values, values_.data() + first * s_.vb, count * s_.vb);
  }
  void clear() override {}

 private:
  std::vector<std::byte> keys_, values_;
  Shape s_;
};

// The final output on its way out, checked first (ExternalOptions::check) when a check is given.
class CheckedSink final : public Sink {
 public:
  CheckedSink(Sink& out, detail::ResultCheck* check) : out_(out), check_(check) {}
  void write(const std::byte* keys, const std::byte* values, uint64_t count) override {
    if (check_) check_->output(keys, values, count);
    out_.write(keys, values, count);
  }

 private:
  Sink& out_;
  detail::ResultCheck* check_;
};

// A sink that appends to a RunStore (an intermediate merge pass's output run).
class StoreSink final : public Sink {
 public:
  StoreSink(RunStore& store, uint64_t first, Shape s) : store_(store), next_(first), s_(s) {}
  void write(const std::byte* keys, const std::byte* values, uint64_t count) override {
    store_.write(next_, keys, values, count);
    next_ += count;
  }

 private:
  RunStore& store_;
  uint64_t next_;
  Shape s_;
};

class FileSink final : public Sink {
 public:
  FileSink(detail::OutputFile& keys, detail::OutputFile* values, Shape s) : keys_(keys), values_(values), s_(s) {}
  void write(const std::byte* keys, const std::byte* values, uint64_t count) override {
    keys_.write(keys, count * s_.kb);
    if (values_) values_->write(values, count * s_.vb);
  }

 private:
  detail::OutputFile& keys_;
  detail::OutputFile* values_;
  Shape s_;
};

class MemorySink final : public Sink {
 public:
  MemorySink(std::span<std::byte> k, std::span<std::byte> v, Shape s) : k_(k), v_(v), s_(s) {}
  void write(const std::byte* keys, const std::byte* values, uint64_t count) override {
    std::memcpy(k_.data() + next_ * s_.kb, keys, count * s_.kb);
    if (s_.vb) std::memcpy(v_.data() + next_ * s_.vb, values, count * s_.vb);
    next_ += count;
  }

 private:
  std::span<std::byte> k_, v_;
  Shape s_;
  uint64_t next_ = 0;
};

// The fewest elements a merge window holds: below this, reading runs turns into a read per key.
constexpr uint64_t kMinWindow = 64;

// One run as the merge reads it: a window of up to `cap` elements refilled from the store.
struct Cursor {
  Run run;
  uint64_t loaded = 0;  // elements of the run read into the window so far
  uint64_t pos = 0, len = 0;  // position and fill of the window
  std::byte* keys = nullptr;
  std::byte* values = nullptr;
  uint64_t head = 0;  // encoded key at pos
  bool done = false;
};

// Merges `runs` of `store` (consecutive, in input order) into `sink` with a loser tree over the
// encoded keys' ordered bits (SortOptions' bit range); ties go to the lower run index, which keeps equal keys in input order. `memory` bytes
// are split between one window per run and the output buffer. U is the key's width: the inner loop
// then copies fixed-size keys and encodes them with one precomputed codec.
template <class U>
class Merger {
 public:
  Merger(const RunStore& store, std::span<const Run> runs, Shape s, const SortOptions& sort, uint64_t memory)
      : store_(store), s_(s), codec_(workloads::KeyCodec<U>::make(sort.key, sort.order)), begin_bit_(sort.begin_bit),
        end_bit_(sort.end_bit), k_(runs.size()) {
    // Windows beyond a run's length or a few MiB buy nothing (reads are already large) but cost the
    // time to allocate and clear them.
    uint64_t longest = 0;
    for (const Run& r : runs) longest = std::max(longest, r.n);
    const uint64_t cap = std::max<uint64_t>(
        1, std::min({memory / ((k_ + 1) * s.elem()), longest, std::max<uint64_t>(kMinWindow, (16u << 20) / s.elem())}));
    keys_.resize((k_ + 1) * cap * s.kb);
    values_.resize((k_ + 1) * cap * s.vb);
    cap_ = cap;
    cursors_.resize(k_);
    for (size_t i = 0; i < k_; ++i) {
      cursors_[i].run = runs[i];
      cursors_[i].keys = keys_.data() + i * cap * s.kb;
      cursors_[i].values = values_.data() + i * cap * s.vb;
      refill(cursors_[i]);
    }
    out_keys_ = keys_.data() + k_ * cap * s.kb;
    out_values_ = values_.data() + k_ * cap * s.vb;
  }

  // Writes every element; calls tick(elements so far) after every output buffer.
  template <class Tick>
  void run(Sink& sink, Tick&& tick) {
    tree_.assign(k_, -1);
    for (size_t i = k_; i-- > 0;) adjust(int64_t(i));
    uint64_t out = 0, total = 0;
    constexpr uint32_t kb = sizeof(U);
    const uint32_t vb = s_.vb;
    for (;;) {
      const int64_t w = tree_[0];
      Cursor& c = cursors_[size_t(w)];
      if (c.done) break;
      std::memcpy(out_keys_ + out * kb, c.keys + c.pos * kb, kb);
      if (vb == 4) std::memcpy(out_values_ + out * 4, c.values + c.pos * 4, 4);
      else if (vb) std::memcpy(out_values_ + out * vb, c.values + c.pos * vb, vb);
      if (++out == cap_) {
        sink.write(out_keys_, out_values_, out);
        total += out;
        out = 0;
        tick(total);
      }
      if (++c.pos == c.len) refill(c);
      else c.head = encoded(c.keys + c.pos * kb);
      adjust(w);
    }
    if (out) sink.write(out_keys_, out_values_, out);
    tick(total + out);
  }

 private:
  void refill(Cursor& c) {
    const uint64_t count = std::min(cap_, c.run.n - c.loaded);
    if (count == 0) {
      c.done = true;
      return;
    }
    store_.read(c.run.first + c.loaded, count, c.keys, c.values);
    c.loaded += count;
    c.pos = 0;
    c.len = count;
    c.head = encoded(c.keys);
  }
  uint64_t encoded(const std::byte* raw) const {
    U bits;
    std::memcpy(&bits, raw, sizeof(U));
    return workloads::bit_field<U>(codec_.encode(bits), begin_bit_, end_bit_);
  }
  // True when run a's head goes before run b's: smaller key, or the same key from an earlier run.
  bool before(int64_t a, int64_t b) const {
    const Cursor &x = cursors_[size_t(a)], &y = cursors_[size_t(b)];
    if (x.done) return false;
    if (y.done) return true;
    return x.head < y.head || (x.head == y.head && a < b);
  }
  // Replays run s's new head from its leaf to the root: losers stay in the nodes, the winner rises.
  // -1 marks a node not yet played while the tree is built (it wins against everything).
  void adjust(int64_t s) {
    for (size_t t = (size_t(s) + k_) / 2; t > 0; t /= 2) {
      if (tree_[t] == -1 || (s != -1 && before(tree_[t], s))) std::swap(s, tree_[t]);
    }
    tree_[0] = s;
  }

  const RunStore& store_;
  Shape s_;
  workloads::KeyCodec<U> codec_;
  uint32_t begin_bit_, end_bit_;  // the ordered bits of the encoded key (SortOptions)
  size_t k_;
  uint64_t cap_ = 1;
  std::vector<std::byte> keys_, values_;
  std::byte *out_keys_ = nullptr, *out_values_ = nullptr;
  std::vector<Cursor> cursors_;
  std::vector<int64_t> tree_;
};

struct Plan {
  uint64_t run_keys = 0;
  uint64_t runs = 0;
  uint64_t fan_in = 0;  // runs one merge pass takes
};

// The largest n for which `sets` sets of keys and values and one scratch fit `budget` device bytes,
// each allocation within the device's maxMemoryAllocationSize, and below the Sorter's limit of 2^31 keys.
uint64_t device_run_keys(const Sorter& sorter, const DeviceInfo& info, Shape s, uint64_t budget, uint64_t sets) {
  const uint64_t max_alloc = info.max_allocation_size ? info.max_allocation_size : UINT64_MAX;
  auto fits = [&](uint64_t n) {
    const uint64_t scratch = sorter.scratch_bytes(n);
    return n * s.kb <= max_alloc && n * s.vb <= max_alloc && scratch <= max_alloc &&
           sets * n * s.elem() + scratch <= budget;
  };
  uint64_t lo = 0, hi = uint64_t(1) << 30;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

class Driver {
 public:
  // Creating the Sorter checks the options (value_bytes, algorithm, tuning) before any file is touched.
  Driver(Device& device, const ExternalOptions& o, Shape s) : device_(device), o_(o), s_(s), sorter_(device, o.sort) {
    memory_ = o.memory_bytes ? o.memory_bytes : default_memory_bytes();
  }

  // The final merge goes to a store of its own (as large as the input) and reaches the outputs only once
  // it is complete and checked: for outputs that overlap the inputs (sort_memory in place), which a
  // merge cancelled by the progress callback otherwise left partly overwritten, records lost.
  void stage_final_merge() { stage_final_merge_ = true; }

  ExternalStats sort(uint64_t n, const Source& source, Sink& final_sink,
                     const std::function<std::unique_ptr<RunStore>()>& make_store) {
    const auto t0 = Clock::now();
    // ExternalOptions::check: every record read is counted in, every record written is checked on its
    // way to the output.
    std::optional<detail::ResultCheck> check;
    if (o_.check) check.emplace(o_.sort.key, o_.sort.order, s_.kb, s_.vb, o_.sort.begin_bit, o_.sort.end_bit);
    CheckedSink checked(final_sink, check ? &*check : nullptr);
    Sink& sink = checked;
    n_ = n;
    stats_.n = n;
    stats_.bytes = n * s_.elem();
    if (n_ == 0) {
      stats_.total_s = seconds_since(t0);
      return stats_;
    }
    Sorter& sorter = sorter_;
    const uint64_t host_keys = memory_ / (2 * s_.elem());
    if (host_keys < kMinWindow)
      throw InputError("memory budget of " + std::to_string(memory_) + " bytes is too small: a run needs at least " +
                       std::to_string(2 * kMinWindow * s_.elem()) + " bytes");
    const DeviceInfo& info = device_.info();
    uint64_t device_budget = o_.device_bytes;
    if (!device_budget) device_budget = info.device_local_bytes ? info.device_local_bytes / 10 * 9 : UINT64_MAX;
    // An input that fits one run needs one set of device buffers; more runs take two, so that the
    // next run's upload overlaps this one's sort.
    const uint64_t one_set = std::min(host_keys, device_run_keys(sorter, info, s_, device_budget, 1));
    const bool overlap = o_.overlap > 0 || (o_.overlap < 0 && info.type != "cpu");
    uint64_t sets = n_ <= one_set || !overlap ? 1 : 2;
    uint64_t run_keys = std::min({n_, host_keys, device_run_keys(sorter, info, s_, device_budget, sets)});
    // Element-wise brick sort takes runs of at most max_brick_pairs_keys (it refused larger ones, exit 1
    // after the input was opened): more runs, each one it sorts.
    if (o_.sort.algorithm == Algorithm::brick && o_.sort.brick_variant == BrickVariant::pairs)
      run_keys = std::min(run_keys, max_brick_pairs_keys);
    // Runs of a few keys are refused as the host's are (kMinWindow): a budget that holds only a handful
    // of keys with a sort's scratch (sample sort's is large) made 300000 one-key runs, a minute of
    // merging, where a message is more use.
    const uint64_t least_run = std::min(n_, kMinWindow);
    if (run_keys < least_run) {
      // The default budget is 90% of the heap, which rounds a tiny pretend device down to 0: say both.
      const std::string of_heap =
          o_.device_bytes ? "" : ": 90% of its " + std::to_string(info.device_local_bytes) + "-byte heap";
      throw InputError("the device (" + std::to_string(device_budget) + " bytes for one run" + of_heap +
                       ") cannot hold a run of " + std::to_string(least_run) + " " + std::string(to_string(o_.sort.key)) +
                       (least_run == 1 ? " key" : " keys") + " with its scratch (" +
                       std::to_string(least_run * s_.elem() + sorter.scratch_bytes(least_run)) + " bytes)");
    }

    // Device buffers for the largest run. A device that refuses them (its heap shared with others, the
    // pretend budget) gets smaller runs: a quarter less at a time.
    Buffer keys_buf[2], values_buf[2];
    for (;;) {
      try {
        for (uint64_t i = 0; i < sets; ++i) {
          keys_buf[i] = Buffer(device_, run_keys * s_.kb, "out-of-core run keys");
          if (s_.vb) values_buf[i] = Buffer(device_, run_keys * s_.vb, "out-of-core run values");
        }
        Buffer probe(device_, sorter.scratch_bytes(run_keys), "out-of-core scratch probe");
        break;
      } catch (const Error& e) {
        if (e.result() != VK_ERROR_OUT_OF_DEVICE_MEMORY || run_keys < 2 * kMinWindow) throw;
        for (auto* b : {keys_buf, values_buf}) b[0] = Buffer(), b[1] = Buffer();
        run_keys = run_keys / 4 * 3;
        if (overlap) sets = 2;  // smaller runs are several runs: the next one's upload needs its own set
      }
    }
    const uint64_t runs = (n_ + run_keys - 1) / run_keys;
    stats_.run_keys = run_keys;
    stats_.runs = runs;
    stats_.overlapped = sets == 2;

    // One run: nothing to merge, the sorted run goes straight to the output.
    std::unique_ptr<RunStore> store = runs > 1 ? make_store() : nullptr;
    std::vector<Run> run_list;
    {
      std::vector<std::byte> host[2][2];
      for (auto& h : host) {
        h[0].resize(run_keys * s_.kb);
        h[1].resize(run_keys * s_.vb);
      }
      // Run r lives in host[r % 2] and device set r % sets. With two sets its read and upload run on
      // the second thread while run r - 1 is sorted, downloaded and written; they touch only set
      // r % 2, which run r - 2 finished with before the task started. With one set only the read
      // runs there, and the upload waits for the previous run's download.
      struct Times {
        double read = 0, upload = 0;
      };
      auto upload = [&](uint64_t r) {
        const auto t = Clock::now();
        const uint64_t count = std::min(run_keys, n_ - r * run_keys);
        keys_buf[r % sets].upload(std::span(host[r % 2][0].data(), count * s_.kb));
        if (s_.vb) values_buf[r % sets].upload(std::span(host[r % 2][1].data(), count * s_.vb));
        return seconds_since(t);
      };
      auto prepare = [&](uint64_t r) {
        Times times;
        const auto t = Clock::now();
        const uint64_t first = r * run_keys, count = std::min(run_keys, n_ - first);
        source.read(first, count, host[r % 2][0].data(), host[r % 2][1].data());
        times.read = seconds_since(t);
        if (sets == 2) times.upload = upload(r);
        return times;
      };
      std::future<Times> next = std::async(std::launch::async, prepare, 0);
      for (uint64_t r = 0; r < runs; ++r) {
        const Times done = next.get();
        const uint64_t first = r * run_keys, count = std::min(run_keys, n_ - first);
        auto& [hk, hv] = host[r % 2];
        if (check) check->input(hk.data(), hv.data(), count);  // still the input: the download comes below
        stats_.read_s += done.read;
        stats_.upload_s += done.upload;
        if (r + 1 < runs) next = std::async(std::launch::async, prepare, r + 1);
        if (sets == 1) stats_.upload_s += upload(r);
        Buffer& keys = keys_buf[r % sets];
        Buffer& values = values_buf[r % sets];
        auto t = Clock::now();
        sorter.sort(keys, s_.vb ? &values : nullptr, count);
        stats_.sort_s += seconds_since(t);
        t = Clock::now();
        keys.download(std::span(hk.data(), count * s_.kb));
        if (s_.vb) values.download(std::span(hv.data(), count * s_.vb));
        stats_.download_s += seconds_since(t);
        // A wrong run would silently corrupt the merge: one pass proves it sorted before it is used.
        if (!sorted(hk.data(), count))
          throw Error("out-of-core sort: the GPU result of run " + std::to_string(r) + " is not sorted; please report this");
        t = Clock::now();
        if (store) store->write(first, hk.data(), hv.data(), count);
        else sink.write(hk.data(), hv.data(), count);
        stats_.write_s += seconds_since(t);
        run_list.push_back({first, count});
        report("runs", (first + count) * s_.elem(), r + 1);
      }
    }
    for (auto* b : {keys_buf, values_buf}) b[0] = Buffer(), b[1] = Buffer();

    if (store) {
      const auto t = Clock::now();
      merge(std::move(store), std::move(run_list), sink, make_store, final_sink, check ? &*check : nullptr);
      stats_.merge_s = seconds_since(t);
    }
    if (check) check->finish();
    stats_.total_s = seconds_since(t0);
    return stats_;
  }

 private:
  bool sorted(const std::byte* keys, uint64_t count) const {
    uint64_t previous = 0;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t e = workloads::ordering_key(o_.sort.key, o_.sort.order, o_.sort.begin_bit, o_.sort.end_bit, keys + i * s_.kb);
      if (e < previous) return false;
      previous = e;
    }
    return true;
  }

  void report(const std::string& phase, uint64_t done, uint64_t run) {
    if (o_.progress) o_.progress(ExternalProgress{phase, done, stats_.bytes, run, stats_.runs});
  }

  // Merges in passes of at most fan_in runs (as many as the budget gives windows of kMinWindow
  // elements), each pass's runs consecutive so that run order stays input order.
  // `sink` is `final_sink` behind the check (if any): the staged final merge is checked on its way into
  // its store, and then copied to `final_sink` as it is.
  void merge(std::unique_ptr<RunStore> store, std::vector<Run> runs, Sink& sink,
             const std::function<std::unique_ptr<RunStore>()>& make_store, Sink& final_sink, detail::ResultCheck* check) {
    const uint64_t fan_in = std::max<uint64_t>(2, memory_ / (kMinWindow * s_.elem()) - 1);
    std::unique_ptr<RunStore> spare;
    while (runs.size() > fan_in) {
      if (!spare) spare = make_store();
      std::vector<Run> next;
      for (size_t i = 0; i < runs.size(); i += fan_in) {
        const std::span<const Run> group(runs.data() + i, std::min<size_t>(fan_in, runs.size() - i));
        StoreSink out(*spare, group.front().first, s_);
        merge_group(*store, group, out, next.size());
        uint64_t n = 0;
        for (const Run& r : group) n += r.n;
        next.push_back({group.front().first, n});
      }
      ++stats_.merge_passes;
      store->clear();
      std::swap(store, spare);
      runs = std::move(next);
    }
    ++stats_.merge_passes;
    if (!stage_final_merge_) {
      merge_group(*store, runs, sink, 0);
      return;
    }
    if (!spare) spare = make_store();  // else the previous pass's input, no longer needed
    StoreSink staged(*spare, 0, s_);
    CheckedSink checked(staged, check);
    merge_group(*store, runs, checked, 0);
    if (check) check->finish();
    // Now the outputs: a copy that neither reports progress nor fails.
    const uint64_t chunk = std::max<uint64_t>(1, (uint64_t(1) << 20) / s_.elem());
    std::vector<std::byte> keys(std::min(chunk, n_) * s_.kb), values(std::min(chunk, n_) * s_.vb);
    for (uint64_t first = 0; first < n_; first += chunk) {
      const uint64_t count = std::min(chunk, n_ - first);
      spare->read(first, count, keys.data(), values.data());
      final_sink.write(keys.data(), values.data(), count);
    }
  }

  void merge_group(const RunStore& store, std::span<const Run> group, Sink& sink, uint64_t index) {
    const uint64_t base = group.front().first;
    auto tick = [&](uint64_t done) { report("merge", (base + done) * s_.elem(), index); };
    if (s_.kb == 4) Merger<uint32_t>(store, group, s_, o_.sort, memory_).run(sink, tick);
    else Merger<uint64_t>(store, group, s_, o_.sort, memory_).run(sink, tick);
  }

  Device& device_;
  const ExternalOptions& o_;
  Shape s_;
  Sorter sorter_;
  uint64_t n_ = 0;
  uint64_t memory_ = 0;
  bool stage_final_merge_ = false;
  ExternalStats stats_;
};

Shape shape_of(const ExternalOptions& o, bool values) {
  Shape s;
  s.kb = key_bytes(o.sort.key);
  s.vb = values ? (o.sort.value_bytes ? o.sort.value_bytes : 4) : 0;
  return s;
}

SortOptions sorter_options(const ExternalOptions& o, Shape s) {
  // Checked with the other options, before any file is touched (7 was taken as "on").
  if (o.overlap < -1 || o.overlap > 1)
    throw InputError("ExternalOptions::overlap is " + std::to_string(o.overlap) + ": -1 (automatic), 0 (off) or 1 (on)");
  SortOptions so = o.sort;
  so.value_bytes = s.vb;
  // Key::element, "not given", sorts as u32 as for every untyped entry point: named so in messages
  // ("not a multiple of 4 (the size of one element key)" named no key).
  if (so.key == Key::element) so.key = Key::u32;
  return so;
}

// ExternalOptions::temp_dir, or by default the output's folder (the disk the user chose for this much
// data). An output that is a stream (a pipe, /dev/stdout) has no such folder: its folder (/dev) is
// unwritable or memory (devtmpfs), so the run data go to the temporary folder ($TMPDIR, else /tmp),
// where scratch data belongs, rather than beside the input, whose folder may be read-only.
std::filesystem::path run_data_folder(const ExternalOptions& o, bool output_is_stream) {
  if (!o.temp_dir.empty()) return o.temp_dir;
  if (output_is_stream) {
    std::error_code ec;
    const std::filesystem::path tmp = io::temp_folder(ec);  // an empty $TMPDIR as unset
    if (ec) throw InputError("no folder for temporary run data ($TMPDIR: " + ec.message() + "): give a temp_dir (--tmp-dir)");
    return tmp;
  }
  // The folder of the file the output's links lead to, where its own temporary goes: /dev/stdout
  // redirected to a file is that file (/dev takes no files from users, and is memory for root).
  const std::filesystem::path target = io::link_target(o.output);
  return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

std::string unit_name(Shape s) { return s.vb == 4 ? "32-bit value" : std::to_string(s.vb) + "-byte record"; }

}  // namespace

uint64_t available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  // Line by line: some lines have no unit ("HugePages_Total:  0").
  for (std::string line; std::getline(meminfo, line);) {
    std::istringstream fields(line);
    std::string name;
    uint64_t kib = 0;
    if (fields >> name >> kib && name == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

// Half of MemAvailable: a share that leaves room for the page cache the files go through and for
// everything else on the machine.
uint64_t default_memory_bytes() {
  const uint64_t available = available_host_memory();
  return available ? available / 2 : uint64_t(1) << 30;  // no /proc: 1 GiB
}

ExternalStats sort_file(Device& device, const ExternalOptions& options) {
  const bool values = !options.values_input.empty() || !options.values_output.empty();
  if (options.values_input.empty() != options.values_output.empty())
    throw InputError("values need both a values input and a values output");
  ExternalOptions o = options;
  const Shape s = shape_of(o, values);
  o.sort = sorter_options(o, s);
  Driver d(device, o, s);
  if (values) {
    if (io::same_destination(o.output, o.values_output)) throw InputError("output " + quoted(o.output) + " and values output " + quoted(o.values_output) + " are the same file");
  }

  detail::InputFile keys_in(o.input, "input", o.input_data_at);
  const uint64_t kb = s.kb;
  if (keys_in.size() % kb != 0)
    throw InputError("input " + quoted(o.input) + " holds " + std::to_string(keys_in.size()) + " bytes, not a multiple of " +
                     std::to_string(kb) + " (the size of one " + std::string(to_string(o.sort.key)) + " key)");
  const uint64_t n = keys_in.size() / kb;
  std::optional<detail::InputFile> values_in;
  if (values) {
    values_in.emplace(o.values_input, "values file", o.values_input_data_at);
    if (values_in->size() != n * s.vb)
      throw InputError("values file " + quoted(o.values_input) + " holds " + std::to_string(values_in->size()) +
                       " bytes but input " + quoted(o.input) + " holds " + std::to_string(n) + " keys: one " + unit_name(s) +
                       " per key is needed");
  }
  detail::OutputFile keys_out(o.output, "output");
  std::optional<detail::OutputFile> values_out;
  if (values) values_out.emplace(o.values_output, "values output");
  if (!o.output_header.empty()) keys_out.write(o.output_header.data(), o.output_header.size());
  if (values_out && !o.values_output_header.empty()) values_out->write(o.values_output_header.data(), o.values_output_header.size());
  const std::filesystem::path temp_dir = run_data_folder(o, keys_out.stream());
  // Checked now rather than after the runs are sorted, when the first temporary file is made.
  if (n > 0) detail::TempFile probe(temp_dir);

  FileSource source(keys_in, values_in ? &*values_in : nullptr, s);
  FileSink sink(keys_out, values_out ? &*values_out : nullptr, s);
  ExternalStats stats = d.sort(n, source, sink, [&] { return std::make_unique<FileStore>(temp_dir, s); });
  const auto t = Clock::now();
  // Both files complete on the disk before either replaces its destination (what is left to fail
  // then is a rename), and before either gets a name a SIGKILL would leave behind.
  detail::OutputFile::commit_all(keys_out, values_out ? &*values_out : nullptr);
  // The commit is part of the sort's time: a slow disk's fsync is seconds of it.
  const double commit_s = seconds_since(t);
  stats.write_s += commit_s;
  stats.total_s += commit_s;
  return stats;
}

ExternalStats sort_memory(Device& device, std::span<const std::byte> keys_in, std::span<const std::byte> values_in,
                          std::span<std::byte> keys_out, std::span<std::byte> values_out, const ExternalOptions& options) {
  ExternalOptions o = options;
  const bool values = !values_in.empty() || !values_out.empty();
  const Shape s = shape_of(o, values);
  o.sort = sorter_options(o, s);
  if (keys_in.size() % s.kb != 0) throw InputError("sort_memory: keys are not a whole number of " + std::string(to_string(o.sort.key)) + " keys");
  const uint64_t n = keys_in.size() / s.kb;
  if (keys_out.size() != keys_in.size()) throw InputError("sort_memory: keys_out must be as large as keys_in");
  if (values && (values_in.size() != n * s.vb || values_out.size() != n * s.vb))
    throw InputError("sort_memory: values_in and values_out must hold one " + unit_name(s) + " per key");
  // The outputs are written side by side, record after record: where they overlap, one overwrote the
  // other (keys lost silently). The inputs may overlap the outputs: every run is read whole before the
  // first output byte is written. (As integers: comparing pointers into different objects is unspecified.)
  if (values) {
    const auto k = reinterpret_cast<std::uintptr_t>(keys_out.data()), v = reinterpret_cast<std::uintptr_t>(values_out.data());
    if (n != 0 && k < v + values_out.size() && v < k + keys_out.size())
      throw InputError("sort_memory: keys_out and values_out overlap; give each its own memory");
  }
  MemorySource source(keys_in, values_in, s);
  MemorySink sink(keys_out, values_out, s);
  Driver d(device, o, s);
  // An output over an input (in place, or any overlap) is written only once the sort is complete.
  const auto overlap = [](std::span<const std::byte> a, std::span<const std::byte> b) {
    const auto x = reinterpret_cast<std::uintptr_t>(a.data()), y = reinterpret_cast<std::uintptr_t>(b.data());
    return !a.empty() && !b.empty() && x < y + b.size() && y < x + a.size();
  };
  if (overlap(keys_out, keys_in) || overlap(keys_out, values_in) || overlap(values_out, keys_in) ||
      overlap(values_out, values_in))
    d.stage_final_merge();
  return d.sort(n, source, sink, [&] { return std::make_unique<MemoryStore>(n, s); });
}

}  // namespace vksort::external
