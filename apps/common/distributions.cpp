// SPDX-License-Identifier: MIT
// distributions.cpp — the generators behind distributions.hpp. Every element is a function of
// (seed, its chunk's random stream, its index) only, so chunks can be filled on any number of threads.
#include "distributions.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "host_keys.hpp"

namespace vksort::workloads {
namespace {

// ---- random numbers --------------------------------------------------------------------------------

// splitmix64's output function: a bijection on 64 bits with good avalanche (Steele, Lea, Flood 2014).
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The high half of a 64x64-bit product, without relying on a 128-bit integer type.
constexpr uint64_t mul_high(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
  const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;  // < 2^64 by construction
  return hi_hi + (hi_lo >> 32) + (cross >> 32);
}

// xoshiro256** (Blackman, Vigna 2018), its state filled by splitmix64 from (seed, stream) as its
// authors recommend. Streams are chunk indices, or kAuxStream + k for whole-array decisions.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t sm = mix64(seed) ^ mix64(stream + 0x632BE59BD9B4E019ull);
    for (auto& w : s_) {
      sm += 0x9E3779B97F4A7C15ull;
      w = mix64(sm);
    }
  }
  uint64_t next() {
    const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, bound) by Lemire's multiply-shift; without the rejection step the bias is below
  // bound / 2^64, far under anything a test or benchmark can see.
  uint64_t below(uint64_t bound) { return mul_high(next(), bound); }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // N(0, 1) by Box-Muller, one value per call (the sine half is dropped so that every element uses a
  // fixed number of draws). u1 is in (0, 1] so the log is finite.
  double normal() {
    const double u1 = 1.0 - unit();
    const double u2 = unit();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::array<uint64_t, 4> s_{};
};

constexpr uint64_t kAuxStream = uint64_t(1) << 63;
enum AuxPurpose : uint64_t { kSwaps = 1, kFewUniqueTable = 2, kAllEqualValue = 3, kLadderJitter = 4 };
// few_unique with more keys than elements: key j comes from stream kAuxStream + kFewUniqueKeys + j.
constexpr uint64_t kFewUniqueKeys = uint64_t(1) << 40;

// ---- bit layouts -------------------------------------------------------------------------------------

template <class U>
struct Layout {
  static constexpr int width = sizeof(U) * 8;
  static constexpr int mant_bits = width == 32 ? 23 : 52;
  static constexpr int exp_bits = width - 1 - mant_bits;
  static constexpr U sign = U(1) << (width - 1);
  static constexpr U mant_mask = (U(1) << mant_bits) - 1;
  static constexpr U max_exp = (U(1) << exp_bits) - 1;  // the biased exponent of inf and NaN
  static constexpr U bias = (U(1) << (exp_bits - 1)) - 1;
  static constexpr U quiet = U(1) << (mant_bits - 1);
  static constexpr U inf = max_exp << mant_bits;
  static constexpr U max_finite = ((max_exp - 1) << mant_bits) | mant_mask;
  static constexpr U min_normal = U(1) << mant_bits;
  static constexpr U one = bias << mant_bits;
};

// A bijection on 16 bits (odd multiplies and xor-shifts are each invertible mod 2^16).
constexpr uint32_t perm16(uint32_t x) {
  x = (x * 0x9E37u + 0x7F4Au) & 0xFFFFu;
  x ^= x >> 7;
  x = (x * 0x2D4Bu) & 0xFFFFu;
  return x ^ (x >> 8);
}

// A bijection on 32 bits (Wellons' "lowbias32"); the added constant keeps rank 0 away from key 0.
constexpr uint32_t mix32(uint32_t x) {
  x += 0x9E3779B9u;
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  return x ^ (x >> 16);
}

// The per-element rules for one key kind of width U.
template <class U>
struct Kind {
  using L = Layout<U>;
  bool floating;
  bool is_signed;

  explicit Kind(Key key) : floating(is_floating(key)), is_signed(is_signed_integer(key)) {}

