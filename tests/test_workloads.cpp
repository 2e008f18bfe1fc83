// SPDX-License-Identifier: MIT
// test_workloads.cpp — the host-side ground truth: key encoding, the reference sort, the input
// generators' promises and the CPU baselines. Every GPU test leans on these, so they are checked
// against properties computed independently here (numeric comparisons, counts, entropy), not against
// themselves.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu_baselines.hpp"
#include "crossovers.hpp"
#include "distributions.hpp"
#include "host_keys.hpp"
#include "reference_sort.hpp"

using namespace vksort;
using namespace vksort::workloads;

namespace {

constexpr Key kKeys[] = {Key::u32, Key::i32, Key::f32, Key::u64, Key::i64, Key::f64};
constexpr Order kOrders[] = {Order::ascending, Order::descending};

// Our own names: types.hpp's to_string lives in a library these tests do not link.
// string_view, not const char*: doctest 2.4 prints a `const char*` in INFO as a pointer.
std::string_view key_name(Key k) {
  static constexpr std::string_view names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
  return names[static_cast<int>(k)];
}
std::string_view order_name(Order o) { return o == Order::ascending ? "ascending" : "descending"; }

template <class T>
std::vector<T> typed(const std::vector<std::byte>& raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), raw.data(), raw.size());
  return v;
}

template <class T>
std::vector<std::byte> raw_of(const std::vector<T>& v) {
  std::vector<std::byte> raw(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(raw.data(), v.data(), raw.size());
  return raw;
}

size_t distinct_keys(Key k, const std::vector<std::byte>& raw) {
  std::set<uint64_t> s;
  for (size_t i = 0; i < raw.size() / key_bytes(k); ++i) s.insert(load_key_bits(k, raw.data() + i * key_bytes(k)));
  return s.size();
}

DistributionSpec spec_of(const char* text) {
  const auto s = parse_distribution(text);
  REQUIRE_MESSAGE(s.has_value(), text);
  return *s;
}

std::vector<DistributionSpec> all_default_specs() {
  std::vector<DistributionSpec> specs;
  for (std::string_view name : distribution_names()) specs.push_back(spec_of(std::string(name).c_str()));
  return specs;
}

double binary_entropy(double p) {
  if (p <= 0.0 || p >= 1.0) return 0.0;
  return -p * std::log2(p) - (1 - p) * std::log2(1 - p);
}

// Keys in strictly ascending total order, as bit patterns; checks that the encoding agrees with it
// and with the numbers' own comparison wherever that is defined.
template <class T>
void check_encoding_order(Key k, const std::vector<T>& ascending) {
  INFO(key_name(k));
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  for (size_t i = 0; i < ascending.size(); ++i) {
    const U bits = std::bit_cast<U>(ascending[i]);
    // 8-byte buffers even for 4-byte keys: GCC's -Warray-bounds cannot see that `k` rules out the
    // 8-byte branch of load_key_bits.
    std::byte raw[8] = {}, back[8] = {};
    std::memcpy(raw, &bits, sizeof(T));
    for (Order o : kOrders) {
      const uint64_t e = encode_key(k, o, raw);
      decode_key(k, o, e, back);
      CHECK(std::memcmp(raw, back, sizeof(T)) == 0);
    }
    if (i == 0) continue;
    std::byte prev[8] = {};
    const U prev_bits = std::bit_cast<U>(ascending[i - 1]);
    std::memcpy(prev, &prev_bits, sizeof(T));
    INFO("index ", i);
    CHECK(encode_key(k, Order::ascending, prev) < encode_key(k, Order::ascending, raw));
    CHECK(encode_key(k, Order::descending, prev) > encode_key(k, Order::descending, raw));
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isnan(ascending[i - 1]) && !std::isnan(ascending[i])) CHECK(ascending[i - 1] <= ascending[i]);
    } else {
      CHECK(ascending[i - 1] < ascending[i]);
    }
  }
}

