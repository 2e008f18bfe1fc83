// SPDX-License-Identifier: MIT
// test_external.cpp — the out-of-core sort (vksort/external.hpp) with budgets small enough that a
// file of 10^4..10^5 keys needs many runs, every result compared byte for byte with the stable CPU
// reference; and its files: nothing temporary left behind, outputs whole or untouched.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributions.hpp"
#include "reference_sort.hpp"
#include "result_check.hpp"
#include "support/test_device.hpp"
#include "vksort/external.hpp"
#include "vksort/vksort.hpp"

namespace fs = std::filesystem;
using namespace vksort;
using vksort::external::ExternalOptions;
using vksort::external::ExternalStats;
using vksort::workloads::Distribution;

namespace {

constexpr Key kKeys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};

class Folder {
 public:
  Folder() {
    std::string templ = (fs::temp_directory_path() / "vksort-external-XXXXXX").string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    root_ = templ;
    fs::create_directory(root_ / "tmp");
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path operator/(const std::string& name) const { return root_ / name; }
  fs::path tmp() const { return root_ / "tmp"; }
  // Everything in the folder but the inputs the test wrote (and the empty tmp folder).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(root_)) names.push_back(fs::relative(e.path(), root_).string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path root_;
};

void write_file(const fs::path& p, std::span<const std::byte> data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  REQUIRE(out.good());
}

std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << p);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  if (!c.empty()) std::memcpy(b.data(), c.data(), c.size());
  return b;
}

// Records of `vb` bytes whose first word is the element's index and the rest derived from it, so a
// record out of place or torn is seen.
std::vector<std::byte> make_records(uint64_t n, uint32_t vb) {
  std::vector<std::byte> v(n * vb);
  for (uint64_t i = 0; i < n; ++i)
    for (uint32_t w = 0; w < vb / 4; ++w) {
      const uint32_t word = w == 0 ? uint32_t(i) : uint32_t(i * 2654435761u + w);
      std::memcpy(&v[i * vb + w * 4], &word, 4);
    }
  return v;
}

// The expected result: the reference sorts (key, index) stably; records follow their index.
void expected(Key key, Order order, std::vector<std::byte>& keys, std::vector<std::byte>& records, uint32_t vb,
              uint32_t begin_bit = 0, uint32_t end_bit = 0) {
  const uint64_t n = keys.size() / key_bytes(key);
  std::vector<uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  workloads::reference_sort(key, order, keys, index, begin_bit, end_bit);
  if (vb == 0) return;
  std::vector<std::byte> moved(records.size());
  for (uint64_t i = 0; i < n; ++i) std::memcpy(&moved[i * vb], &records[uint64_t(index[i]) * vb], vb);
  records = std::move(moved);
}

struct Case {
  Key key = Key::u32;
  Order order = Order::ascending;
  workloads::DistributionSpec spec;
  uint64_t n = 20000;
  uint32_t vb = 0;
  uint64_t memory = 0;
  uint64_t device_bytes = 0;
  int overlap = 1;  // on: lavapipe would leave it off (ExternalOptions::overlap), and both paths need tests
  uint32_t begin_bit = 0, end_bit = 0;  // SortOptions' bit range
  bool check = false;                   // ExternalOptions::check
};

