// SPDX-License-Identifier: MIT
// Bucket lists (seed 002): every element in exactly one list, the list of its bucket, lists as long as
// the CPU's counts, no cycles; the paper's example; bounded heavy buckets; resort equal to a build;
// deterministic mode; out-of-range ids; the recording path.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "bucket_workloads.hpp"
#include "api/internals.hpp"
#include "gpu/context.hpp"
#include "support/app_commands.hpp"
#include "support/test_device.hpp"

using namespace vksort;

namespace {

constexpr uint32_t null = BucketLists::null;

struct Lists {
  std::vector<uint32_t> head, next;
};

Lists download(const BucketLists& lists) { return {lists.download_head(), lists.download_next()}; }

using workloads::clustered_bucket_ids;
using workloads::uniform_bucket_ids;

std::vector<uint32_t> walk(const Lists& l, uint32_t b, size_t n, bool* cycle = nullptr) {
  return workloads::walk_bucket(l.head, l.next, b, n, cycle);
}
std::string check_lists(const Lists& l, const std::vector<uint32_t>& ids, uint32_t m) {
  return workloads::check_bucket_lists(l.head, l.next, ids, m);
}
std::vector<uint32_t> move_some(std::vector<uint32_t> ids, uint32_t m, double fraction, uint32_t seed, size_t* moved) {
  return workloads::move_some_ids(std::move(ids), m, fraction, seed, moved);
}

// Every list in ascending element order (what sort-based and deterministic builds promise).
bool ascending_lists(const Lists& l, size_t n) {
  for (uint32_t b = 0; b < l.head.size(); ++b) {
    std::vector<uint32_t> list = walk(l, b, n);
    if (!std::is_sorted(list.begin(), list.end())) return false;
  }
  return true;
}

uint32_t largest_bucket(const std::vector<uint32_t>& ids, uint32_t m) {
  std::vector<uint32_t> count(m, 0);
  uint32_t most = 0;
  for (uint32_t id : ids)
    if (id < m) most = std::max(most, ++count[id]);
  return most;
}

// What a repeated-scatter build without partial update must report, whichever stores win: each
// iteration places one element of every non-empty bucket; the GPU stops after iteration k (k < K) once
// the survivors outnumber placed * (K - 1 - k) (some bucket then holds more than the remaining
// iterations can place), or at the last one, and the fallback links the rest.
struct Run {
  uint32_t iterations = 0, fallback = 0;
};
Run expected_run(const std::vector<uint32_t>& ids, uint32_t m, uint32_t K) {
  std::vector<uint32_t> count(m, 0);
  uint32_t racing = 0;
  for (uint32_t id : ids)
    if (id < m) ++count[id], ++racing;
  Run r;
  for (uint32_t k = 0; k < K; ++k) {
    uint32_t placed = 0;
    for (uint32_t& c : count)
      if (c) --c, ++placed;
    const uint32_t left = racing - placed;
    if (racing) ++r.iterations;
    if (k + 1 == K || (racing && uint64_t(placed) * (K - 1 - k) < left)) {
      r.fallback = left;
      break;
    }
    racing = left;
  }
  return r;
}

BucketOptions options(uint32_t m, uint32_t n, BucketMode mode = BucketMode::scatter) {
  BucketOptions o;
  o.buckets = m;
  o.capacity = n;
  o.mode = mode;
  return o;
}

}  // namespace

// Seed 002, Figure 1: eight elements, four buckets. Our copy of the paper has the figure's caption but
// not its cells, so the example's ids are ours. A plain-store race has a scheduling-dependent winner,
// so the scatter build is checked for what Listing 1 guarantees: the right sets, one element of every
// non-empty bucket placed per iteration (iterations = the largest bucket), and each iteration's
// winner prepended (with one iteration, the winner ends its list and the fallback's ascending rest
// comes before it). The deterministic build has exactly one answer, asserted cell by cell.
TEST_CASE("Figure 1's example: eight elements in four buckets") {
  const std::vector<uint32_t> a = {2, 0, 3, 2, 1, 0, 2, 3};
  BucketOptions paper = options(4, 8);
  paper.parts = 1;  // Listing 1 as printed (no partial update)
  BucketLists scatter(test::device(), paper);
  BucketStats s = scatter.build(a);
  Lists l = download(scatter);
  CHECK(check_lists(l, a, 4) == "");
  CHECK(s.iterations == 3);  // bucket 2 holds three elements
  CHECK(s.fallback == 0);
  CHECK(s.moved == 8);
  CHECK(expected_run(a, 4, 32).iterations == 3);

  BucketOptions one = paper;
  one.max_iterations = 1;
  BucketLists first_only(test::device(), one);
  s = first_only.build(a);
  CHECK(s.iterations == 1);
  CHECK(s.fallback == 4);  // one winner each in buckets 0..3, 8 - 4 left
  l = download(first_only);
  REQUIRE(check_lists(l, a, 4) == "");
  for (uint32_t b = 0; b < 4; ++b) {
    std::vector<uint32_t> list = walk(l, b, 8);
    std::vector<uint32_t> rest(list.begin(), list.end() - 1);
    CHECK(std::is_sorted(rest.begin(), rest.end()));  // the fallback's part, in front
  }

  BucketOptions det = options(4, 8);
  det.deterministic = true;
  BucketLists exact(test::device(), det);
  exact.build(a);
  l = download(exact);
  CHECK(l.head == std::vector<uint32_t>{1, 4, 0, 2});
  CHECK(l.next == std::vector<uint32_t>{3, 5, 7, 6, null, null, null, null});
}