template <class F, class U>
std::vector<F> float_ladder() {
  using L = std::numeric_limits<F>;
  const auto from_bits = [](U b) { return std::bit_cast<F>(b); };
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  const U inf = std::bit_cast<U>(L::infinity());
  const U quiet = std::bit_cast<U>(L::quiet_NaN());
  return {from_bits(~U(0)),          // -NaN, largest payload
          from_bits(sign | quiet),   // -qNaN
          from_bits(sign | inf | 1), // -sNaN
          -L::infinity(), -L::max(), F(-1), -L::min(), -L::denorm_min(), F(-0.0), F(0.0), L::denorm_min(),
          L::min(), F(1), L::max(), L::infinity(),
          from_bits(inf | 1),        // +sNaN
          from_bits(quiet),          // +qNaN
          from_bits(~sign)};         // +NaN, largest payload
}

template <class T>
std::vector<T> int_ladder() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_signed_v<T>)
    return {L::min(), T(L::min() + 1), T(-1000), T(-1), T(0), T(1), T(1000), T(L::max() - 1), L::max()};
  else
    return {T(0), T(1), T(L::max() / 2), T(L::max() / 2 + 1), T(L::max() - 1), L::max()};
}

}  // namespace

// ---- encoding ----------------------------------------------------------------------------------------

TEST_CASE("encoding orders hand-picked keys as the key type orders them") {
  check_encoding_order(Key::u32, int_ladder<uint32_t>());
  check_encoding_order(Key::i32, int_ladder<int32_t>());
  check_encoding_order(Key::u64, int_ladder<uint64_t>());
  check_encoding_order(Key::i64, int_ladder<int64_t>());
  check_encoding_order(Key::f32, float_ladder<float, uint32_t>());
  check_encoding_order(Key::f64, float_ladder<double, uint64_t>());
  // The GPU's rule, spelled out for one value of each kind.
  CHECK(encode_key32(Key::i32, Order::ascending, 0x80000000u) == 0u);
  CHECK(encode_key32(Key::f32, Order::ascending, 0x3F800000u) == 0xBF800000u);
  CHECK(encode_key32(Key::f32, Order::ascending, 0xBF800000u) == 0x407FFFFFu);
  CHECK(encode_key64(Key::u64, Order::descending, 5) == ~uint64_t(5));
}

TEST_CASE("encoding agrees with numeric comparison on random keys") {
  for (Key k : kKeys) {
    INFO(key_name(k));
    std::vector<std::byte> raw = generate_keys(k, spec_of("special"), 4096, 7);
    const auto more = generate_keys(k, spec_of("uniform"), 4096, 8);
    raw.insert(raw.end(), more.begin(), more.end());
    with_key_type(k, [&](auto tag) {
      using T = decltype(tag);
      const auto v = typed<T>(raw);
      size_t checked = 0;
      for (size_t i = 0; i + 1 < v.size(); ++i) {
        const T a = v[i], b = v[i + 1];
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(a) || std::isnan(b) || a == b) continue;  // NaN unordered; +-0 equal but encoded apart
        const uint64_t ea = encode_key(k, Order::ascending, raw.data() + i * sizeof(T));
        const uint64_t eb = encode_key(k, Order::ascending, raw.data() + (i + 1) * sizeof(T));
        CHECK((a < b) == (ea < eb));
        ++checked;
      }
      CHECK(checked > v.size() / 2);
    });
  }
}

// ---- generators ------------------------------------------------------------------------------------

TEST_CASE("sorted, reverse and organ_pipe have their shape in numeric order") {
  // 600001 keys: several chunks, filled on several threads where the machine has them.
  for (size_t n : {size_t(1), size_t(2), size_t(1001), size_t(600001)}) {
    for (Key k : kKeys) {
      INFO(key_name(k), " n=", n);
      const auto sorted = generate_keys(k, spec_of("sorted"), n, 11);
      const auto reverse = generate_keys(k, spec_of("reverse"), n, 11);
      const auto pipe = generate_keys(k, spec_of("organ_pipe"), n, 11);
      CHECK(is_sorted_encoded(k, Order::ascending, sorted));
      CHECK(is_sorted_encoded(k, Order::descending, reverse));
      with_key_type(k, [&](auto tag) {
        using T = decltype(tag);
        const auto s = typed<T>(sorted), r = typed<T>(reverse), p = typed<T>(pipe);
        bool ascending = true, finite = true, pipe_shape = true;
        for (size_t i = 0; i < n; ++i) {
          if constexpr (std::is_floating_point_v<T>) finite = finite && std::isfinite(s[i]) && std::isfinite(p[i]);
          // Floats may tie only as -0.0 then +0.0; integers never tie.
          if (i > 0) ascending = ascending && (std::is_floating_point_v<T> ? s[i - 1] <= s[i] : s[i - 1] < s[i]);
          pipe_shape = pipe_shape && p[i] == p[n - 1 - i];
          if (i > 0 && i <= (n - 1) / 2) pipe_shape = pipe_shape && p[i - 1] <= p[i];
        }
        CHECK(ascending);
        CHECK(finite);
        CHECK(pipe_shape);
        std::vector<T> s_reversed(s.rbegin(), s.rend());
        CHECK(std::memcmp(s_reversed.data(), r.data(), n * sizeof(T)) == 0);
      });
    }
  }
}

