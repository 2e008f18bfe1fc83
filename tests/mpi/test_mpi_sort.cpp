// SPDX-License-Identifier: MIT
// vksort::mpi::sort under mpiexec with 1 to 4 ranks (ctest runs each): every key type, with and without
// values, both orders, keys spread over the ranks in adversarial ways, each rank's result compared byte
// for byte with its stretch of the single-process reference (a stable sort of all ranks' input
// concatenated in rank order, i.e. ties by (key, rank, index)), and the balance guarantee checked.
// Every rank builds the whole input from the same seed, so the reference needs no communication.
#include <doctest/doctest.h>

#include <climits>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>
#include <sys/mman.h>

#include "distributions.hpp"
#include "mpi/exchange_plan.hpp"
#include "mpi/merge_runs.hpp"
#include "mpi/splitters.hpp"
#include "mpi/test_mpi_device.hpp"
#include "reference_sort.hpp"
#include "vksort/mpi.hpp"

namespace vksort::test {
namespace {

using workloads::Distribution;
using workloads::DistributionSpec;

int rank_of_world() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// How n keys are spread over p ranks.
enum class Layout { even, all_on_first, all_on_last, odd_ranks_empty, growing };
constexpr Layout all_layouts[] = {Layout::even, Layout::all_on_first, Layout::all_on_last, Layout::odd_ranks_empty,
                                  Layout::growing};
const char* name(Layout l) {
  switch (l) {
    case Layout::even: return "even";
    case Layout::all_on_first: return "all on rank 0";
    case Layout::all_on_last: return "all on the last rank";
    case Layout::odd_ranks_empty: return "odd ranks empty";
    case Layout::growing: return "growing 1:4:16:64";
  }
  return "?";
}

std::vector<uint64_t> counts_for(Layout layout, uint64_t n, int p) {
  std::vector<uint64_t> counts(size_t(p), 0);
  std::vector<uint64_t> weight(size_t(p), 0);
  for (int r = 0; r < p; ++r) {
    switch (layout) {
      case Layout::even: weight[size_t(r)] = 1; break;
      case Layout::all_on_first: weight[size_t(r)] = r == 0; break;
      case Layout::all_on_last: weight[size_t(r)] = r == p - 1; break;
      case Layout::odd_ranks_empty: weight[size_t(r)] = r % 2 == 0; break;
      case Layout::growing: weight[size_t(r)] = uint64_t(1) << (2 * r); break;
    }
  }
  uint64_t total_weight = 0, given = 0;
  for (uint64_t w : weight) total_weight += w;
  for (size_t r = 0; r < size_t(p); ++r) given += counts[r] = n * weight[r] / total_weight;
  // What rounding left goes to the last rank with weight.
  for (size_t r = size_t(p); r-- > 0;)
    if (weight[r]) {
      counts[r] += n - given;
      break;
    }
  return counts;
}

struct Case {
  DistributionSpec spec;
  uint64_t n = 0;
  Layout layout = Layout::even;
  Order order = Order::ascending;
  bool values = false;
  mpi::Options options{};
};

std::string describe(Key key, const Case& c) {
  return std::string(to_string(key)) + " " + workloads::to_string(c.spec) + " n=" + std::to_string(c.n) + " " +
         name(c.layout) + " " + std::string(to_string(c.order)) + (c.values ? " +values" : "") +
         (c.options.keep_counts ? " keep_counts" : "") +
         (c.options.max_message_bytes ? " max_message_bytes=" + std::to_string(c.options.max_message_bytes) : "") +
         " on " + std::to_string(world_size()) + " ranks";
}

// Sorts the case on all ranks and checks this rank's part; returns the stats for further checks.
template <class K>
mpi::Stats check_case(const Case& c) {
  const Key key = mpi::key_of<K>();
  const int me = rank_of_world(), p = world_size();
  const std::vector<std::byte> all = workloads::generate_keys(key, c.spec, c.n, c.n * 31 + 7);
  const std::vector<uint32_t> index = workloads::generate_values(c.n);
  const std::vector<uint64_t> counts = counts_for(c.layout, c.n, p);
  const std::vector<uint64_t> offsets = mpi::detail::offsets_of(counts);
  std::vector<K> mine(counts[size_t(me)]);
  if (!mine.empty()) std::memcpy(mine.data(), all.data() + offsets[size_t(me)] * sizeof(K), mine.size() * sizeof(K));
  const std::span<const uint32_t> my_values(index.data() + offsets[size_t(me)], counts[size_t(me)]);

  mpi::Options o = c.options;
  o.order = c.order;
  mpi::Result<K> got = c.values ? mpi::sort<K>(MPI_COMM_WORLD, mpi_device(), std::span<const K>(mine), my_values, o)
                                : mpi::sort<K>(MPI_COMM_WORLD, mpi_device(), std::span<const K>(mine), o);

  std::vector<std::byte> expected = all;
  std::vector<uint32_t> expected_values = index;
  workloads::reference_sort(key, c.order, expected, expected_values);
  uint64_t size = got.keys.size(), before = 0, total = 0;
  MPI_Exscan(&size, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(&size, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  const std::string what = describe(key, c) + ", rank " + std::to_string(me);
  CHECK_MESSAGE(total == c.n, what);
  if (before + size <= c.n) {
    const auto want = std::span<const std::byte>(expected).subspan(before * sizeof(K), size * sizeof(K));
    const auto want_values = c.values ? std::span<const uint32_t>(expected_values).subspan(before, size)
                                      : std::span<const uint32_t>();
    const std::string diff = workloads::first_difference(key, want, std::as_bytes(std::span(got.keys)), want_values,
                                                         got.values);
    CHECK_MESSAGE(diff.empty(), what << ": " << diff);
  }
  if (!c.values) CHECK_MESSAGE(got.values.empty(), what);
  if (c.options.keep_counts) CHECK_MESSAGE(size == counts[size_t(me)], what);

  // Balance: the rank's bucket against the largest, the stated bound and 2n/p + 1.
  const mpi::Stats& st = got.stats;
  uint64_t largest = 0;
  MPI_Allreduce(&st.received, &largest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK_MESSAGE(st.n_total == c.n, what);
  CHECK_MESSAGE(st.max_received == largest, what);
  CHECK_MESSAGE(st.max_received <= st.received_bound, what << ": bucket " << st.max_received << " > bound "
                                                              << st.received_bound);
  CHECK_MESSAGE(st.received_bound <= mpi::received_bound(c.n, p, c.options.oversampling), what);
  if (mpi::detail::samples_per_share(p, c.options.oversampling) >= uint64_t(p) + 1)
    CHECK_MESSAGE(st.max_received * uint64_t(p) <= 2 * c.n + uint64_t(p),
                  what << ": bucket " << st.max_received << " above 2n/p + 1");
  return st;
}

constexpr Distribution matrix_distributions[] = {Distribution::uniform,    Distribution::sorted,
                                                 Distribution::reverse,    Distribution::all_equal,
                                                 Distribution::few_unique, Distribution::zipf,
                                                 Distribution::special};

}  // namespace

TEST_SUITE("collective") {

TEST_CASE_TEMPLATE("mpi sort: distributions x layouts", K, uint32_t, int32_t, float, uint64_t, int64_t, double) {
  size_t i = 0;
  for (Distribution d : matrix_distributions) {
    for (Layout layout : all_layouts) {
      Case c;
      c.spec = workloads::default_spec(d);
      if (d == Distribution::few_unique) c.spec.param = 3;
      c.n = 700 + 13 * i;
      c.layout = layout;
      c.order = i % 2 ? Order::descending : Order::ascending;
      // Values make stability visible; duplicates-heavy inputs always carry them.
      c.values = i % 3 != 0 || d == Distribution::all_equal || d == Distribution::few_unique;
      check_case<K>(c);
      ++i;
    }
  }
}

TEST_CASE_TEMPLATE("mpi sort: fewer keys than ranks, one key, none", K, uint32_t, int32_t, float, uint64_t, int64_t,
                   double) {
  const uint64_t p = uint64_t(world_size());
  for (uint64_t n : {uint64_t(0), uint64_t(1), p - 1, p, p + 1}) {
    for (Layout layout : {Layout::even, Layout::all_on_last, Layout::odd_ranks_empty}) {
      Case c;
      c.spec = workloads::default_spec(Distribution::few_unique);
      c.spec.param = 2;
      c.n = n;
      c.layout = layout;
      c.values = true;
      check_case<K>(c);
    }
  }
}

TEST_CASE_TEMPLATE("mpi sort: keep_counts gives every rank its input's count", K, uint32_t, int32_t, float, uint64_t,
                   int64_t, double) {
  for (Distribution d : {Distribution::uniform, Distribution::all_equal, Distribution::reverse}) {
    for (Layout layout : {Layout::all_on_first, Layout::growing, Layout::odd_ranks_empty}) {
      Case c;
      c.spec = workloads::default_spec(d);
      c.n = 901;
      c.layout = layout;
      c.order = d == Distribution::reverse ? Order::descending : Order::ascending;
      c.values = true;
      c.options.keep_counts = true;
      check_case<K>(c);
    }
  }
}

TEST_CASE("mpi sort: the chunked exchange (messages of at most 3 keys)") {
  for (Layout layout : {Layout::even, Layout::all_on_first}) {
    Case c;
    c.spec = workloads::default_spec(Distribution::uniform);
    c.n = 257;
    c.layout = layout;
    c.values = true;
    c.options.max_message_bytes = 12;
    c.options.keep_counts = layout == Layout::all_on_first;
    const mpi::Stats st = check_case<uint32_t>(c);
    CHECK(st.chunked_exchange);
    c.options.max_message_bytes = 24;  // 3 u64 keys; the values go as messages of 6
    CHECK(check_case<double>(c).chunked_exchange);
  }
}

TEST_CASE("mpi sort: oversampling trades samples for a tighter bound") {
  for (uint32_t s : {1u, 2u, 5u, 200u}) {
    for (Distribution d : {Distribution::uniform, Distribution::all_equal}) {
      Case c;
      c.spec = workloads::default_spec(d);
      c.n = 2000;
      c.layout = Layout::growing;
      c.values = true;
      c.options.oversampling = s;
      const mpi::Stats st = check_case<uint64_t>(c);
      CHECK(st.sample_step == mpi::detail::sample_step(c.n, world_size(), s));
    }
  }
}

TEST_CASE("mpi sort: a bad argument on one rank fails every rank with the same message") {
  const int me = rank_of_world(), p = world_size();
  std::vector<uint32_t> keys(10, 7), values(me == p - 1 ? 9 : 10, 1);
  // What a sort of `mine` with `o` throws ("" when it returns).
  auto refusal = [&](const std::vector<uint32_t>& mine, const mpi::Options& o, const std::vector<uint32_t>* with = nullptr) {
    try {
      if (with) mpi::sort<uint32_t>(MPI_COMM_WORLD, mpi_device(), std::span<const uint32_t>(mine), *with, o);
      else mpi::sort<uint32_t>(MPI_COMM_WORLD, mpi_device(), std::span<const uint32_t>(mine), o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(refusal(keys, {}, &values) == "vksort::mpi::sort: checking the arguments failed on rank " + std::to_string(p - 1) +
                                          ": 9 values for 10 keys: one value per key is needed");
  // The ranks disagree on the order: every rank refuses, the same way.
  mpi::Options order;
  order.order = me == 0 ? Order::descending : Order::ascending;
  CHECK(refusal(keys, order) ==
        (p > 1 ? "vksort::mpi::sort: the ranks disagree on the order: every rank must call it alike" : ""));
  // 2^63 on one rank against 8 on the others: the agreement's negation of -2^63 overflowed and every
  // rank went on, rank 0 receiving part of the chunked exchange (or MPI_ERR_TRUNCATE).
  mpi::Options message_bytes;
  message_bytes.max_message_bytes = me == 0 ? uint64_t(1) << 63 : 8;
  CHECK(refusal(keys, message_bytes) ==
        (p > 1 ? "vksort::mpi::sort: the ranks disagree on the max_message_bytes: every rank must call it alike" : ""));
  // Options the local sort refuses are refused on ranks without keys too (all ranks empty returned).
  mpi::Options bad_algorithm;
  bad_algorithm.algorithm = Algorithm(77);
  for (const bool empty_here : {true, me != 0}) {
    CAPTURE(empty_here);
    const std::string message = refusal(empty_here ? std::vector<uint32_t>{} : keys, bad_algorithm);
    CHECK_MESSAGE(message.starts_with("vksort::mpi::sort: the local sort failed on rank 0: "), message);
  }
  // The communicator still works after the failures (nothing was left half-done).
  const mpi::Result<uint32_t> after = mpi::sort<uint32_t>(MPI_COMM_WORLD, mpi_device(), std::span<const uint32_t>(keys));
  CHECK(after.stats.n_total == uint64_t(10 * p));
}

TEST_CASE("mpi sort: more than 2^31 - 1 keys on one rank are refused before they are copied") {
  const int p = world_size();
  // The last rank passes 2^31 keys in address space that holds no memory (PROT_NONE, reserved only):
  // the local sort copied them all before sort_host refused them (8 GiB more on a rank that already
  // holds 8), and a rank short of that memory failed with "out of host memory".
  const uint64_t n = uint64_t(1) << 31;
  const bool last = rank_of_world() == p - 1;
  void* reserved = last ? mmap(nullptr, n * 4, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : nullptr;
  REQUIRE(reserved != MAP_FAILED);
  const std::vector<uint32_t> few(10, 7);
  const std::span<const uint32_t> keys = last ? std::span<const uint32_t>(static_cast<const uint32_t*>(reserved), n)
                                              : std::span<const uint32_t>(few);
  CHECK_THROWS_WITH_AS(mpi::sort<uint32_t>(MPI_COMM_WORLD, mpi_device(), keys),
                       ("vksort::mpi::sort: checking the arguments failed on rank " + std::to_string(p - 1) +
                        ": 2147483648 keys on one rank: vksort sorts at most 2^31 - 1 keys on one rank (spread them "
                        "over more ranks)")
                           .c_str(),
                       Error);
  if (reserved) munmap(reserved, n * 4);
}

TEST_CASE("mpi sort: MPI_COMM_NULL and intercommunicators are refused before any collective") {
  const int me = rank_of_world(), p = world_size();
  const std::vector<uint32_t> keys(10, 7);
  // With MPI_ERRORS_RETURN, MPI_COMM_NULL went on to a crash inside MPI_Allgather.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_THROWS_WITH_AS(mpi::sort<uint32_t>(MPI_COMM_NULL, mpi_device(), std::span<const uint32_t>(keys)),
                       "vksort::mpi::sort: the communicator is MPI_COMM_NULL", Error);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (p < 2) return;  // an intercommunicator needs two groups
  // Even ranks against odd ones: collectives with MPI_IN_PLACE aborted the job (MPI_ERR_BUFFER).
  MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 99, &inter);
  CHECK_THROWS_WITH_AS(mpi::sort<uint32_t>(inter, mpi_device(), std::span<const uint32_t>(keys)),
                       "vksort::mpi::sort: the communicator is an intercommunicator; sort over an intracommunicator "
                       "(e.g. MPI_Intercomm_merge's)",
                       Error);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

TEST_CASE("mpi sort: the GPU failing on one rank fails every rank, none is left waiting") {
  const int me = rank_of_world(), p = world_size();
  // The last rank's device pretends to hold 64 KiB: its local sort runs out of device memory.
  std::optional<Device> small;
  if (me == p - 1) {
    DeviceOptions options;
    options.validation = validation_layer_available() ? 1 : 0;
    options.pretend.device_memory = 64 << 10;
    small.emplace(options);
  }
  std::vector<uint64_t> keys(100000, 3);
  std::string message;
  try {
    mpi::sort<uint64_t>(MPI_COMM_WORLD, small ? *small : mpi_device(), std::span<const uint64_t>(keys));
  } catch (const Error& e) {
    message = e.what();
  }
  const std::string prefix = "vksort::mpi::sort: the local sort failed on rank " + std::to_string(p - 1) + ": ";
  CHECK_MESSAGE(message.starts_with(prefix), message);
  CHECK_MESSAGE(message.find("VK_ERROR_OUT_OF_DEVICE_MEMORY") != std::string::npos, message);
  // Every rank reports the same line.
  const uint64_t length = message.size();
  uint64_t shortest = 0, longest = 0;
  MPI_Allreduce(&length, &shortest, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&length, &longest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK(shortest == longest);
}

TEST_CASE("mpi: node-local rank and device choice") {
  // mpiexec starts every rank of these tests on this machine.
  CHECK(mpi::node_local_rank(MPI_COMM_WORLD) == rank_of_world());
  DeviceOptions base;
  base.select = "lavapipe";
  CHECK(mpi::device_options(MPI_COMM_WORLD, base).select == "lavapipe");
}

}  // TEST_SUITE("collective")

// The arithmetic of the plan, on sizes no test machine could exchange. Rank-local: no MPI calls.
TEST_SUITE("plan") {

TEST_CASE("chunks cover a piece beyond 2^31 elements with int-sized messages") {
  const uint64_t count = 5'000'000'123ull;
  const auto chunks = mpi::detail::chunks_of(count, uint64_t(1) << 40);
  REQUIRE(chunks.size() == 3);  // INT_MAX at the most per message
  uint64_t next = 0;
  for (const auto& c : chunks) {
    CHECK(c.offset == next);
    CHECK(c.count > 0);
    next += uint64_t(c.count);
  }
  CHECK(next == count);
  CHECK(mpi::detail::chunks_of(0, 5).empty());
  CHECK(mpi::detail::chunks_of(10, 3).size() == 4);
  CHECK(mpi::detail::chunks_of(10, 3).back().count == 1);
  CHECK(mpi::detail::chunks_of(4, 0).size() == 4);  // a limit below 1 element is 1
}

TEST_CASE("one Alltoallv only when every count and displacement fits an int") {
  const uint64_t big = uint64_t(INT_MAX) + 1;
  const std::vector<uint64_t> small{5, 6, 7};
  CHECK(mpi::detail::fits_one_alltoallv(small, small, 100));
  CHECK_FALSE(mpi::detail::fits_one_alltoallv(small, small, 6));  // a count above the message limit
  const std::vector<uint64_t> large_count{big, 0, 0};
  CHECK_FALSE(mpi::detail::fits_one_alltoallv(large_count, small, UINT64_MAX));
  // Counts that fit, but the third piece starts beyond INT_MAX elements.
  const std::vector<uint64_t> far{uint64_t(INT_MAX) - 1, 5, 1};
  CHECK_FALSE(mpi::detail::fits_one_alltoallv(small, far, UINT64_MAX));
  // The total may exceed INT_MAX as long as the last displacement does not.
  const std::vector<uint64_t> last_far{1, uint64_t(INT_MAX) - 1, uint64_t(INT_MAX)};
  CHECK(mpi::detail::fits_one_alltoallv(small, last_far, UINT64_MAX));
  CHECK(mpi::detail::max_message_elements(0, 8) == (uint64_t(1) << 27));
  CHECK(mpi::detail::max_message_elements(uint64_t(1) << 40, 1) == uint64_t(INT_MAX));
  CHECK(mpi::detail::max_message_elements(3, 8) == 1);
}

TEST_CASE("rebalancing counts move every key to its rank exactly once") {
  const std::vector<uint64_t> have{0, 10, 3, 7}, target{5, 5, 5, 5};
  uint64_t moved = 0;
  for (int r = 0; r < 4; ++r) {
    const auto send = mpi::detail::rebalance_counts(have, target, r);
    const auto recv = mpi::detail::rebalance_counts(target, have, r);
    uint64_t s = 0, v = 0;
    for (uint64_t x : send) s += x;
    for (uint64_t x : recv) v += x;
    CHECK(s == have[size_t(r)]);
    CHECK(v == target[size_t(r)]);
    moved += s;
  }
  CHECK(moved == 20);
  CHECK(mpi::detail::rebalance_counts(have, target, 1) == std::vector<uint64_t>{5, 5, 0, 0});
}

TEST_CASE("sampling: step, splitters, their place in a run of equal keys, and the bound") {
  CHECK(mpi::detail::sample_step(0, 4, 0) == 1);
  CHECK(mpi::detail::sample_step(100, 4, 5) == 5);  // ceil(100 / 20)
  CHECK(mpi::detail::sample_step(101, 4, 5) == 6);
  CHECK(mpi::detail::sample_step(1'000'000, 4, 0) == 3907);  // s = 64: ceil(10^6 / 256)
  CHECK(mpi::detail::sample_step(1'000'000, 100, 0) == 100);  // s = p + 1 = 101
  // All keys equal: the (rank, position) order still cuts them evenly.
  const std::vector<uint32_t> run(12, 9);
  const auto samples = mpi::detail::take_samples<uint32_t>(run, 1, 4);
  REQUIRE(samples.size() == 3);
  CHECK(samples[0].position == 3);
  const std::vector<mpi::detail::Sample> split{{9, 0, 5}, {9, 1, 6}, {9, 2, 0}};
  CHECK(mpi::detail::locate_splitters<uint32_t>(run, 1, split, 4) == std::vector<uint64_t>{0, 0, 6, 12, 12});
  std::vector<mpi::detail::Sample> sorted(10);
  for (uint64_t i = 0; i < 10; ++i) sorted[i] = {i, 0, i};
  const auto chosen = mpi::detail::choose_splitters(sorted, 4);
  REQUIRE(chosen.size() == 3);
  CHECK(chosen[0].key == 2);  // floor(10/4)
  CHECK(chosen[2].key == 7);  // floor(30/4)
  CHECK(mpi::detail::bucket_bound(10, 4, 3) == 3 * 3 + 4 * 2);
  // The closed form stays below 2n/p + 1 with the default oversampling, for any n and p.
  for (int p = 1; p <= 256; p *= 2)
    for (uint64_t n : {0ull, 1ull, 63ull, 1000ull, 123457ull, 1ull << 40})
      CHECK(mpi::received_bound(n, p) * uint64_t(p) <= 2 * n + uint64_t(p));
  // No ranks is no count (a division by zero); a bound beyond 2^64 saturates (it wrapped to about n / 7).
  CHECK_THROWS_WITH_AS(mpi::received_bound(100, 0), "vksort::mpi::received_bound: 0 ranks (at least 1)", Error);
  CHECK_THROWS_AS(mpi::received_bound(100, -1), Error);
  CHECK(mpi::received_bound(UINT64_MAX, 7, 1) == UINT64_MAX);
}

TEST_CASE("the merge of received runs is stable across runs") {
  // Three runs from ranks 0, 1, 2 with equal keys; values name the run.
  std::vector<uint32_t> keys{1, 5, 5, 2, 5, 9, 5, 5};
  std::vector<uint32_t> values{0, 0, 0, 1, 1, 1, 2, 2};
  mpi::detail::merge_runs(keys, values, {0, 3, 6, 8}, true);
  CHECK(keys == std::vector<uint32_t>{1, 2, 5, 5, 5, 5, 5, 9});
  CHECK(values == std::vector<uint32_t>{0, 1, 0, 0, 1, 2, 2, 1});
}

}  // TEST_SUITE("plan")

}  // namespace vksort::test