// Runs sort_file on a generated input and checks the output against the reference.
ExternalStats check_file_sort(Device& device, const Case& c) {
  CAPTURE(to_string(c.key));
  CAPTURE(to_string(c.order));
  CAPTURE(workloads::to_string(c.spec));
  CAPTURE(c.vb);
  CAPTURE(c.begin_bit);
  CAPTURE(c.end_bit);
  Folder f;
  std::vector<std::byte> keys = workloads::generate_keys(c.key, c.spec, c.n, 17);
  std::vector<std::byte> values = c.vb ? make_records(c.n, c.vb) : std::vector<std::byte>{};
  write_file(f / "in.bin", keys);
  ExternalOptions o;
  o.input = f / "in.bin";
  o.output = f / "out.bin";
  if (c.vb) {
    write_file(f / "values.bin", values);
    o.values_input = f / "values.bin";
    o.values_output = f / "values_out.bin";
  }
  o.sort.key = c.key;
  o.sort.order = c.order;
  o.sort.value_bytes = c.vb;
  o.memory_bytes = c.memory;
  o.device_bytes = c.device_bytes;
  o.temp_dir = f.tmp();
  o.overlap = c.overlap;
  o.sort.begin_bit = c.begin_bit;
  o.sort.end_bit = c.end_bit;
  o.check = c.check;
  const ExternalStats stats = external::sort_file(device, o);
  CHECK(stats.overlapped == (c.overlap == 1 && stats.runs > 1));
  expected(c.key, c.order, keys, values, c.vb, c.begin_bit, c.end_bit);
  const std::vector<std::byte> got = read_file(o.output);
  CHECK_MESSAGE(workloads::first_difference(c.key, keys, got).empty(), workloads::first_difference(c.key, keys, got));
  if (c.vb) CHECK(read_file(o.values_output) == values);
  CHECK(stats.n == c.n);
  CHECK(fs::is_empty(f.tmp()));
  return stats;
}

// Budget for about `runs` runs of n elements of `elem` bytes: a run holds at most half of it.
uint64_t memory_for_runs(uint64_t n, uint64_t elem, uint64_t runs) { return (n + runs - 1) / runs * elem * 2; }

}  // namespace

TEST_CASE("out-of-core: every key type, both orders, with 32-bit values, many runs, stable") {
  for (Key key : kKeys)
    for (Order order : {Order::ascending, Order::descending})
      for (auto kind : {Distribution::special, Distribution::few_unique}) {
        Case c{.key = key, .order = order, .spec = workloads::default_spec(kind), .n = 20000, .vb = 4};
        c.memory = memory_for_runs(c.n, key_bytes(key) + 4, 10);
        const ExternalStats s = check_file_sort(test::device(), c);
        CHECK(s.runs >= 8);
        CHECK(s.merge_passes == 1);
      }
}

TEST_CASE("out-of-core: adversarial inputs, keys only") {
  int overlap = 0;
  for (Key key : {Key::u32, Key::f32, Key::i64, Key::f64})
    for (auto kind : {Distribution::sorted, Distribution::reverse, Distribution::all_equal, Distribution::few_unique,
                      Distribution::organ_pipe, Distribution::uniform}) {
      // Every other case without the overlapped upload (one set of device buffers).
      Case c{.key = key, .spec = workloads::default_spec(kind), .n = 30000, .overlap = (overlap ^= 1)};
      c.memory = memory_for_runs(c.n, key_bytes(key), 9);
      CHECK(check_file_sort(test::device(), c).runs >= 8);
    }
}

TEST_CASE("out-of-core: records of 12 and 256 bytes move whole, both orders") {
  for (uint32_t vb : {12u, 256u})
    for (Order order : {Order::ascending, Order::descending}) {
      Case c{.key = Key::f32, .order = order, .spec = workloads::default_spec(Distribution::few_unique), .n = 12000, .vb = vb};
      c.memory = memory_for_runs(c.n, 4 + vb, 8);
      CHECK(check_file_sort(test::device(), c).runs >= 8);
    }
}

// A bit range orders by those bits of the encoded key alone, as the in-memory radix sort does: the runs'
// check, the merge and ExternalOptions::check must compare those bits too (they compared whole keys
// and refused every such sort with more than one run).
TEST_CASE("out-of-core: a bit range orders by those bits, stably, through runs and merge passes") {
  struct Range {
    Key key;
    uint32_t begin, end;
  } ranges[] = {{Key::u32, 0, 8}, {Key::i32, 4, 20}, {Key::f32, 16, 0}, {Key::u64, 0, 12}, {Key::f64, 40, 64}};
  for (const Range& r : ranges)
    for (Order order : {Order::ascending, Order::descending}) {
      Case c{.key = r.key, .order = order, .spec = workloads::default_spec(Distribution::uniform), .n = 12000, .vb = 4};
      c.begin_bit = r.begin, c.end_bit = r.end;
      c.check = true;
      c.memory = memory_for_runs(c.n, key_bytes(r.key) + 4, 40);  // about 40 runs
      const ExternalStats s = check_file_sort(test::device(), c);
      CHECK(s.runs >= 8);
    }
}