TEST_CASE("lists are the buckets for uniform, clustered, one-bucket, empty-bucket and M=1 inputs") {
  struct Input {
    const char* name;
    uint32_t m;
    std::vector<uint32_t> ids;
  };
  const size_t n = 50000;
  std::vector<uint32_t> even = uniform_bucket_ids(n, 5000, 3);
  for (auto& id : even) id = (id / 2) * 2 * 2 + 1;  // odd buckets only, M = 20000: most buckets empty
  const std::vector<Input> inputs = {
      {"uniform", 12500, uniform_bucket_ids(n, 12500, 1)},
      {"clustered", 4096, clustered_bucket_ids(n, 4096, 2)},
      {"one bucket", 777, std::vector<uint32_t>(n, 500)},
      {"empty buckets", 20000, even},
      {"M=1", 1, std::vector<uint32_t>(n, 0)},
      {"tiny n", 3, {2}},
  };
  // parts: 1 = Listing 1 as printed, 0 = the library's choice (partial update on lavapipe when
  // buckets average 2 or more elements), 4 = partial update.
  for (auto [mode, parts] : {std::pair{BucketMode::scatter, 1u}, {BucketMode::scatter, 0u}, {BucketMode::scatter, 4u},
                             {BucketMode::sort, 0u}}) {
    for (const Input& in : inputs) {
      const std::string label = std::string(in.name) + (mode == BucketMode::sort ? " (sort)" : " (scatter)") +
                                " parts = " + std::to_string(parts);
      INFO(label);
      BucketOptions o = options(in.m, uint32_t(in.ids.size()), mode);
      o.parts = parts;
      BucketLists lists(test::device(), o);
      BucketStats s = lists.build(in.ids);
      Lists l = download(lists);
      CHECK(check_lists(l, in.ids, in.m) == "");
      const uint32_t most = largest_bucket(in.ids, in.m);
      if (mode == BucketMode::sort) {
        CHECK(ascending_lists(l, in.ids.size()));
        CHECK(s.iterations == 0);
      } else if (parts == 1) {
        const Run r = expected_run(in.ids, in.m, 32);
        CHECK(s.iterations == r.iterations);
        CHECK(s.fallback == r.fallback);
        if (most <= 8) CHECK(s.iterations == most);  // light buckets: Listing 1 to the end
      } else {
        CHECK(s.iterations <= 32);
        CHECK((s.fallback == 0 || s.fallback < in.ids.size()));
      }
    }
  }
}

TEST_CASE("all elements in one bucket: 2^16 elements finish in a bounded number of iterations") {
  const uint32_t n = 1 << 16;
  for (uint32_t m : {1u, 40000u, 1u << 16}) {
    for (uint32_t parts : {1u, 0u}) {
      INFO("M = " << m << ", parts = " << parts);
      std::vector<uint32_t> ids(n, m / 2 + (m > 1 ? 123 : 0));
      BucketOptions o = options(m, n);
      o.parts = parts;
      BucketLists lists(test::device(), o);
      BucketStats s = lists.build(ids);
      // Not 2^16 iterations: the first one shows that 31 more cannot place the rest, the fallback
      // links it (with no radix pass: the buckets agree in every bit).
      CHECK(s.iterations <= 32);
      CHECK(s.fallback == n - s.iterations);
      if (parts == 1) CHECK(s.iterations == 1);
      CHECK(check_lists(download(lists), ids, m) == "");
    }
  }
  // Heavy buckets among light ones: the light ones finish, the heavy ones' rest goes to the fallback.
  std::vector<uint32_t> ids = uniform_bucket_ids(20000, 10000, 7);
  for (uint32_t i = 0; i < 20000; i += 50) ids[i] = 4321;
  for (uint32_t i = 1; i < 20000; i += 70) ids[i] = 9876;
  for (uint32_t K : {8u, 32u}) {
    BucketOptions o = options(10000, 20000);
    o.max_iterations = K;
    o.parts = 1;
    BucketLists lists(test::device(), o);
    BucketStats s = lists.build(ids);
    const Run r = expected_run(ids, 10000, K);
    CHECK(s.iterations == r.iterations);
    CHECK(s.fallback == r.fallback);
    CHECK(s.fallback > 0);
    CHECK(check_lists(download(lists), ids, 10000) == "");
  }
}