  // Integers: every bit pattern equally likely. Floats: random sign, mantissa, and biased exponent
  // uniform over every finite normal binade, so magnitudes span 2^-126..2^128 (f32) and every radix
  // digit of the bits is busy; never NaN, inf, zero or denormal (`special` has those).
  U uniform(Rng& r) const {
    const uint64_t x = r.next();
    if (!floating) return static_cast<U>(x);
    const U sign = static_cast<U>(x >> 63) << (L::width - 1);
    const U e = static_cast<U>(1 + r.below(L::max_exp - 1));
    return sign | (e << L::mant_bits) | (static_cast<U>(x) & L::mant_mask);
  }

  // Floats: N(0, 1) rounded to the type. Integers: the top 32 bits carry floor(g * 2^28), which is
  // sd = range / 16 at both widths, clamped to the range (Box-Muller reaches |g| ~ 8.6 > 8); at 64 bits
  // the low word is uniform so that low digits are not constant. Computed as a signed number around 0
  // and moved to the middle of the unsigned range by flipping the sign bit.
  U gaussian(Rng& r) const {
    const double g = r.normal();
    if (floating) {
      if constexpr (sizeof(U) == 4)
        return std::bit_cast<uint32_t>(static_cast<float>(g));
      else
        return std::bit_cast<uint64_t>(g);
    }
    const double h = std::clamp(std::floor(g * 0x1.0p28), -0x1.0p31, 0x1.0p31 - 1.0);
    const auto hi = static_cast<int64_t>(h);
    U s;
    if constexpr (sizeof(U) == 4)
      s = static_cast<uint32_t>(static_cast<int32_t>(hi));
    else
      s = (static_cast<uint64_t>(hi) << 32) | (r.next() & 0xFFFFFFFFu);
    return is_signed ? s : s ^ L::sign;
  }

  // The fixed key of Zipf rank `rank` (< 2^16), the same for every seed. Integers: a bijective hash.
  // Floats: a 16-bit permutation of the rank spread over sign, 5 exponent bits (|x| in [2^-16, 2^16))
  // and the top 10 mantissa bits, the other mantissa bits hashed; distinct ranks give distinct finite
  // keys, which a hash into all float patterns would not promise.
  U zipf_key(uint32_t rank) const {
    if (!floating) {
      if constexpr (sizeof(U) == 4)
        return mix32(rank);
      else
        return mix64(rank + 0x9E3779B97F4A7C15ull);
    }
    const uint32_t p = perm16(rank);
    const U sign = static_cast<U>(p >> 15) << (L::width - 1);
    const U e = L::bias - 16 + ((p >> 10) & 31u);
    constexpr int low = L::mant_bits - 10;
    const U mant = (static_cast<U>(p & 0x3FFu) << low) | (static_cast<U>(mix64(rank)) & ((U(1) << low) - 1));
    return sign | (e << L::mant_bits) | mant;
  }

  // NaNs of both signs with several payloads (quiet and signalling), infinities, signed zeros,
  // denormals, min normal, max finite, +-1. Integers: min, max, 0, +-1 and their neighbours.
  std::vector<U> special_table() const {
    if (floating) {
      const U s = L::sign, inf = L::inf, q = L::quiet, m = L::mant_mask;
      return {inf | q,     s | inf | q,      inf | q | 1,     s | inf | q | 0x5A5, inf | 1,           s | inf | 1,
              inf | m,     s | inf | m,      inf,             s | inf,             0,                 s,
              1,           s | 1,            m,               s | m,               L::min_normal,     s | L::min_normal,
              L::max_finite, s | L::max_finite, L::one,       s | L::one};
    }
    const U max_u = ~U(0), half = L::sign;
    if (is_signed) return {half, half + 1, max_u, 0, 1, half - 2, half - 1};  // min, min+1, -1, 0, 1, max-1, max
    return {0, 1, 2, half - 1, half, max_u - 1, max_u};
  }