TEST_CASE("out-of-core: a pretend small device cuts the runs; the host budget does not") {
  DeviceOptions options = test::options_like_device();
  options.pretend.device_memory = 192u << 10;  // 192 KiB: keys, values and scratch of one run
  Device small(options);
  for (Key key : {Key::u32, Key::f64}) {
    Case c{.key = key, .spec = workloads::default_spec(Distribution::special), .n = 100000, .vb = 4, .memory = 64u << 20};
    const ExternalStats s = check_file_sort(small, c);
    CHECK(s.runs >= 8);
    // Two sets of a run's keys and values (and its scratch) fit 90% of the pretend memory.
    const uint64_t device_run = s.run_keys * (key_bytes(key) + 4);
    CHECK(2 * device_run < options.pretend.device_memory);
  }
}

TEST_CASE("out-of-core: too many runs for one merge: several passes, still stable") {
  // u32 keys with values (8 bytes) and a budget of 4 KiB: runs of 256 keys, so 64 runs; windows of 64
  // elements allow 7 runs a merge (64 -> 10 -> 2 -> 1).
  Case c{.key = Key::u32, .spec = workloads::default_spec(Distribution::few_unique), .n = 16384, .vb = 4, .memory = 4096};
  const ExternalStats s = check_file_sort(test::device(), c);
  CHECK(s.runs == 64);
  CHECK(s.merge_passes >= 2);
  // Descending f64 keys with 12-byte records: 20 bytes an element, 4 KiB give 2 runs a merge.
  Case d{.key = Key::f64, .order = Order::descending, .spec = workloads::default_spec(Distribution::special), .n = 5000,
         .vb = 12, .memory = 4096};
  const ExternalStats t = check_file_sort(test::device(), d);
  CHECK(t.runs >= 32);
  CHECK(t.merge_passes >= 4);
}

TEST_CASE("out-of-core: one run, empty input, input replaced in place") {
  Folder f;
  Case c{.key = Key::i32, .spec = workloads::default_spec(Distribution::uniform), .n = 5000};
  CHECK(check_file_sort(test::device(), c).runs == 1);

  write_file(f / "empty.bin", {});
  ExternalOptions o;
  o.input = f / "empty.bin";
  o.output = f / "empty_out.bin";
  CHECK(external::sort_file(test::device(), o).runs == 0);
  CHECK(fs::exists(o.output));
  CHECK(fs::file_size(o.output) == 0);

  std::vector<std::byte> keys = workloads::generate_keys(Key::u64, workloads::default_spec(Distribution::uniform), 9000, 3);
  write_file(f / "same.bin", keys);
  o.input = o.output = f / "same.bin";
  o.sort.key = Key::u64;
  o.memory_bytes = memory_for_runs(9000, 8, 8);
  o.temp_dir = f.tmp();
  external::sort_file(test::device(), o);
  std::vector<uint32_t> none;
  workloads::reference_sort(Key::u64, Order::ascending, keys, none);
  CHECK(read_file(f / "same.bin") == keys);
  CHECK(f.entries() == std::vector<std::string>{"empty.bin", "empty_out.bin", "same.bin", "tmp"});
}

// Without a temp_dir the run data go beside the file the output's links lead to, where the output's own
// temporary goes: they went to the folder of the name given, so /dev/stdout redirected to a file put them
// in /dev. Here the name is /proc/self/fd/N, an open descriptor of a file in the test's folder: no file
// can be created in /proc/self/fd, by root either, so run data there fail the sort.
TEST_CASE("out-of-core: without a temp_dir, run data go beside the file the output's links lead to") {
  Folder f;
  const uint64_t n = 20000;
  std::vector<std::byte> keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), n, 31);
  write_file(f / "in.bin", keys);
  write_file(f / "out.bin", {});
  const int fd = open((f / "out.bin").c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  ExternalOptions o;
  o.input = f / "in.bin";
  o.output = "/proc/self/fd/" + std::to_string(fd);
  o.memory_bytes = memory_for_runs(n, 4, 4);
  ExternalStats stats;
  try {
    stats = external::sort_file(test::device(), o);
  } catch (const std::exception& e) {
    FAIL_CHECK("sort_file: " << std::string(e.what()));
  }
  close(fd);
  CHECK(stats.runs >= 4);
  std::vector<uint32_t> none;
  workloads::reference_sort(Key::u32, Order::ascending, keys, none);
  CHECK(read_file(f / "out.bin") == keys);
  CHECK(f.entries() == std::vector<std::string>{"in.bin", "out.bin", "tmp"});
}