TEST_CASE("the iterations stop exactly when the remaining ones cannot place what is left") {
  // K = 4. Bucket 0 holds a elements, bucket 1 one. Iteration 0 places 2 and leaves a - 1 in at most
  // 2 buckets for the 3 iterations after it: a = 7 goes on (6 <= 2 * 3), a = 8 stops (7 > 6).
  for (uint32_t a : {7u, 8u}) {
    std::vector<uint32_t> ids(a, 0);
    ids.push_back(1);
    BucketOptions o = options(2, a + 1);
    o.max_iterations = 4;
    o.parts = 1;
    BucketLists lists(test::device(), o);
    BucketStats s = lists.build(ids);
    CHECK(s.iterations == (a == 7 ? 2u : 1u));  // a = 7: iteration 1 leaves 5 > 1 * 2 and stops
    CHECK(s.fallback == (a == 7 ? 5u : 7u));
    CHECK(check_lists(download(lists), ids, 2) == "");
  }
}

TEST_CASE("partial update (section 2.1) gives the same lists") {
  for (uint32_t parts : {2u, 5u, 16u}) {
    INFO("parts = " << parts);
    const std::vector<uint32_t> ids = uniform_bucket_ids(30011, 2000, parts);
    BucketOptions o = options(2000, 30011);
    o.parts = parts;
    o.max_iterations = 64;
    BucketLists lists(test::device(), o);
    lists.build(ids);
    CHECK(check_lists(download(lists), ids, 2000) == "");
    // Too few iterations to admit every part the normal way: the last ones admit the rest.
    o.max_iterations = 4;
    BucketLists short_run(test::device(), o);
    short_run.build(ids);
    CHECK(check_lists(download(short_run), ids, 2000) == "");
  }
}

TEST_CASE("resort (section 2.2) equals a fresh build as sets, moving 0%, 2%, 50% and 100%") {
  const uint32_t n = 40000, m = 10000;
  const std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 11);
  // rebuild_above = 1: every resort inserts (the kernels under test); the default builds above 35%.
  for (double rebuild_above : {1.0, BucketOptions{}.rebuild_above}) {
    for (BucketMode mode : {BucketMode::scatter, BucketMode::sort}) {
      BucketOptions o = options(m, n, mode);
      o.rebuild_above = rebuild_above;
      BucketLists lists(test::device(), o);
      lists.build(ids);
      std::vector<uint32_t> current = ids;
      uint32_t seed = 20;
      for (double fraction : {0.0, 0.02, 0.5, 1.0, 0.3}) {
        INFO("moving " << fraction * 100 << "%" << (mode == BucketMode::sort ? " (sort)" : "") << ", rebuild above "
                       << rebuild_above);
        size_t moved = 0;
        current = move_some(current, m, fraction, seed++, &moved);  // chained: resort of a resort
        BucketStats s = lists.resort(current);
        CHECK(s.moved == moved);
        CHECK(s.rebuilt == (fraction > rebuild_above));
        CHECK(check_lists(download(lists), current, m) == "");
        if (fraction == 0.0) CHECK(s.iterations == 0);
      }
    }
  }
}

TEST_CASE("resort: nothing moved leaves every buffer as it was") {
  const uint32_t n = 5000, m = 700;
  const std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 12);
  for (double rebuild_above : {1.0, 0.4}) {
    BucketOptions o = options(m, n);
    o.rebuild_above = rebuild_above;
    BucketLists lists(test::device(), o);
    lists.build(ids);
    const Lists before = download(lists);
    BucketStats s = lists.resort(ids);
    CHECK(s.moved == 0);
    CHECK(s.iterations == 0);
    const Lists after = download(lists);
    CHECK(after.head == before.head);
    CHECK(after.next == before.next);
    // The next resort still finds what it needs (the prev pointers) though this one stopped early.
    size_t moved = 0;
    const std::vector<uint32_t> next_ids = move_some(ids, m, 0.05, 15, &moved);
    s = lists.resort(next_ids);
    CHECK(s.moved == moved);
    CHECK(check_lists(download(lists), next_ids, m) == "");
  }
}