  // Half the elements from the table (so its values also repeat: ties among specials), a quarter
  // random denormals (floats) or small integers around zero, a quarter ordinary uniform values.
  U special(Rng& r, const std::vector<U>& table) const {
    switch (r.below(4)) {
      case 0:
      case 1: return table[r.below(table.size())];
      case 2:
        if (floating) {
          const uint64_t x = r.next();  // one draw: the order of two draws in one expression is unspecified
          return (static_cast<U>(x >> 63) << (L::width - 1)) | (static_cast<U>(x) & L::mant_mask);
        }
        if (is_signed) return static_cast<U>(static_cast<int64_t>(r.below(17)) - 8);
        return static_cast<U>(r.below(17));
      default: return uniform(r);
    }
  }
};

// Strictly ascending keys without sorting: the encoded range that finite keys occupy is cut into m
// equal buckets (the remainder spread over the first ones) and bucket i yields one key at a jitter
// that depends only on (seed, i). So sorted and reverse are exact mirrors, organ_pipe's two halves
// hold the same keys, and low digits are as random as those of a sorted uniform array.
template <class U>
class Ladder {
 public:
  Ladder(Key key, size_t m, uint64_t seed) : asc_(KeyCodec<U>::make(key, Order::ascending)) {
    // Integers use every pattern (the signed encoding maps min..max onto 0..~0 like unsigned). Floats
    // stop at -max..+max: the numeric order of finite values is the encoded order restricted to them.
    lo_ = asc_.floating ? asc_.encode(Layout<U>::sign | Layout<U>::max_finite) : U(0);
    hi_ = asc_.floating ? asc_.encode(Layout<U>::max_finite) : ~U(0);
    const uint64_t span_minus_1 = hi_ - lo_;  // the span itself may be 2^64
    step_ = span_minus_1 / m;
    extra_ = span_minus_1 % m + 1;
    if (extra_ == m) {
      ++step_;
      extra_ = 0;
    }
    salt_ = mix64(seed ^ (kAuxStream + kLadderJitter));
  }
  // The raw bits of the key in bucket i < m.
  U key(size_t i) const {
    const uint64_t width = step_ + (i < extra_ ? 1 : 0);
    if (width == 0) return asc_.decode(hi_);  // more buckets than keys (n > 2^32 at 32 bits): repeat the top
    const uint64_t start = lo_ + i * step_ + std::min<uint64_t>(i, extra_);
    return asc_.decode(static_cast<U>(start + mul_high(mix64(salt_ + mix64(i)), width)));
  }

 private:
  KeyCodec<U> asc_;
  U lo_ = 0, hi_ = 0;
  uint64_t step_ = 0, extra_ = 0, salt_ = 0;
};

constexpr size_t kChunk = size_t(1) << 16;

// out[i] = element(rng_of_chunk(i), i) for every i. Chunk c always draws from stream c, so the result
// does not depend on how many threads share the chunks.
template <class U, class F>
void fill_chunks(std::span<std::byte> out, uint64_t seed, const F& element) {
  const size_t n = out.size() / sizeof(U);
  const size_t chunks = (n + kChunk - 1) / kChunk;
  auto run = [&](size_t first, size_t stride) {
    for (size_t c = first; c < chunks; c += stride) {
      Rng rng(seed, c);
      const size_t end = std::min(n, (c + 1) * kChunk);
      for (size_t i = c * kChunk; i < end; ++i) {
        const U v = element(rng, i);
        std::memcpy(out.data() + i * sizeof(U), &v, sizeof(U));
      }
    }
  };
  const size_t threads = chunks >= 8 ? std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), chunks) : 1;
  if (threads <= 1) return run(0, 1);
  std::vector<std::jthread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run, t, threads);
  run(0, threads);
}