TEST_CASE("all_equal and few_unique have the promised number of distinct keys") {
  for (Key k : kKeys) {
    INFO(key_name(k));
    CHECK(distinct_keys(k, generate_keys(k, spec_of("all_equal"), 65536, 3)) == 1);
    CHECK(distinct_keys(k, generate_keys(k, spec_of("few_unique"), 65536, 3)) == 16);
    for (int unique : {1, 2, 16, 1000}) {
      const std::string name = "few_unique:" + std::to_string(unique);
      CHECK(distinct_keys(k, generate_keys(k, spec_of(name.c_str()), 65536, 3)) == size_t(unique));
    }
  }
}

TEST_CASE("nearly_sorted is a permutation of sorted with about the requested percentage moved") {
  const size_t n = 65536;
  for (Key k : kKeys) {
    INFO(key_name(k));
    const auto sorted = generate_keys(k, spec_of("sorted"), n, 5);
    CHECK(generate_keys(k, spec_of("nearly_sorted:0"), n, 5) == sorted);
    for (double percent : {1.0, 5.0, 20.0}) {
      INFO("percent ", percent);
      const std::string name = "nearly-sorted:" + std::to_string(int(percent));
      auto nearly = generate_keys(k, spec_of(name.c_str()), n, 5);
      const size_t kb = key_bytes(k);
      size_t moved = 0;
      for (size_t i = 0; i < n; ++i) moved += std::memcmp(&nearly[i * kb], &sorted[i * kb], kb) != 0;
      // p percent of elements take part in a swap; a few are picked twice (about 1 - e^-p of them,
      // not p), hence the 15% relative tolerance.
      const double measured = 100.0 * double(moved) / double(n);
      CHECK(measured > percent * 0.85);
      CHECK(measured < percent * 1.05);
      reference_sort(k, Order::ascending, nearly, {});
      CHECK(nearly == sorted);
    }
  }
}

TEST_CASE("entropy:k has the theoretical entropy per bit") {
  const double theory[] = {1.0, 0.811, 0.544, 0.337, 0.201};
  const size_t n = size_t(1) << 16;
  for (Key k : kKeys) {
    for (int words = 1; words <= 5; ++words) {
      INFO(key_name(k), " k=", words);
      CHECK(binary_entropy(std::ldexp(1.0, -words)) == doctest::Approx(theory[words - 1]).epsilon(0.002));
      const std::string name = "entropy:" + std::to_string(words);
      const auto raw = generate_keys(k, spec_of(name.c_str()), n, 99);
      const size_t bits = key_bytes(k) * 8;
      std::vector<size_t> ones(bits);
      for (size_t i = 0; i < n; ++i) {
        const uint64_t b = load_key_bits(k, raw.data() + i * key_bytes(k));
        for (size_t j = 0; j < bits; ++j) ones[j] += (b >> j) & 1;
      }
      double h = 0.0;
      for (size_t j = 0; j < bits; ++j) h += binary_entropy(double(ones[j]) / double(n));
      CHECK(std::abs(h / double(bits) - theory[words - 1]) < 0.02);
    }
  }
}