TEST_CASE("resort: one element moved, from the front, the middle or the end of its list") {
  const uint32_t n = 3000, m = 300;  // 10 per bucket
  const std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 13);
  BucketLists lists(test::device(), options(m, n));
  lists.build(ids);
  const Lists l = download(lists);
  const std::vector<uint32_t> list = walk(l, ids[0], n);
  REQUIRE(list.size() >= 3);
  for (size_t at : {size_t(0), list.size() / 2, list.size() - 1}) {
    INFO("position " << at << " of " << list.size());
    lists.build(ids);
    std::vector<uint32_t> moved_ids = ids;
    moved_ids[list[at]] = (ids[list[at]] + 1) % m;
    BucketStats s = lists.resort(moved_ids);
    CHECK(s.moved == 1);
    CHECK(check_lists(download(lists), moved_ids, m) == "");
  }
}

TEST_CASE("resort: buckets emptied and filled, runs of moved neighbours, out of and into a heavy bucket") {
  const uint32_t n = 20000, m = 2000;
  const std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 14);
  BucketOptions o = options(m, n);
  o.rebuild_above = 1.0;  // the moved shares here are large: insert them all the same
  BucketLists lists(test::device(), o);

  // Built with buckets 1000..1099 and 1999 empty; then every element of buckets 0..99 moves to an empty
  // bucket (1000 + b for even b, 1999 for odd b): whole lists become empty, empty buckets get lists,
  // every node of lists 0..99 is in one moved run.
  std::vector<uint32_t> target(ids);
  for (uint32_t& id : target)
    if ((id >= 1000 && id < 1100) || id == 1999) id = 1100;
  lists.build(target);
  std::vector<uint32_t> emptied(target);
  size_t changed = 0;
  for (uint32_t& id : emptied) {
    if (id >= 100) continue;
    id = id % 2 ? 1999u : 1000u + id;
    ++changed;
  }
  BucketStats s = lists.resort(emptied);
  CHECK(s.moved == changed);
  Lists l = download(lists);
  CHECK(check_lists(l, emptied, m) == "");
  for (uint32_t b = 0; b < 100; ++b) CHECK(l.head[b] == null);

  // All into one bucket (the insertion goes to the fallback), then 1% out of it (long runs of
  // staying elements between the moved ones), then every other element of that list out.
  std::vector<uint32_t> one(n, 17);
  s = lists.resort(one);
  CHECK(s.fallback > 0);
  CHECK(check_lists(download(lists), one, m) == "");
  std::vector<uint32_t> out = one;
  for (uint32_t i = 0; i < n; i += 100) out[i] = 5;
  s = lists.resort(out);
  CHECK(s.moved == n / 100);
  CHECK(check_lists(download(lists), out, m) == "");
  const std::vector<uint32_t> heavy = walk(download(lists), 17, n);
  std::vector<uint32_t> alternate = out;
  for (size_t k = 0; k < heavy.size(); k += 2) alternate[heavy[k]] = uint32_t(k % m);
  s = lists.resort(alternate);
  CHECK(check_lists(download(lists), alternate, m) == "");
  // And back to uniform ids: every element of the heavy list in one of many runs.
  s = lists.resort(ids);
  CHECK(check_lists(download(lists), ids, m) == "");
}

TEST_CASE("deterministic mode: ascending indices per bucket, identical buffers on every run") {
  const uint32_t n = 30000, m = 3000;
  const std::vector<uint32_t> ids = clustered_bucket_ids(n, m, 5);
  BucketOptions o = options(m, n);
  o.deterministic = true;
  BucketLists a(test::device(), o), b(test::device(), o);
  a.build(ids);
  b.build(ids);
  Lists la = download(a), lb = download(b);
  CHECK(check_lists(la, ids, m) == "");
  CHECK(ascending_lists(la, n));
  CHECK(la.head == lb.head);
  CHECK(la.next == lb.next);
  size_t moved = 0;
  const std::vector<uint32_t> moved_ids = move_some(ids, m, 0.1, 9, &moved);
  a.resort(moved_ids);
  b.resort(moved_ids);
  la = download(a), lb = download(b);
  CHECK(check_lists(la, moved_ids, m) == "");
  CHECK(ascending_lists(la, n));
  CHECK(la.next == lb.next);
  CHECK(la.head == lb.head);
}