// Zipf over ranks 0..2^16-1 with P(rank) proportional to (rank + 1)^-s, by inverse CDF.
class ZipfRanks {
 public:
  explicit ZipfRanks(double s) : cdf_(size_t(1) << 16) {
    double total = 0.0;
    for (size_t r = 0; r < cdf_.size(); ++r) cdf_[r] = total += std::pow(static_cast<double>(r + 1), -s);
  }
  uint32_t sample(Rng& rng) const {
    const double u = rng.unit() * cdf_.back();
    const auto r = static_cast<size_t>(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
    return static_cast<uint32_t>(std::min(r, cdf_.size() - 1));
  }

 private:
  std::vector<double> cdf_;
};

template <class U>
void generate_typed(Key key, const DistributionSpec& spec, uint64_t seed, std::span<std::byte> out) {
  const size_t n = out.size() / sizeof(U);
  if (n == 0) return;
  const Kind<U> kind(key);
  auto fill = [&](const auto& element) { fill_chunks<U>(out, seed, element); };

  switch (spec.kind) {
    case Distribution::uniform: fill([&](Rng& r, size_t) { return kind.uniform(r); }); break;
    case Distribution::gaussian: fill([&](Rng& r, size_t) { return kind.gaussian(r); }); break;
    case Distribution::zipf: {
      const ZipfRanks ranks(spec.param);
      fill([&](Rng& r, size_t) { return kind.zipf_key(ranks.sample(r)); });
      break;
    }
    case Distribution::sorted:
    case Distribution::nearly_sorted: {
      const Ladder<U> ladder(key, n, seed);
      fill([&](Rng&, size_t i) { return ladder.key(i); });
      if (spec.kind == Distribution::sorted) break;
      // n * p / 200 swaps of two uniformly chosen positions touch about p percent of the elements.
      Rng r(seed, kAuxStream + kSwaps);
      const auto swaps = static_cast<uint64_t>(std::llround(static_cast<double>(n) * spec.param / 200.0));
      std::array<std::byte, sizeof(U)> tmp;
      for (uint64_t s = 0; s < swaps; ++s) {
        std::byte* a = out.data() + r.below(n) * sizeof(U);
        std::byte* b = out.data() + r.below(n) * sizeof(U);
        std::memcpy(tmp.data(), a, sizeof(U));
        std::memcpy(a, b, sizeof(U));
        std::memcpy(b, tmp.data(), sizeof(U));
      }
      break;
    }
    case Distribution::reverse: {
      const Ladder<U> ladder(key, n, seed);
      fill([&](Rng&, size_t i) { return ladder.key(n - 1 - i); });
      break;
    }
    case Distribution::organ_pipe: {
      // Mirrored positions take the same bucket, so each key appears twice (once at the peak if n is odd).
      const Ladder<U> ladder(key, (n + 1) / 2, seed);
      fill([&](Rng&, size_t i) { return ladder.key(std::min(i, n - 1 - i)); });
      break;
    }
    case Distribution::few_unique: {
      const auto k = static_cast<size_t>(spec.param);
      if (k > n) {
        // More distinct keys than elements: a table of k keys would cost memory and time out of all
        // proportion (k may be 2^31) for nothing observable. Each element draws one of k indices and
        // the index's own key (from a stream of its own, so the output stays independent of threads).
        fill([&](Rng& rng, size_t) {
          Rng key_of_index(seed, kAuxStream + kFewUniqueKeys + rng.below(k));
          return kind.uniform(key_of_index);
        });
        break;
      }
      Rng r(seed, kAuxStream + kFewUniqueTable);
      std::vector<U> table;
      std::unordered_set<U> seen;
      while (table.size() < k) {
        const U v = kind.uniform(r);
        if (seen.insert(v).second) table.push_back(v);
      }
      fill([&](Rng& rng, size_t) { return table[rng.below(k)]; });
      break;
    }
    case Distribution::all_equal: {
      Rng r(seed, kAuxStream + kAllEqualValue);
      const U v = kind.uniform(r);
      fill([&](Rng&, size_t) { return v; });
      break;
    }
    case Distribution::entropy: {
      // Each bit is 1 with probability 2^-k. Floats get the same raw bits: the point is the digit
      // statistics a radix sort sees, and the occasional NaN/inf this makes sorts fine in total order.
      const auto k = static_cast<int>(spec.param);
      fill([&](Rng& r, size_t) {
        U v = ~U(0);
        for (int j = 0; j < k; ++j) v &= static_cast<U>(r.next());
        return v;
      });
      break;
    }
    case Distribution::special: {
      const std::vector<U> table = kind.special_table();
      fill([&](Rng& r, size_t) { return kind.special(r, table); });
      break;
    }
  }
}

constexpr std::array<std::string_view, 11> kNames = {"uniform",    "gaussian",   "zipf",      "sorted",
                                                      "reverse",    "nearly_sorted", "organ_pipe", "few_unique",
                                                      "all_equal",  "entropy",    "special"};

bool is_integer(double x) { return std::floor(x) == x; }

}  // namespace