// Files with headers (the CLI's .npy files): the inputs' data start past them, the outputs begin with
// the given bytes, and the header bytes are neither sorted nor counted as keys.
TEST_CASE("out-of-core: inputs read from a data offset, outputs written after a header, in place too") {
  Folder f;
  const uint64_t n = 12000;
  std::vector<std::byte> keys = workloads::generate_keys(Key::f32, workloads::default_spec(Distribution::special), n, 8);
  std::vector<std::byte> records = make_records(n, 8);
  // Headers of odd lengths, filled with bytes that would sort first as keys (0x00: +0.0 and below).
  const std::vector<std::byte> key_header(37, std::byte{0x00}), value_header(5, std::byte{0xAB});
  auto with_header = [](const std::vector<std::byte>& header, const std::vector<std::byte>& data) {
    std::vector<std::byte> file = header;
    file.insert(file.end(), data.begin(), data.end());
    return file;
  };
  write_file(f / "in.dat", with_header(key_header, keys));
  write_file(f / "values.dat", with_header(value_header, records));
  ExternalOptions o;
  o.input = f / "in.dat";
  o.input_data_at = key_header.size();
  o.values_input = f / "values.dat";
  o.values_input_data_at = value_header.size();
  o.output = f / "out.dat";
  o.values_output = f / "values_out.dat";
  const std::vector<std::byte> out_header = {std::byte{'K'}, std::byte{'\n'}}, values_out_header(70, std::byte{'V'});
  o.output_header = out_header;
  o.values_output_header = values_out_header;
  o.sort.key = Key::f32;
  o.sort.value_bytes = 8;
  o.memory_bytes = memory_for_runs(n, 12, 6);
  o.temp_dir = f.tmp();
  o.check = true;
  const ExternalStats s = external::sort_file(test::device(), o);
  CHECK(s.n == n);
  CHECK(s.runs >= 6);
  std::vector<std::byte> want_keys = keys, want_records = records;
  expected(Key::f32, Order::ascending, want_keys, want_records, 8);
  CHECK(read_file(o.output) == with_header(out_header, want_keys));
  CHECK(read_file(o.values_output) == with_header(values_out_header, want_records));
  // In place: the input's own header kept by passing it back, the data sorted behind it.
  o.values_input.clear(), o.values_output.clear();
  o.sort.value_bytes = 0;
  o.output = o.input;
  o.output_header = key_header;
  external::sort_file(test::device(), o);
  std::vector<std::byte> none;
  expected(Key::f32, Order::ascending, keys, none, 0);
  CHECK(read_file(f / "in.dat") == with_header(key_header, keys));
  // Data that are no whole number of keys after the offset, and an offset past the end, are bad input.
  o.input_data_at = key_header.size() + 1;
  o.output = f / "never.dat";
  CHECK_THROWS_AS(external::sort_file(test::device(), o), external::InputError);
  o.input_data_at = key_header.size() + keys.size() + 1;
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("header"), external::InputError);
  CHECK(f.entries() == std::vector<std::string>{"in.dat", "out.dat", "tmp", "values.dat", "values_out.dat"});
}