TEST_CASE("bucket ids out of range: a clear error, the other elements listed correctly") {
  const uint32_t n = 10000, m = 1000;
  std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 4);
  ids[1234] = m;
  ids[77] = 0xFFFFFFFFu;
  ids[78] = 1024 + 5;  // its low 10 bits are a valid id: a sort over bit_width(m - 1) bits would misplace it
  for (auto [deterministic, rebuild_above] : {std::pair{false, 1.0}, {false, 0.0}, {true, 1.0}}) {
    INFO("deterministic = " << deterministic << ", rebuild above " << rebuild_above);
    BucketOptions o = options(m, n);
    o.deterministic = deterministic;
    o.rebuild_above = rebuild_above;  // 0: every resort that moves anything rebuilds
    BucketLists lists(test::device(), o);
    CHECK_THROWS_WITH_AS(lists.build(ids), doctest::Contains("is out of range: there are 1000 buckets"), Error);
    try {
      lists.build(ids);
    } catch (const Error& e) {
      const std::string msg = e.what();
      // Which bad element is named is unspecified (BucketReport): any of the three (the H100 named 78).
      const bool named = msg.find("bucket id 1000 of element 1234") != std::string::npos ||
                         msg.find("bucket id 4294967295 of element 77") != std::string::npos ||
                         msg.find("bucket id 1029 of element 78") != std::string::npos;
      CHECK_MESSAGE(named, msg);
    }
    CHECK(check_lists(download(lists), ids, m) == "");
    // Resort into and out of range.
    std::vector<uint32_t> fixed = ids;
    fixed[1234] = 5, fixed[77] = 6, fixed[78] = 7, fixed[500] = m + 3;
    CHECK_THROWS_WITH_AS(lists.resort(fixed), doctest::Contains("bucket id 1003 of element 500"), Error);
    CHECK(check_lists(download(lists), fixed, m) == "");
    fixed[500] = 9;
    CHECK_NOTHROW(lists.resort(fixed));
    CHECK(check_lists(download(lists), fixed, m) == "");
  }
}