bool takes_param(Distribution kind) {
  return kind == Distribution::nearly_sorted || kind == Distribution::few_unique || kind == Distribution::entropy ||
         kind == Distribution::zipf;
}

double default_param(Distribution kind) {
  switch (kind) {
    case Distribution::nearly_sorted: return 1.0;
    case Distribution::few_unique: return 16.0;
    case Distribution::entropy: return 3.0;
    case Distribution::zipf: return 1.0;
    default: return 0.0;
  }
}

DistributionSpec default_spec(Distribution kind) { return {kind, default_param(kind)}; }

std::string_view to_string(Distribution kind) { return kNames.at(static_cast<size_t>(kind)); }

std::vector<std::string_view> distribution_names() { return {kNames.begin(), kNames.end()}; }

std::string invalid_reason(const DistributionSpec& spec) {
  if (static_cast<size_t>(spec.kind) >= kNames.size()) return "unknown distribution";
  if (!takes_param(spec.kind)) return {};
  const double p = spec.param;
  const std::string name(to_string(spec.kind));
  if (!std::isfinite(p)) return name + ": parameter must be finite";
  switch (spec.kind) {
    case Distribution::nearly_sorted:
      if (p < 0 || p > 100) return name + ": percent swapped must be in 0..100";
      break;
    case Distribution::few_unique:
      if (!is_integer(p) || p < 1 || p > 0x1.0p31) return name + ": distinct keys must be an integer in 1..2^31";
      break;
    case Distribution::entropy:
      if (!is_integer(p) || p < 1 || p > 32) return name + ": ANDed words must be an integer in 1..32";
      break;
    case Distribution::zipf:
      if (p < 0) return name + ": exponent must be >= 0";
      break;
    default: break;
  }
  return {};
}

std::optional<DistributionSpec> parse_distribution(std::string_view text) {
  const size_t colon = text.find(':');
  std::string name(text.substr(0, colon));
  std::replace(name.begin(), name.end(), '-', '_');
  const auto it = std::find(kNames.begin(), kNames.end(), name);
  if (it == kNames.end()) return std::nullopt;
  DistributionSpec spec = default_spec(static_cast<Distribution>(it - kNames.begin()));
  if (colon != std::string_view::npos) {
    if (!takes_param(spec.kind)) return std::nullopt;
    const std::string_view p = text.substr(colon + 1);
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), spec.param);
    if (p.empty() || ec != std::errc() || end != p.data() + p.size()) return std::nullopt;
  }
  if (!invalid_reason(spec).empty()) return std::nullopt;
  return spec;
}

std::string to_string(const DistributionSpec& spec) {
  std::string s(to_string(spec.kind));
  if (takes_param(spec.kind)) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, spec.param);  // shortest round-trip form
    s += ':';
    s.append(buf, ec == std::errc() ? end : buf);
  }
  return s;
}

void generate_keys_into(Key key, const DistributionSpec& spec, uint64_t seed, std::span<std::byte> out) {
  if (const std::string why = invalid_reason(spec); !why.empty()) throw std::invalid_argument(why);
  if (key_bytes(key) == 4)
    generate_typed<uint32_t>(key, spec, seed, out);
  else
    generate_typed<uint64_t>(key, spec, seed, out);
}

std::vector<std::byte> generate_keys(Key key, const DistributionSpec& spec, size_t n, uint64_t seed) {
  std::vector<std::byte> out(n * key_bytes(key));
  generate_keys_into(key, spec, seed, out);
  return out;
}

std::vector<uint32_t> generate_values(size_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), uint32_t{0});
  return v;
}

}  // namespace vksort::workloads