TEST_CASE("out-of-core in memory: spans larger than the device") {
  DeviceOptions options = test::options_like_device();
  options.pretend.device_memory = 128u << 10;
  Device small(options);
  const uint64_t n = 60000;
  std::vector<std::byte> keys = workloads::generate_keys(Key::f32, workloads::default_spec(Distribution::special), n, 5);
  std::vector<std::byte> values = make_records(n, 4);
  std::vector<std::byte> keys_out(keys.size()), values_out(values.size());
  const std::vector<std::byte> keys_in_copy = keys, values_in_copy = values;
  ExternalOptions o;
  o.sort.key = Key::f32;
  o.sort.order = Order::descending;
  o.sort.value_bytes = 4;
  o.memory_bytes = 1u << 20;
  o.overlap = 1;
  const ExternalStats s = external::sort_memory(small, keys, values, keys_out, values_out, o);
  CHECK(s.runs >= 8);
  // The same through several merge passes (runs in host memory, ping-ponged between two stores).
  std::vector<std::byte> keys_out2(keys.size()), values_out2(values.size());
  o.memory_bytes = 4096;
  const ExternalStats t = external::sort_memory(small, keys_in_copy, values_in_copy, keys_out2, values_out2, o);
  CHECK(t.merge_passes >= 2);
  expected(Key::f32, Order::descending, keys, values, 4);
  CHECK(keys_out == keys);
  CHECK(values_out == values);
  CHECK(keys_out2 == keys);
  CHECK(values_out2 == values);

  // In place, several runs: the inputs may be the outputs (every run is read before the merge writes).
  std::vector<std::byte> in_place_keys = keys_in_copy, in_place_values = values_in_copy;
  o.memory_bytes = 1u << 20;
  const ExternalStats u = external::sort_memory(small, in_place_keys, in_place_values, in_place_keys, in_place_values, o);
  CHECK(u.runs >= 8);
  CHECK(in_place_keys == keys);
  CHECK(in_place_values == values);
  // In place, cancelled by the progress callback during the merge (one pass, and several): the merge
  // wrote into the input as it went, and the cancel left it part merged, part input, records lost.
  for (const uint64_t budget : {uint64_t(1) << 20, uint64_t(4096)}) {
    CAPTURE(budget);
    std::vector<std::byte> cancelled_keys = keys_in_copy, cancelled_values = values_in_copy;
    ExternalOptions cancel = o;
    cancel.memory_bytes = budget;
    cancel.check = true;
    uint64_t merge_reports = 0;
    cancel.progress = [&](const external::ExternalProgress& p) {
      if (p.phase == "merge" && ++merge_reports == 3) throw std::runtime_error("cancelled");
    };
    CHECK_THROWS_WITH(external::sort_memory(small, cancelled_keys, cancelled_values, cancelled_keys, cancelled_values, cancel),
                      "cancelled");
    CHECK(merge_reports == 3);
    CHECK(cancelled_keys == keys_in_copy);
    CHECK(cancelled_values == values_in_copy);
    // Not cancelled, the same staged merge (checked) gives the result.
    cancel.progress = nullptr;
    external::sort_memory(small, cancelled_keys, cancelled_values, cancelled_keys, cancelled_values, cancel);
    CHECK(cancelled_keys == keys);
    CHECK(cancelled_values == values);
  }
  // The two outputs in one memory: the values overwrote the keys, silently.
  std::vector<std::byte> shared(keys.size() + values.size(), std::byte{0x5a});
  const std::vector<std::byte> untouched = shared;
  const std::span<std::byte> both(shared);
  for (size_t shift : {size_t(0), size_t(4), keys.size() - 4}) {
    CAPTURE(shift);
    CHECK_THROWS_WITH_AS(external::sort_memory(small, keys_in_copy, values_in_copy, both.first(keys.size()),
                                               both.subspan(shift, values.size()), o),
                         doctest::Contains("keys_out and values_out overlap"), external::InputError);
  }
  CHECK(shared == untouched);
}

