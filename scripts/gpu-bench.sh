#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole GPU measurement of vksort's radix sort in one command: the device, then u32 keys, u32 pairs
# and u64 keys from 2^MIN to 2^MAX keys (uniform, every result checked) on every radix path —
# single pass with ballot and with column ranking, reduce-then-scan with splits and with columns, and
# what `auto` picks — each in its own JSON file, then CUB's radix sort on the same sizes in the same run
# (scripts/cub_anchor.py: torch.sort and cupy.sort, where PyTorch or CuPy and a CUDA device exist), and
# a Markdown table of it all (scripts/gpu_bench_summary.py).
#
#   scripts/gpu-bench.sh [--vksort BIN] [--min-log K] [--max-log K] [--repeat R] [--out DIR]
#
# Without --vksort it builds build/apps/vksort/vksort first (that needs glslc). On a machine without
# the build tools, build here and pass the binary; it needs only libstdc++ and the Vulkan loader. A path
# the device cannot run (ballot ranking without subgroup ballot) is reported as skipped, never timed. CI
# runs it on lavapipe at small sizes so it stays working; results of real GPUs go to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."

vksort="" min_log=16 max_log=28 repeat=5 out=bench/gpu-run
while [ $# -gt 0 ]; do
  case "$1" in
    --vksort) vksort="$2"; shift 2 ;;
    --min-log) min_log="$2"; shift 2 ;;
    --max-log) max_log="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: scripts/gpu-bench.sh [--vksort BIN] [--min-log K] [--max-log K] [--repeat R] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ -z "$vksort" ]; then
  cmake --preset default >/dev/null
  cmake --build --preset default --target vksort_cli
  vksort=build/apps/vksort/vksort
fi
python=/usr/bin/python3
[ -x "$python" ] || python=python3
mkdir -p "$out"
rm -f "$out"/radix-*.json "$out"/cub.json "$out"/skipped.txt

"$vksort" info | tee "$out/info.txt"

sizes=""
for ((k = min_log; k <= max_log; k += 2)); do sizes="${sizes:+$sizes,}2^$k"; done

# kind: file label and the bench options that make it; path: label, scan, ranking.
kinds=("keys-u32:--type u32" "pairs-u32:--type u32 --values" "keys-u64:--type u64")
paths=("single-pass-ballot:single-pass:ballot" "single-pass-columns:single-pass:columns"
       "reduce-then-scan-splits:reduce-then-scan:splits" "reduce-then-scan-columns:reduce-then-scan:columns"
       "auto:auto:auto")
for kind in "${kinds[@]}"; do
  for path in "${paths[@]}"; do
    IFS=: read -r label scan ranking <<<"$path"
    name="${kind%%:*}"
    file="$out/radix-$name-$label.json"
    echo "== $name, $label"
    # shellcheck disable=SC2086  # the kind's options are words
    if ! "$vksort" bench --algo radix ${kind#*:} --n "$sizes" --dist uniform --repeat "$repeat" --no-cpu \
         --radix-scan "$scan" --radix-ranking "$ranking" --format json --out "$file" 2>"$out/stderr.txt"; then
      if grep -q "radix sort" "$out/stderr.txt"; then
        # The library refused the path on this device (a clear reason, one line): skipped, not timed.
        echo "$name $label: $(tail -1 "$out/stderr.txt")" | tee -a "$out/skipped.txt"
        rm -f "$file"
        continue
      fi
      cat "$out/stderr.txt" >&2
      exit 1
    fi
  done
done
rm -f "$out/stderr.txt"

echo "== CUB (torch.sort, cupy.sort) on the same sizes"
"$python" scripts/cub_anchor.py --min-log "$min_log" --max-log "$max_log" --repeat "$repeat" --out "$out/cub.json" || true
"$python" scripts/gpu_bench_summary.py "$out" | tee "$out/summary.md"