// Every path is held to the contract of bucket_lists.hpp: an out-of-range id is reported (build()
// throws) and leaves its element out, while every valid element is listed. The partial update once
// handed parts not admitted yet straight to the fallback, bad ids and all; there a bad id broke a run
// of its neighbours' bucket, and one of the two halves was lost (issue 15: ids[i] = i % M with
// ids[n/2] = M dropped 499 of 999 elements at M = 1).
TEST_CASE("property: out-of-range ids on every path (parts, modes, deterministic, fallback, resort)") {
  struct Shape {
    uint32_t m, n;
  };
  // M = 1 and powers of two (the fallback's sort then needs a bit beyond bit_width(M - 1) to put bad
  // ids last), an M that is not, few and many elements per bucket (fallback or none).
  const Shape shapes[] = {{1, 1000}, {4, 1000}, {64, 10000}, {1000, 3000}, {3, 257}};
  struct Path {
    BucketMode mode;
    bool deterministic;
    uint32_t parts, max_iterations;
  };
  const Path paths[] = {{BucketMode::scatter, false, 1, 32}, {BucketMode::scatter, false, 0, 32},
                        {BucketMode::scatter, false, 2, 32}, {BucketMode::scatter, false, 8, 32},
                        {BucketMode::scatter, false, 8, 4},  {BucketMode::sort, false, 0, 32},
                        {BucketMode::scatter, true, 0, 32}};
  std::mt19937 rng(15);
  for (const Shape& sh : shapes) {
    // The input, then bad ids at random places (including both ends) with random values.
    std::vector<std::vector<uint32_t>> inputs;
    std::vector<uint32_t> ids(sh.n);
    for (uint32_t i = 0; i < sh.n; ++i) ids[i] = i % sh.m;
    ids[sh.n / 2] = sh.m;
    inputs.push_back(ids);
    for (uint32_t i = 0; i < sh.n; ++i) ids[i] = i % sh.m;
    const uint32_t bad_values[] = {sh.m, sh.m + 1, 2 * sh.m, 0x7FFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (uint32_t k = 0; k < 5; ++k) ids[rng() % sh.n] = bad_values[rng() % std::size(bad_values)];
    ids.front() = sh.m;
    ids.back() = 0xFFFFFFFFu;
    inputs.push_back(ids);
    for (const Path& path : paths) {
      for (size_t in = 0; in < inputs.size(); ++in) {
        INFO("M = " << sh.m << ", n = " << sh.n << ", input " << in << ", mode " << int(path.mode) << ", deterministic "
                    << path.deterministic << ", parts " << path.parts << ", K " << path.max_iterations);
        BucketOptions o = options(sh.m, sh.n, path.mode);
        o.deterministic = path.deterministic;
        o.parts = path.parts;
        o.max_iterations = path.max_iterations;
        o.rebuild_above = 1.0;  // resorts insert (the kernels under test)
        BucketLists lists(test::device(), o);
        CHECK_THROWS_WITH_AS(lists.build(inputs[in]), doctest::Contains("is out of range"), Error);
        CHECK(check_lists(download(lists), inputs[in], sh.m) == "");
        // A resort that moves elements out of range and back into it.
        std::vector<uint32_t> moved = inputs[in];
        for (uint32_t i = 0; i < sh.n; i += 7) moved[i] = moved[i] < sh.m ? sh.m + i : i % sh.m;
        CHECK_THROWS_WITH_AS(lists.resort(moved), doctest::Contains("is out of range"), Error);
        CHECK(check_lists(download(lists), moved, sh.m) == "");
      }
    }
  }
}

TEST_CASE("bad arguments are a Status on the recording path and an Error on the convenience path") {
  BucketLists lists(test::device(), options(100, 1000));
  Buffer ids(test::device(), 4000, "ids");
  CHECK_FALSE(lists.record_build(VK_NULL_HANDLE, ids.ref(), 1000).ok());
  auto fake = reinterpret_cast<VkCommandBuffer>(1);
  CHECK(lists.record_build(fake, ids.ref(), 1001).message.find("capacity of 1000") != std::string::npos);
  CHECK(lists.record_build(fake, {ids.vk_buffer(), 0, 40}, 1000).message.find("ids range holds 40 bytes") != std::string::npos);
  CHECK(lists.record_build(fake, {ids.vk_buffer(), 4, 400}, 10).message.find("multiple of 8") != std::string::npos);
  CHECK(lists.record_resort(fake, ids.ref(), 1000).message.find("no lists were built") != std::string::npos);
  CHECK_THROWS_WITH_AS(BucketLists(test::device(), options(0, 10)), doctest::Contains("buckets must be"), Error);
  CHECK_THROWS_WITH_AS(BucketLists(test::device(), options(10, 0)), doctest::Contains("capacity must be"), Error);
  std::vector<uint32_t> small(10, 1);
  lists.build(small);
  CHECK_THROWS_WITH_AS(lists.resort(std::vector<uint32_t>(11, 1)), doctest::Contains("the lists hold 10"), Error);
}

TEST_CASE("record_build / record_resort into the application's command buffer, report read by the caller") {
  Device& gpu = test::device();
  gpu::Context& ctx = detail::context_of(gpu);
  const uint32_t n = 20000, m = 4000;
  std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 8);
  size_t moved = 0;
  std::vector<uint32_t> new_ids = move_some(ids, m, 0.05, 3, &moved);
  new_ids[42] = m + 1;  // reported through the report words, not an exception
  Buffer ids_a(gpu, n * 4, "ids"), ids_b(gpu, n * 4, "new ids");
  ids_a.upload(std::as_bytes(std::span(ids)));
  ids_b.upload(std::as_bytes(std::span(new_ids)));
  BucketOptions o = options(m, n);
  o.parts = 1;  // so that iterations = the largest bucket
  BucketLists lists(gpu, o);
  Buffer report_copy(gpu, BucketLists::report_bytes * 2, "report copies");

  test::AppCommands app(gpu);
  VkCommandBuffer cmd = app.cmd();
  auto copy_report = [&](VkDeviceSize to) {
    // The contract: head/next/report are shader writes; a copy needs COMPUTE -> TRANSFER.
    app.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferCopy region{0, to, BucketLists::report_bytes};
    ctx.vk.vkCmdCopyBuffer(cmd, lists.report().buffer, report_copy.vk_buffer(), 1, &region);
  };
  Status built = lists.record_build(cmd, ids_a.ref(), n);
  CHECK_MESSAGE(built.ok(), built.message);
  copy_report(0);
  // The resort's first writes (control words, by a transfer) must wait for the copy's read.
  app.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0);
  Status resorted = lists.record_resort(cmd, ids_b.ref(), n);
  CHECK_MESSAGE(resorted.ok(), resorted.message);
  copy_report(BucketLists::report_bytes);
  app.submit_and_wait();

  std::vector<uint32_t> words(2 * BucketLists::report_bytes / 4);
  report_copy.download(std::as_writable_bytes(std::span(words)));
  BucketReport first = BucketLists::decode_report(std::span(words).first(words.size() / 2));
  BucketReport second = BucketLists::decode_report(std::span(words).last(words.size() / 2));
  CHECK(first.status(m).ok());
  CHECK(first.iterations == expected_run(ids, m, 32).iterations);
  CHECK(first.fallback == expected_run(ids, m, 32).fallback);
  CHECK_FALSE(second.status(m).ok());
  CHECK(second.status(m).message == "bucket id 4001 of element 42 is out of range: there are 4000 buckets (such elements were left out of every list)");
  size_t changed = 0;
  for (uint32_t i = 0; i < n; ++i) changed += ids[i] != new_ids[i];
  CHECK(second.moved == changed);  // the element sent out of range moved too
  CHECK(check_lists(download(lists), new_ids, m) == "");
  // A copy one word short is no report (it decoded as all ids in range).
  BucketReport cut = BucketLists::decode_report(std::span(words).last(words.size() / 2 - 1));
  CHECK(cut.missing_words == 1);
  CHECK(cut.status(m).code == Status::Code::invalid_argument);
  CHECK(cut.status(m).message.find("1 words fewer than the report's 40") != std::string::npos);
  CHECK_FALSE(BucketLists::decode_report({}).status(m).ok());
}