TEST_CASE("out-of-core: failures leave no temporary file and no output; an old output is untouched") {
  Folder f;
  const uint64_t n = 20000;
  std::vector<std::byte> keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), n, 9);
  write_file(f / "in.bin", keys);
  const std::vector<std::byte> old_output(100, std::byte{7});
  write_file(f / "old.bin", old_output);
  ExternalOptions o;
  o.input = f / "in.bin";
  o.temp_dir = f.tmp();
  o.memory_bytes = memory_for_runs(n, 4, 10);

  // Cancelled (the progress callback throws) in each phase.
  for (std::string phase : {"runs", "merge"}) {
    CAPTURE(phase);
    o.output = f / "old.bin";
    o.progress = [&](const external::ExternalProgress& p) {
      if (p.phase == phase && p.done * 2 > p.total) throw std::runtime_error("cancelled");
    };
    CHECK_THROWS_WITH(external::sort_file(test::device(), o), "cancelled");
    CHECK(read_file(f / "old.bin") == old_output);
    o.output = f / "new.bin";
    CHECK_THROWS_WITH(external::sort_file(test::device(), o), "cancelled");
    CHECK(!fs::exists(o.output));
    CHECK(f.entries() == std::vector<std::string>{"in.bin", "old.bin", "tmp"});
  }
  o.progress = nullptr;

  // Bad input: a clear InputError naming the file, nothing created.
  write_file(f / "odd.bin", std::vector<std::byte>(4001));
  o.input = f / "odd.bin";
  o.output = f / "new.bin";
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o),
                       doctest::Contains("holds 4001 bytes, not a multiple of 4"), external::InputError);
  // Key::element (the default, "not given") sorts as u32 and is named so (it said "one element key").
  {
    ExternalOptions e = o;
    e.sort.key = Key::element;
    CHECK_THROWS_WITH_AS(external::sort_file(test::device(), e), doctest::Contains("(the size of one u32 key)"),
                         external::InputError);
    // overlap takes -1, 0 or 1 (7 was taken as on).
    e.input = f / "in.bin";
    e.overlap = 7;
    CHECK_THROWS_WITH_AS(external::sort_file(test::device(), e), doctest::Contains("ExternalOptions::overlap is 7"),
                         external::InputError);
  }
  o.input = f / "missing.bin";
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("does not exist"), external::InputError);
  o.input = f / "in.bin";
  o.temp_dir = f / "no-such-folder";
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("no-such-folder"), external::InputError);
  o.temp_dir = f.tmp();
  o.values_input = f / "in.bin";  // 20000 words: fine as values...
  o.values_output = f / "vals.bin";
  o.sort.value_bytes = 8;  // ...but not as 8-byte records
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("one 8-byte record per key"),
                       external::InputError);
  // Keys and values into one file: by one name, and by two hard links to it (both kept as they were).
  o.sort.value_bytes = 4;
  o.output = o.values_output = f / "old.bin";
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("same file"), external::InputError);
  fs::create_hard_link(f / "old.bin", f / "old_link.bin");
  o.values_output = f / "old_link.bin";
  const std::vector<std::byte> old_contents = read_file(f / "old.bin");
  CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("same file"), external::InputError);
  CHECK(read_file(f / "old.bin") == old_contents);
  fs::remove(f / "old_link.bin");
  // A FIFO with no writer, as keys or as values: refused, not waited on (the open waited forever).
  REQUIRE(mkfifo((f / "fifo").c_str(), 0600) == 0);
  o.output = f / "new.bin";
  o.values_output = f / "vals.bin";
  for (const bool as_values : {false, true}) {
    CAPTURE(as_values);
    o.input = as_values ? f / "in.bin" : f / "fifo";
    o.values_input = as_values ? f / "fifo" : f / "in.bin";
    CHECK_THROWS_WITH_AS(external::sort_file(test::device(), o), doctest::Contains("is not a regular file"),
                         external::InputError);
  }
  fs::remove(f / "fifo");
  CHECK(f.entries() == std::vector<std::string>{"in.bin", "odd.bin", "old.bin", "tmp"});
}