TEST_CASE("special contains the awkward values") {
  const size_t n = 4096;
  for (Key k : kKeys) {
    INFO(key_name(k));
    const auto raw = generate_keys(k, spec_of("special"), n, 1);
    with_key_type(k, [&](auto tag) {
      using T = decltype(tag);
      using L = std::numeric_limits<T>;
      const auto v = typed<T>(raw);
      auto has = [&](auto pred) { return std::any_of(v.begin(), v.end(), pred); };
      if constexpr (std::is_floating_point_v<T>) {
        CHECK(has([](T x) { return std::isnan(x) && !std::signbit(x); }));
        CHECK(has([](T x) { return std::isnan(x) && std::signbit(x); }));
        CHECK(has([](T x) { return x == L::infinity(); }));
        CHECK(has([](T x) { return x == -L::infinity(); }));
        CHECK(has([](T x) { return x == 0 && std::signbit(x); }));
        CHECK(has([](T x) { return x == 0 && !std::signbit(x); }));
        CHECK(has([](T x) { return std::fpclassify(x) == FP_SUBNORMAL; }));
        CHECK(has([](T x) { return x == L::max(); }));
        CHECK(has([](T x) { return x == L::min(); }));
        CHECK(has([](T x) { return std::isnormal(x) && x != T(1) && x != T(-1) && std::abs(x) != L::max() && std::abs(x) != L::min(); }));
        // Several NaN payloads, not one canonical NaN.
        std::set<uint64_t> nans;
        for (size_t i = 0; i < n; ++i)
          if (std::isnan(v[i])) nans.insert(load_key_bits(k, raw.data() + i * sizeof(T)));
        CHECK(nans.size() >= 6);
      } else {
        CHECK(has([](T x) { return x == L::min(); }));
        CHECK(has([](T x) { return x == L::max(); }));
        CHECK(has([](T x) { return x == 0; }));
        CHECK(has([](T x) { return x == 1; }));
        if constexpr (std::is_signed_v<T>) CHECK(has([](T x) { return x == -1; }));
      }
    });
  }
}

TEST_CASE("uniform covers the key type") {
  const size_t n = 65536;
  for (Key k : kKeys) {
    INFO(key_name(k));
    const auto raw = generate_keys(k, spec_of("uniform"), n, 21);
    with_key_type(k, [&](auto tag) {
      using T = decltype(tag);
      const auto v = typed<T>(raw);
      if constexpr (std::is_floating_point_v<T>) {
        size_t negative = 0;
        T smallest = std::numeric_limits<T>::max(), largest = 0;
        bool finite = true;
        for (T x : v) {
          finite = finite && std::isfinite(x);
          negative += x < 0;
          smallest = std::min(smallest, std::abs(x));
          largest = std::max(largest, std::abs(x));
        }
        CHECK(finite);
        CHECK(negative > n * 45 / 100);
        CHECK(negative < n * 55 / 100);
        CHECK(smallest < T(1e-30));
        CHECK(largest > T(1e30));
      } else {
        // Every bit a fair coin.
        for (size_t j = 0; j < sizeof(T) * 8; ++j) {
          size_t ones = 0;
          for (T x : v) ones += (static_cast<uint64_t>(x) >> j) & 1;
          CHECK(double(ones) / double(n) == doctest::Approx(0.5).epsilon(0.04));
        }
      }
    });
  }
}

TEST_CASE("gaussian has the promised centre and spread") {
  const size_t n = 65536;
  for (Key k : kKeys) {
    INFO(key_name(k));
    const auto raw = generate_keys(k, spec_of("gaussian"), n, 4);
    with_key_type(k, [&](auto tag) {
      using T = decltype(tag);
      const auto v = typed<T>(raw);
      // Integers: centred on the middle of the range, sd = range / 16.
      const double centre = std::is_floating_point_v<T> || std::is_signed_v<T> ? 0.0 : std::ldexp(1.0, sizeof(T) * 8 - 1);
      const double sd = std::is_floating_point_v<T> ? 1.0 : std::ldexp(1.0, sizeof(T) * 8 - 4);
      double sum = 0, sum2 = 0;
      for (T x : v) {
        const double z = (double(x) - centre) / sd;
        sum += z;
        sum2 += z * z;
      }
      const double mean = sum / double(n), var = sum2 / double(n) - mean * mean;
      CHECK(std::abs(mean) < 0.02);
      CHECK(std::sqrt(var) == doctest::Approx(1.0).epsilon(0.03));
    });
  }
}

