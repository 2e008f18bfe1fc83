#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Old against new radix sort in one run: two vksort binaries (e.g. the previous commit built beside this
# one), interleaved per case so a noisy machine's drift hits both alike. For each kind (u32 keys, u32
# pairs, u64 keys) and size, the old binary's radix sort, then the new one's on each path; JSON per
# case and a Markdown table of median GPU ms and new/old ratios (scripts/compare_radix_summary.py).
# With ROUNDS > 1 each case runs the three in turn that many times (old, new, new, old, new, new, ...),
# and the table gives the median over rounds of each round's new/old: on a loaded machine the load
# drifts within a case's runs too, and a round keeps old and new close in time. DISTS: the input
# distributions (vksort bench --dist), each a case of its own (default uniform).
#
#   scripts/compare-radix.sh OLD_VKSORT NEW_VKSORT OUT_DIR [sizes, default 2^16,2^18,2^20,2^22] [repeat, default 5] [rounds, default 1] [dists, default uniform]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: scripts/compare-radix.sh OLD_VKSORT NEW_VKSORT OUT_DIR [SIZES] [REPEAT] [ROUNDS] [DISTS]" >&2; exit 2; }
old="$1" new="$2" out="$3" sizes="${4:-2^16,2^18,2^20,2^22}" repeat="${5:-5}" rounds="${6:-1}" dists="${7:-uniform}"
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "compare-radix: $bin: no such program" >&2; exit 2; }
done
# The caller's paths, relative to where it runs: resolved before the cd to the repository (they
# resolved against the repository, so a relative OUT_DIR landed in the tree).
mkdir -p "$out"
old=$(realpath "$old") new=$(realpath "$new") out=$(realpath "$out")
cd "$(dirname "$0")/.."
# A shader cache of this run's own: Mesa's on-disk cache does not tell lavapipe's SIMD widths apart, so a
# kernel an earlier run compiled at another LP_NATIVE_VECTOR_WIDTH would be timed at that width
# (docs/building.md, "Mesa's shader cache and the SIMD width"). Compiling is not timed (warm-up runs).
if [ -z "${MESA_SHADER_CACHE_DISABLE:-}" ]; then
  shader_cache=$(mktemp -d)
  trap 'rm -rf "$shader_cache"' EXIT
  export MESA_SHADER_CACHE_DIR="$shader_cache"
fi
"$new" info >"$out/info.txt"
kinds=("keys-u32:--type u32" "pairs-u32:--type u32 --values" "keys-u64:--type u64")
IFS=, read -r -a ns <<<"$sizes"
IFS=, read -r -a ds <<<"$dists"
for kind in "${kinds[@]}"; do
  name="${kind%%:*}"
  for dist in "${ds[@]}"; do
  for n in "${ns[@]}"; do
    for ((r = 1; r <= rounds; r++)); do
      tag="$name-n${n/^/e}"
      [ "$dist" != uniform ] && tag="$tag-${dist//[^a-z_]/_}"
      [ "$rounds" -gt 1 ] && tag="$tag-r$r"
      echo "== $name $dist n=$n round $r"
      # shellcheck disable=SC2086  # the kind's options are words
      "$old" bench --algo radix ${kind#*:} --n "$n" --dist "$dist" --repeat "$repeat" --format json --out "$out/old-$tag.json" >/dev/null
      # shellcheck disable=SC2086
      "$new" bench --algo radix ${kind#*:} --n "$n" --dist "$dist" --repeat "$repeat" --no-cpu --radix-scan single-pass \
        --format json --out "$out/single-pass-$tag.json" >/dev/null
      # shellcheck disable=SC2086
      "$new" bench --algo radix ${kind#*:} --n "$n" --dist "$dist" --repeat "$repeat" --no-cpu --radix-scan reduce-then-scan \
        --format json --out "$out/reduce-then-scan-$tag.json" >/dev/null
    done
  done
  done
done
/usr/bin/python3 scripts/compare_radix_summary.py "$out" | tee "$out/summary.md"