TEST_CASE("small tiles and a pretend-small device: multi-tile scans and 3-D indirect grids") {
  DeviceOptions small = test::options_like_device();
  small.pretend = {.max_shared_memory = 4096, .max_workgroup_invocations = 32, .max_workgroup_count = 7};
  Device gpu(small);
  const uint32_t n = 2000, m = 300;  // 2000 / (8 * 2) = 125 tiles > 7 * 7: three-dimensional grids
  std::vector<uint32_t> ids = clustered_bucket_ids(n, m, 6);
  for (BucketMode mode : {BucketMode::scatter, BucketMode::sort}) {
    BucketOptions o = options(m, n, mode);
    o.tuning = {.workgroup_size = 8, .items_per_thread = 2};
    o.max_iterations = 6;  // clustered: heavy buckets go to the fallback
    o.parts = mode == BucketMode::scatter ? 3 : 1;
    BucketLists lists(gpu, o);
    lists.build(ids);
    Lists l{lists.download_head(), lists.download_next()};
    CHECK(check_lists(l, ids, m) == "");
    size_t moved = 0;
    std::vector<uint32_t> next_ids = move_some(ids, m, 0.3, 1, &moved);
    lists.resort(next_ids);
    CHECK(check_lists({lists.download_head(), lists.download_next()}, next_ids, m) == "");
  }
}

TEST_CASE("2^22 elements in 2^20 buckets") {
  const uint32_t n = 1u << 22, m = 1u << 20;
  const std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 99);
  BucketLists lists(test::device(), options(m, n));
  BucketStats s = lists.build(ids);
  CHECK(s.iterations <= 32);
  CHECK((s.fallback > 0 || s.iterations >= largest_bucket(ids, m)));  // one placed per bucket and iteration
  CHECK(check_lists(download(lists), ids, m) == "");
}

TEST_CASE("sizes around the tile, shared-memory and subgroup prefix sums, every mode") {
  uint32_t seed = 300;
  for (bool subgroups : {false, true}) {
    for (uint32_t items : {1u, 2u, 8u}) {
      const uint32_t wg = 8, tile = wg * items;
      const std::vector<uint32_t> sizes = {1, 2, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 7 * tile + 3, 1000};
      for (auto [mode, deterministic] : {std::pair{BucketMode::scatter, false}, {BucketMode::sort, false},
                                         {BucketMode::scatter, true}}) {
        for (uint32_t m : {1u, 5u, 37u, 600u}) {
          BucketOptions o = options(m, 1000, mode);
          o.deterministic = deterministic;
          o.subgroups = subgroups;
          o.tuning = {.workgroup_size = wg, .items_per_thread = items};
          o.max_iterations = 5;
          o.parts = 3;  // used where there are 2 or more elements per part
          BucketLists lists(test::device(), o);
          for (uint32_t n : sizes) {
            if (n == 0) continue;
            INFO("n = " << n << ", m = " << m << ", items = " << items << ", subgroups = " << subgroups
                        << ", mode = " << int(mode) << ", deterministic = " << deterministic);
            std::vector<uint32_t> ids = uniform_bucket_ids(n, m, seed++);
            lists.build(ids);
            Lists l = download(lists);
            REQUIRE(check_lists(l, ids, m) == "");
            if (deterministic || mode == BucketMode::sort) CHECK(ascending_lists(l, n));
            size_t moved = 0;
            std::vector<uint32_t> next_ids = move_some(ids, m, 0.25, seed++, &moved);
            BucketStats s = lists.resort(next_ids);
            if (!deterministic) CHECK(s.moved == moved);
            REQUIRE(check_lists(download(lists), next_ids, m) == "");
          }
        }
      }
    }
  }
}