TEST_CASE("zipf ranks follow the exponent and map to fixed keys") {
  const size_t n = 65536;
  double h1 = 0, h2 = 0;
  for (int r = 1; r <= 65536; ++r) {
    h1 += 1.0 / r;
    h2 += 1.0 / (double(r) * r);
  }
  for (Key k : kKeys) {
    INFO(key_name(k));
    auto most_frequent = [&](const char* name, uint64_t seed, double& share) {
      const auto raw = generate_keys(k, spec_of(name), n, seed);
      std::map<uint64_t, size_t> count;
      bool finite = true;
      for (size_t i = 0; i < n; ++i) {
        const std::byte* p = raw.data() + i * key_bytes(k);
        ++count[load_key_bits(k, p)];
        if (k == Key::f32) finite = finite && std::isfinite(load_key_as<float>(p, 0));
        if (k == Key::f64) finite = finite && std::isfinite(load_key_as<double>(p, 0));
      }
      CHECK(finite);
      CHECK(count.size() <= 65536);
      const auto top = std::max_element(count.begin(), count.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
      share = double(top->second) / double(n);
      return top->first;
    };
    double s1 = 0, s1b = 0, s2 = 0;
    const uint64_t top1 = most_frequent("zipf", 1, s1);
    const uint64_t top1b = most_frequent("zipf:1", 2, s1b);
    const uint64_t top2 = most_frequent("zipf:2", 3, s2);
    CHECK(s1 == doctest::Approx(1.0 / h1).epsilon(0.1));
    CHECK(s1b == doctest::Approx(1.0 / h1).epsilon(0.1));
    CHECK(s2 == doctest::Approx(1.0 / h2).epsilon(0.05));
    CHECK(top1 == top1b);  // rank 0's key does not depend on the seed or the exponent
    CHECK(top1 == top2);
    // Exponent 0 makes ranks uniform: 2^20 draws hit all 2^16 ranks (a miss has odds ~ e^-16 per
    // rank), so 2^16 distinct keys means distinct ranks never share a key.
    CHECK(distinct_keys(k, generate_keys(k, spec_of("zipf:0"), size_t(1) << 20, 4)) == 65536);
  }
}

TEST_CASE("every distribution reproduces its seed and changes with it") {
  for (Key k : kKeys) {
    for (const DistributionSpec& spec : all_default_specs()) {
      INFO(key_name(k), " ", to_string(spec));
      const auto a = generate_keys(k, spec, 1000, 42);
      CHECK(a.size() == 1000 * key_bytes(k));
      CHECK(generate_keys(k, spec, 1000, 42) == a);
      CHECK(generate_keys(k, spec, 1000, 43) != a);
      std::vector<std::byte> into(1000 * key_bytes(k));
      generate_keys_into(k, spec, 42, into);
      CHECK(into == a);
    }
  }
}

TEST_CASE("distribution names parse and print") {
  const auto names = distribution_names();
  CHECK(names.size() == 11);
  for (std::string_view name : names) {
    const auto spec = parse_distribution(name);
    REQUIRE(spec.has_value());
    CHECK(to_string(spec->kind) == name);
    CHECK(spec->param == default_param(spec->kind));
    const auto again = parse_distribution(to_string(*spec));
    REQUIRE(again.has_value());
    CHECK(again->kind == spec->kind);
    CHECK(again->param == spec->param);
  }
  const auto nearly = parse_distribution("nearly-sorted:5");
  REQUIRE(nearly.has_value());
  CHECK(nearly->kind == Distribution::nearly_sorted);
  CHECK(nearly->param == 5.0);
  CHECK(to_string(*nearly) == "nearly_sorted:5");
  CHECK(to_string(*parse_distribution("zipf:1.5")) == "zipf:1.5");
  CHECK(to_string(*parse_distribution("uniform")) == "uniform");
  CHECK(parse_distribution("few_unique")->param == 16.0);
  CHECK(parse_distribution("entropy")->param == 3.0);
  CHECK(parse_distribution("nearly_sorted")->param == 1.0);
  CHECK(parse_distribution("zipf")->param == 1.0);
  for (const char* bad : {"", "bogus", "uniform:1", "sorted:", "nearly_sorted:", "nearly_sorted:x", "nearly_sorted:5x",
                          "nearly_sorted:101", "nearly_sorted:-1", "few_unique:0", "few_unique:2.5", "entropy:0",
                          "entropy:33", "zipf:-1", "zipf:nan", "Uniform"}) {
    INFO(bad);
    CHECK_FALSE(parse_distribution(bad).has_value());
  }
  CHECK_THROWS_AS(generate_keys(Key::u32, {Distribution::few_unique, 0.0}, 10, 1), std::invalid_argument);
  CHECK_THROWS_AS(generate_keys(Key::u32, {Distribution::entropy, 0.0}, 10, 1), std::invalid_argument);
}

TEST_CASE("generate_values numbers the keys") {
  CHECK(generate_values(0).empty());
  CHECK(generate_values(4) == std::vector<uint32_t>{0, 1, 2, 3});
}

// ---- reference sort ---------------------------------------------------------------------------------

TEST_CASE("reference_sort on hand-checked inputs") {
  auto keys = raw_of(std::vector<uint32_t>{3, 1, 2, 1});
  std::vector<uint32_t> values{0, 1, 2, 3};
  reference_sort(Key::u32, Order::ascending, keys, values);
  CHECK(typed<uint32_t>(keys) == std::vector<uint32_t>{1, 1, 2, 3});
  CHECK(values == std::vector<uint32_t>{1, 3, 2, 0});

  keys = raw_of(std::vector<uint32_t>{3, 1, 2, 1});
  values = {0, 1, 2, 3};
  reference_sort(Key::u32, Order::descending, keys, values);
  CHECK(typed<uint32_t>(keys) == std::vector<uint32_t>{3, 2, 1, 1});
  CHECK(values == std::vector<uint32_t>{0, 2, 1, 3});

  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto floats = raw_of(std::vector<float>{nan, 0.0f, -0.0f, 1.0f, -inf, -nan, -2.0f});
  reference_sort(Key::f32, Order::ascending, floats, {});
  const auto f = typed<float>(floats);
  CHECK((std::isnan(f[0]) && std::signbit(f[0])));
  CHECK(f[1] == -inf);
  CHECK(f[2] == -2.0f);
  CHECK((f[3] == 0.0f && std::signbit(f[3])));
  CHECK((f[4] == 0.0f && !std::signbit(f[4])));
  CHECK(f[5] == 1.0f);
  CHECK((std::isnan(f[6]) && !std::signbit(f[6])));

  auto ints = raw_of(std::vector<int64_t>{5, std::numeric_limits<int64_t>::min(), -1, std::numeric_limits<int64_t>::max(), 0});
  reference_sort(Key::i64, Order::descending, ints, {});
  CHECK(typed<int64_t>(ints) ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 5, 0, -1, std::numeric_limits<int64_t>::min()});
}

