// SPDX-License-Identifier: MIT
// distributions.hpp — seeded, reproducible inputs for tests and benchmarks, as raw key bytes.
//
// The same (Key, spec, n, seed) gives the same bytes on every machine, compiler and thread count: the
// generator is our own xoshiro256** seeded by splitmix64, per 64 Ki-element chunk, and no standard
// library distribution is used (their output is implementation-defined). The only libm calls are log,
// cos and pow (Box-Muller, Zipf weights), which glibc and other modern libms round to within an ulp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vksort/types.hpp>

namespace vksort::workloads {

enum class Distribution {
  uniform,        // ints: every bit pattern; floats: random sign, exponent and mantissa, finite normals
  gaussian,       // floats: N(0,1); ints: centred on the middle of the range, sd = range / 16
  zipf,           // a fixed pseudo-random key per rank, rank ~ Zipf(param) over 2^16 ranks
  sorted,         // strictly ascending in the key type's numeric order (finite floats only)
  reverse,        // strictly descending likewise
  nearly_sorted,  // sorted, then param percent of the elements swapped with a random partner
  organ_pipe,     // ascending to the middle, then the same keys descending
  few_unique,     // param distinct keys, each element one of them at random (param > n: per-index keys,
                  // distinct but for chance collisions, no table)
  all_equal,      // one random key everywhere
  entropy,        // AND of param uniform words: fewer ones, less entropy per bit (Thearling & Smith)
  special,        // the awkward values: NaNs, infinities, signed zeros, denormals, min/max integers
};

// `param` means: nearly_sorted: percent of elements swapped (0..100); few_unique: number of distinct
// keys (integer >= 1); entropy: number of ANDed words k (integer 1..32; k = 1..5 gives 1.0, 0.811,
// 0.544, 0.337, 0.201 bits of entropy per bit); zipf: exponent (>= 0). The other kinds ignore it.
struct DistributionSpec {
  Distribution kind = Distribution::uniform;
  double param = 0.0;
};

// Whether `kind` reads `param`, and the value it takes when a name gives none (0 if it reads none).
bool takes_param(Distribution kind);
double default_param(Distribution kind);
// {kind, default_param(kind)}.
DistributionSpec default_spec(Distribution kind);

// The name of a kind ("nearly_sorted") and all names in enum order.
std::string_view to_string(Distribution kind);
std::vector<std::string_view> distribution_names();

// "name" or "name:param"; '-' may stand for '_' ("nearly-sorted:5"). nullopt for an unknown name, a
// parameter that is malformed or out of range, or a parameter given to a kind that takes none.
std::optional<DistributionSpec> parse_distribution(std::string_view text);
// The inverse of parse_distribution: "uniform", "nearly_sorted:1", "zipf:1.5".
std::string to_string(const DistributionSpec& spec);
// Empty if `spec` can be generated, else why not.
std::string invalid_reason(const DistributionSpec& spec);

// n keys of kind `key`, as n * key_bytes(key) little-endian bytes. Throws std::invalid_argument for
// an invalid spec. Large n is generated on several threads; the output does not depend on how many.
std::vector<std::byte> generate_keys(Key key, const DistributionSpec& spec, size_t n, uint64_t seed);
// The same into caller memory (out.size() / key_bytes(key) keys), for buffers too big to copy.
void generate_keys_into(Key key, const DistributionSpec& spec, uint64_t seed, std::span<std::byte> out);

// 0, 1, 2, ...: each value is its key's original index, so a sort's stability is visible.
std::vector<uint32_t> generate_values(size_t n);

}  // namespace vksort::workloads