// No elements (a simulation's empty frame): every path records nothing to place and leaves every head
// null, also after lists of other elements, whose heads must not survive.
TEST_CASE("zero elements on every path: all heads null, also after a non-empty build") {
  const uint32_t m = 7;
  const std::vector<uint32_t> none, five = {1, 2, 3, 1, 6};
  const std::vector<uint32_t> all_null(m, null);
  for (auto [mode, deterministic] : {std::pair{BucketMode::scatter, false}, {BucketMode::sort, false},
                                     {BucketMode::scatter, true}}) {
    INFO("mode " << int(mode) << ", deterministic " << deterministic);
    BucketOptions o = options(m, 100, mode);
    o.deterministic = deterministic;
    BucketLists lists(test::device(), o);
    const BucketStats first = lists.build(none);
    CHECK(first.iterations == 0);
    CHECK(first.fallback == 0);
    CHECK(lists.download_head() == all_null);
    lists.build(five);
    REQUIRE(check_lists(download(lists), five, m) == "");
    lists.build(none);
    CHECK(lists.size() == 0);
    CHECK(lists.download_head() == all_null);
    CHECK(lists.download_next().empty());
    CHECK_NOTHROW(lists.resort(none));
    CHECK(lists.download_head() == all_null);
    // The recording path, after a non-empty build again.
    lists.build(five);
    Buffer ids(test::device(), 16, "ids");
    test::AppCommands app(test::device());
    Status built = lists.record_build(app.cmd(), ids.ref(), 0);
    CHECK_MESSAGE(built.ok(), built.message);
    Status resorted = lists.record_resort(app.cmd(), ids.ref(), 0);
    CHECK_MESSAGE(resorted.ok(), resorted.message);
    app.submit_and_wait();
    CHECK(lists.download_head() == all_null);
  }
}

// The object tracks whether its prev pointers describe the lists (resorts keep them, builds do not);
// the recording and convenience paths share that state, so every order of the two must give the lists
// of the last ids, including two recordings of one object in one command buffer and a convenience
// resort that built instead (rebuild_above 0).
TEST_CASE("recording and convenience paths in any order, twice in one command buffer") {
  const uint32_t n = 3000, m = 500;
  const std::vector<uint32_t> ids = uniform_bucket_ids(n, m, 8);
  size_t moved = 0;
  const std::vector<uint32_t> new_ids = move_some(ids, m, 0.1, 3, &moved);
  Buffer a(test::device(), n * 4, "ids"), b(test::device(), n * 4, "new ids");
  a.upload(std::as_bytes(std::span(ids)));
  b.upload(std::as_bytes(std::span(new_ids)));
  auto recorded = [&](BucketLists& lists, std::initializer_list<std::pair<bool, const Buffer*>> steps) {
    test::AppCommands app(test::device());
    for (auto [resort, from] : steps) {
      Status s = resort ? lists.record_resort(app.cmd(), from->ref(), n) : lists.record_build(app.cmd(), from->ref(), n);
      CHECK_MESSAGE(s.ok(), s.message);
    }
    app.submit_and_wait();
  };
  for (bool deterministic : {false, true}) {
    INFO("deterministic " << deterministic);
    BucketOptions o = options(m, n);
    o.deterministic = deterministic;
    BucketLists lists(test::device(), o);
    recorded(lists, {{false, &a}, {false, &a}, {true, &b}, {true, &a}, {true, &b}});
    CHECK(check_lists(download(lists), new_ids, m) == "");
    lists.resort(a, n);  // convenience after recorded resorts
    CHECK(check_lists(download(lists), ids, m) == "");
    recorded(lists, {{true, &b}});  // recorded after a convenience resort
    CHECK(check_lists(download(lists), new_ids, m) == "");
    lists.build(a, n);
    recorded(lists, {{true, &b}});  // recorded after a convenience build
    CHECK(check_lists(download(lists), new_ids, m) == "");

    o.rebuild_above = 0.0;  // every convenience resort that moves anything builds
    BucketLists rebuilding(test::device(), o);
    rebuilding.build(a, n);
    const BucketStats rebuilt = rebuilding.resort(b, n);
    CHECK((deterministic || rebuilt.rebuilt));
    recorded(rebuilding, {{true, &a}});  // recorded after a resort that built
    CHECK(check_lists(download(rebuilding), ids, m) == "");
    rebuilding.resort(b, n);
    CHECK(check_lists(download(rebuilding), new_ids, m) == "");
  }
}