TEST_CASE("reference_sort is stable in both orders") {
  const size_t n = 5000;
  for (Key k : kKeys) {
    for (Order o : kOrders) {
      INFO(key_name(k), " ", order_name(o));
      const auto original = generate_keys(k, spec_of("few_unique:8"), n, 17);
      auto keys = original;
      auto values = generate_values(n);
      reference_sort(k, o, keys, values);
      CHECK(is_sorted_encoded(k, o, keys));
      CHECK_FALSE(is_sorted_encoded(k, o == Order::ascending ? Order::descending : Order::ascending, keys));
      const size_t kb = key_bytes(k);
      bool carried = true, stable = true;
      for (size_t i = 0; i < n; ++i) {
        carried = carried && std::memcmp(&original[values[i] * kb], &keys[i * kb], kb) == 0;
        if (i > 0 && std::memcmp(&keys[(i - 1) * kb], &keys[i * kb], kb) == 0) stable = stable && values[i - 1] < values[i];
      }
      CHECK(carried);
      CHECK(stable);
      std::sort(values.begin(), values.end());
      CHECK(values == generate_values(n));
    }
  }
}

TEST_CASE("reference_sort rejects sizes that do not fit") {
  std::vector<std::byte> seven(7);
  CHECK_THROWS_AS(reference_sort(Key::u32, Order::ascending, seven, {}), std::invalid_argument);
  std::vector<std::byte> two_keys(8);
  std::vector<uint32_t> three_values(3);
  CHECK_THROWS_AS(reference_sort(Key::u32, Order::ascending, two_keys, three_values), std::invalid_argument);
  CHECK_THROWS_AS(std_sort(Key::u64, Order::ascending, seven, {}), std::invalid_argument);
  CHECK_THROWS_AS(lsd_radix_sort(Key::u32, Order::ascending, two_keys, three_values), std::invalid_argument);
}