TEST_CASE("out-of-core: a full disk names the file and leaves nothing behind") {
  Folder f;
  const uint64_t n = 20000;
  std::vector<std::byte> keys = workloads::generate_keys(Key::u32, workloads::default_spec(Distribution::uniform), n, 8);
  write_file(f / "in.bin", keys);
  ExternalOptions o;
  o.input = f / "in.bin";
  o.output = f / "out.bin";
  o.temp_dir = f.tmp();
  // A file size limit is a full disk as far as this process can tell; with SIGXFSZ ignored, writes
  // past it fail with EFBIG. Set only around the sort (the limit is the whole process's).
  struct sigaction ignore {}, old_action {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old_action);
  rlimit old_limit{};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  auto sort_limited = [&] {
    rlimit limit = old_limit;
    limit.rlim_cur = keys.size() / 2;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
    std::string what;
    try {
      external::sort_file(test::device(), o);
    } catch (const external::InputError& e) {
      what = std::string("InputError: ") + e.what();  // a full disk is no bad input
    } catch (const Error& e) {
      what = e.what();
      CHECK(e.code() == Status::Code::io_error);  // not the caller's mistake: a code of its own
      CHECK(e.result() == VK_SUCCESS);
    }
    setrlimit(RLIMIT_FSIZE, &old_limit);
    return what;
  };
  // One run: the output itself is what cannot be written.
  o.memory_bytes = 64u << 20;
  CHECK(sort_limited() == "writing output '" + (f / "out.bin").string() + "': File too large");
  // Many runs: the run data fills the disk first.
  o.memory_bytes = memory_for_runs(n, 4, 10);
  CHECK(sort_limited() == "writing temporary run data in '" + f.tmp().string() + "': File too large");
  sigaction(SIGXFSZ, &old_action, nullptr);
  CHECK(f.entries() == std::vector<std::string>{"in.bin", "tmp"});
}

TEST_CASE("out-of-core --check: a right result passes; disorder, a lost, repeated or changed record fails") {
  using external::detail::ResultCheck;
  // u32 keys with 12-byte records, input in a scrambled order, output sorted.
  const std::vector<uint32_t> in_keys = {7, 3, 9, 3, 1};
  std::vector<std::array<uint32_t, 3>> in_values;
  for (uint32_t k : in_keys) in_values.push_back({k * 10, k + 1, 5});
  std::vector<size_t> order = {4, 1, 3, 0, 2};
  auto run = [&](std::vector<uint32_t> keys, std::vector<std::array<uint32_t, 3>> values) {
    ResultCheck check(Key::u32, Order::ascending, 4, 12);
    // Input in two pieces, as runs arrive.
    check.input(reinterpret_cast<const std::byte*>(in_keys.data()), reinterpret_cast<const std::byte*>(in_values.data()), 2);
    check.input(reinterpret_cast<const std::byte*>(in_keys.data() + 2), reinterpret_cast<const std::byte*>(in_values.data() + 2), 3);
    check.output(reinterpret_cast<const std::byte*>(keys.data()), reinterpret_cast<const std::byte*>(values.data()), keys.size());
    check.finish();
  };
  std::vector<uint32_t> keys;
  std::vector<std::array<uint32_t, 3>> values;
  for (size_t i : order) keys.push_back(in_keys[i]), values.push_back(in_values[i]);
  CHECK_NOTHROW(run(keys, values));

  auto disordered = keys;
  std::swap(disordered[0], disordered[4]);
  auto dv = values;
  std::swap(dv[0], dv[4]);
  CHECK_THROWS_WITH_AS(run(disordered, dv), doctest::Contains("out of order"), Error);
  auto changed = values;
  changed[2][1] ^= 1;
  CHECK_THROWS_WITH_AS(run(keys, changed), doctest::Contains("not the input's"), Error);
  auto lost_k = keys, repeated_k = keys;
  auto lost_v = values, repeated_v = values;
  lost_k.pop_back(), lost_v.pop_back();
  CHECK_THROWS_WITH_AS(run(lost_k, lost_v), doctest::Contains("not the input's"), Error);
  repeated_k[4] = repeated_k[3], repeated_v[4] = repeated_v[3];  // 9 replaced by a second 7: still in order
  CHECK_THROWS_WITH_AS(run(repeated_k, repeated_v), doctest::Contains("not the input's"), Error);
  // Values swapped between records of different keys: the keys are right, the records are not.
  auto swapped = values;
  std::swap(swapped[0], swapped[4]);
  CHECK_THROWS_WITH_AS(run(keys, swapped), doctest::Contains("not the input's"), Error);
}
