// SPDX-License-Identifier: MIT
// libFuzzer target for the input handling of the vksort CLI and library: whatever bytes arrive, the
// parsers of counts (--n), distributions (--dist), key types and algorithms (--type, --algo), size
// lists, tuning knobs and auto-profile files must either accept them or refuse them with an error —
// never crash, hang, leak or hit undefined behaviour (the build adds ASan and UBSan). Accepted values
// must round-trip through their printed form, and an accepted distribution must generate keys.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli_error.hpp"
#include "counts.hpp"
#include "distributions.hpp"
#include "option_values.hpp"
#include "vksort/auto_profile.hpp"
#include "vksort/error.hpp"
#include "vksort/types.hpp"

namespace {

using namespace vksort;

[[noreturn]] void broken(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz_inputs: %s for input '%.*s'\n", what, int(input.size()), input.data());
  std::abort();
}

void one_token(std::string_view token) {
  if (const auto n = cli::parse_count(token)) {
    if (cli::parse_count(std::to_string(*n)) != n) broken("a count does not round-trip", token);
  }
  try {
    const auto sizes = cli::parse_sizes({std::string(token)}, "keys");
    if (sizes.size() != 1 || sizes[0].n == 0 || sizes[0].n >= (uint64_t(1) << 31)) broken("parse_sizes let through", token);
  } catch (const cli::UsageError&) {
  }
  if (const auto spec = workloads::parse_distribution(token)) {
    const std::string printed = workloads::to_string(*spec);
    const auto again = workloads::parse_distribution(printed);
    if (!again || again->kind != spec->kind) broken("a distribution does not round-trip", token);
    if (!workloads::invalid_reason(*spec).empty()) broken("parse_distribution accepted an invalid spec", token);
    // Small, so that every accepted spec is cheap to generate; key types vary with the token.
    const Key key = Key(uint32_t(token.size() % 6));
    const auto bytes = workloads::generate_keys(key, *spec, token.size() % 97, token.size());
    if (bytes.size() != (token.size() % 97) * key_bytes(key)) broken("generate_keys returned the wrong size", token);
  }
  if (const auto k = parse_key(token)) {
    if (parse_key(to_string(*k)) != k) broken("a key type does not round-trip", token);
  }
  if (const auto a = parse_algorithm(token)) {
    if (parse_algorithm(to_string(*a)) != a) broken("an algorithm does not round-trip", token);
  }
  try {
    cli::parse_key_option(token);
    cli::parse_algorithm_option(token);
  } catch (const cli::UsageError&) {
  }
  // Tuning knobs from the token's leading number.
  const uint32_t v = uint32_t(std::strtoul(std::string(token).c_str(), nullptr, 10));
  try {
    cli::to_tuning({v, v, v});
  } catch (const cli::UsageError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The whole input as a profile file, then every token as a command-line value.
  try {
    const AutoProfile p = AutoProfile::parse(text, "fuzz");
    const AutoProfile again = AutoProfile::parse(p.to_text(DeviceInfo{}), "fuzz");
    for (int w = 0; w < 2; ++w)
      for (int v = 0; v < 2; ++v)
        if (!(again.crossovers[w][v] == p.crossovers[w][v])) broken("a profile does not round-trip", text);
  } catch (const Error&) {
  }
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == ' ' || text[i] == '\n' || text[i] == ',') {
      if (i > start) one_token(text.substr(start, i - start));
      start = i + 1;
    }
  return 0;
}