TEST_CASE("first_difference names the first mismatch") {
  const auto a = raw_of(std::vector<float>{1, 2, 3, 4, 5});
  CHECK(first_difference(Key::f32, a, a).empty());
  CHECK(first_difference(Key::f32, {}, {}).empty());
  const std::vector<uint32_t> va{0, 1, 2, 3, 4};
  CHECK(first_difference(Key::f32, a, a, va, va).empty());

  auto b = raw_of(std::vector<float>{1, 2, -0.0f, 4, 6});
  const std::string msg = first_difference(Key::f32, a, b);
  INFO(msg);
  CHECK(msg.find("index 2") != std::string::npos);
  CHECK(msg.find("2 of 5") != std::string::npos);
  CHECK(msg.find("0x40400000") != std::string::npos);  // 3.0f
  CHECK(msg.find("0x80000000") != std::string::npos);  // -0.0f, which prints like 0.0f
  CHECK(msg.find('\n') == std::string::npos);

  auto vb = va;
  vb[3] = 9;
  const std::string values_msg = first_difference(Key::f32, a, a, va, vb);
  INFO(values_msg);
  CHECK(values_msg.find("index 3") != std::string::npos);
  CHECK(values_msg.find("value 9") != std::string::npos);

  const auto shorter = raw_of(std::vector<float>{1, 2, 3, 4});
  CHECK(first_difference(Key::f32, a, shorter).find("sizes differ") != std::string::npos);
  CHECK_FALSE(first_difference(Key::f32, a, a, va, {}).empty());

  const auto i = raw_of(std::vector<int64_t>{-7});
  const auto j = raw_of(std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
  const std::string int_msg = first_difference(Key::i64, i, j);
  CHECK(int_msg.find("-7") != std::string::npos);
  CHECK(int_msg.find("-9223372036854775808") != std::string::npos);
}

// ---- CPU baselines ----------------------------------------------------------------------------------

namespace {

// Runs every baseline (and the radix sort forced onto several threads) on a copy of `original` and
// compares it with the reference. std::sort need not keep equal keys' values in order, so there only
// the keys must match and each value must still sit with its own key.
void check_baselines(Key k, Order o, const std::vector<std::byte>& original, bool with_values) {
  const size_t kb = key_bytes(k), n = original.size() / kb;
  auto expected = original;
  std::vector<uint32_t> expected_values = with_values ? generate_values(n) : std::vector<uint32_t>{};
  reference_sort(k, o, expected, expected_values);

  struct Run {
    std::string name;
    bool stable;
    void (*sort)(Key, Order, std::span<std::byte>, std::span<uint32_t>, size_t);
    size_t threads;
  };
  std::vector<Run> runs;
  for (const CpuBaseline& b : cpu_baselines())
    runs.push_back({std::string(b.name), b.stable, nullptr, 0});
  runs.push_back({"lsd_radix threads=3", true, &lsd_radix_sort, 3});
  runs.push_back({"lsd_radix threads=8", true, &lsd_radix_sort, 8});

  for (const Run& run : runs) {
    INFO(run.name);
    auto keys = original;
    std::vector<uint32_t> values = with_values ? generate_values(n) : std::vector<uint32_t>{};
    if (run.sort) {
      run.sort(k, o, keys, values, run.threads);
    } else {
      for (const CpuBaseline& b : cpu_baselines())
        if (b.name == run.name) b.sort(k, o, keys, values);
    }
    if (run.stable) {
      const std::string diff = first_difference(k, expected, keys, expected_values, values);
      CHECK_MESSAGE(diff.empty(), diff);
    } else {
      const std::string diff = first_difference(k, expected, keys);
      CHECK_MESSAGE(diff.empty(), diff);
      if (with_values) {
        bool carried = true;
        for (size_t i = 0; i < n; ++i) carried = carried && std::memcmp(&original[values[i] * kb], &keys[i * kb], kb) == 0;
        CHECK(carried);
        std::sort(values.begin(), values.end());
        CHECK(values == generate_values(n));
      }
    }
  }
}

}  // namespace

TEST_CASE("CPU baselines equal the reference for every key, order and distribution") {
  for (Key k : kKeys) {
    for (Order o : kOrders) {
      for (const DistributionSpec& spec : all_default_specs()) {
        for (size_t n : {0, 1, 2, 3, 255, 256, 257}) {
          INFO(key_name(k), " ", order_name(o), " ", to_string(spec), " n=", n);
          const auto keys = generate_keys(k, spec, n, 1234 + n);
          check_baselines(k, o, keys, true);
          check_baselines(k, o, keys, false);
        }
      }
    }
  }
}

TEST_CASE("CPU baselines equal the reference on a million keys") {
  // Large enough for the radix sort's default to go multithreaded and to skip no pass by accident.
  const size_t n = 1000003;
  {
    INFO("u64 descending gaussian with values");
    check_baselines(Key::u64, Order::descending, generate_keys(Key::u64, spec_of("gaussian"), n, 77), true);
  }
  {
    INFO("f32 ascending special, keys only");
    check_baselines(Key::f32, Order::ascending, generate_keys(Key::f32, spec_of("special"), n, 78), false);
  }
}

TEST_CASE("lsd_radix_sort skips constant digits and still sorts") {
  // Keys that differ only in their second byte: every other pass is skipped, the result must not care.
  std::vector<uint32_t> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0xAB00CD00u | (uint32_t((i * 37) % 256) << 8);
  auto keys = raw_of(v);
  auto expected = keys;
  reference_sort(Key::u32, Order::ascending, expected, {});
  lsd_radix_sort(Key::u32, Order::ascending, keys, {});
  CHECK(first_difference(Key::u32, expected, keys) == "");
}

TEST_CASE("crossovers: brick's unbroken prefix of wins, sample's unbroken suffix, radix between") {
  using workloads::Timing;
  const Algorithm B = Algorithm::brick, R = Algorithm::radix, S = Algorithm::sample;
  auto find = [](std::vector<Timing> t) { return workloads::find_crossovers(t); };
  // brick wins 256 and 1024, radix 4096 and 16384, sample from 65536 on.
  auto c = find({{256, B, 1}, {256, R, 2}, {1024, B, 2}, {1024, R, 3}, {4096, B, 9}, {4096, R, 4}, {16384, R, 5},
                 {16384, S, 6}, {65536, R, 20}, {65536, S, 10}, {262144, R, 80}, {262144, S, 40}});
  CHECK(c.brick_up_to == 1024);
  CHECK(c.sample_from == 65536);
  // Radix everywhere: neither.
  c = find({{256, B, 3}, {256, R, 2}, {4096, R, 4}, {4096, S, 5}});
  CHECK(c.brick_up_to == 0);
  CHECK(c.sample_from == 0);
  // A brick win after a loss is noise; a sample loss at the largest size ends sample's range.
  c = find({{256, B, 3}, {256, R, 2}, {1024, B, 1}, {1024, R, 2}, {4096, S, 1}, {4096, R, 2}, {16384, S, 9}, {16384, R, 2}});
  CHECK(c.brick_up_to == 0);
  CHECK(c.sample_from == 0);
  // Order of the measurements does not matter.
  c = find({{4096, R, 1}, {256, R, 5}, {256, B, 1}, {4096, B, 2}});
  CHECK(c.brick_up_to == 256);
  CHECK(find({}).brick_up_to == 0);
  // Brick winning everywhere leaves no size to sample sort.
  c = find({{256, B, 1}, {256, S, 2}, {1024, B, 1}, {1024, S, 2}});
  CHECK(c.brick_up_to == 1024);
  CHECK(c.sample_from == 0);
}

TEST_CASE("few_unique with far more keys than elements needs no table of them (found by fuzzing)") {
  for (Key k : {Key::u32, Key::f64}) {
    const auto bytes = workloads::generate_keys(k, {workloads::Distribution::few_unique, 0x1.0p31}, 1000, 9);
    REQUIRE(bytes.size() == 1000 * key_bytes(k));
    std::set<std::vector<std::byte>> distinct;
    for (size_t i = 0; i < 1000; ++i)
      distinct.insert(std::vector<std::byte>(bytes.begin() + i * key_bytes(k), bytes.begin() + (i + 1) * key_bytes(k)));
    CHECK(distinct.size() > 990);  // 1000 draws from 2^31 keys: repeats are rare
    // Deterministic for the seed.
    CHECK(workloads::generate_keys(k, {workloads::Distribution::few_unique, 0x1.0p31}, 1000, 9) == bytes);
  }
}
