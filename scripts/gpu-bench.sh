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
#                        [--paths LABEL,...] [--timeout S] [--warmup-ms MS]
#
# Sorts run back to back (vksort bench --resident): inputs are restored and results kept by GPU
# copies, so the GPU does not idle between timed runs, and each case first warms up for at least MS
# milliseconds (default 1000), vksort and CUB alike. An H100 here ran sorts at 345 MHz instead of
# 1980 when they came in short bursts between host work (3.5-4x the time; bench/results/README.md).
# Every result is still checked against the CPU reference.
#
# --paths keeps only the named paths (single-pass-ballot, single-pass-columns, reduce-then-scan-splits,
# reduce-then-scan-columns, auto): the largest sizes check every result against a CPU sort, which takes
# the device machine's CPU tens of seconds per case at 2^28. Each vksort run is stopped after --timeout
# seconds (default 600): a path that hangs, crashes or sorts wrongly is recorded in failed.txt and the
# others still run; the script then exits 1.
#
# Without --vksort it builds build/apps/vksort/vksort first (that needs glslc). On a machine without
# the build tools, build here and pass the binary; it needs only libstdc++ and the Vulkan loader. A path
# the device cannot run (ballot ranking without subgroup ballot) is reported as skipped, never timed. CI
# runs it on lavapipe at small sizes so it stays working; results of real GPUs go to bench/results/.
set -euo pipefail

vksort="" min_log=16 max_log=28 repeat=5 out="" only="" limit=600 warmup_ms=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --vksort) vksort="$2"; shift 2 ;;
    --min-log) min_log="$2"; shift 2 ;;
    --max-log) max_log="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --paths) only=",$2,"; shift 2 ;;
    --timeout) limit="$2"; shift 2 ;;
    --warmup-ms) warmup_ms="$2"; shift 2 ;;
    *) echo "usage: scripts/gpu-bench.sh [--vksort BIN] [--min-log K] [--max-log K] [--repeat R] [--out DIR] [--paths LABEL,...] [--timeout S] [--warmup-ms MS]" >&2; exit 2 ;;
  esac
done
# kind: file label and the bench options that make it; path: label, scan, ranking.
kinds=("keys-u32:--type u32" "pairs-u32:--type u32 --values" "keys-u64:--type u64")
paths=("single-pass-ballot:single-pass:ballot" "single-pass-columns:single-pass:columns"
       "reduce-then-scan-splits:reduce-then-scan:splits" "reduce-then-scan-columns:reduce-then-scan:columns"
       "auto:auto:auto")
# --paths names known paths only (a misspelt one ran nothing and printed an empty table).
if [ -n "$only" ]; then
  IFS=, read -r -a wanted <<<"${only:1:${#only}-2}"
  [ "${#wanted[@]}" -gt 0 ] || { echo "gpu-bench: --paths names no path" >&2; exit 2; }
  for w in "${wanted[@]}"; do
    [[ " ${paths[*]%%:*} " == *" $w "* ]] || { echo "gpu-bench: --paths: unknown path '$w' (known: ${paths[*]%%:*})" >&2; exit 2; }
  done
fi
# --vksort and --out are the caller's paths, relative to where it runs: resolved before the cd to the
# repository (they resolved against the repository, so a relative --out emptied a folder in the tree).
if [[ "$vksort" == */* ]] || [ -e "$vksort" ]; then vksort=$(realpath -m "$vksort"); fi  # else a name on PATH
[ -n "$out" ] && out=$(realpath -m "$out")
cd "$(dirname "$0")/.."
out="${out:-bench/gpu-run}"
if [ -n "$vksort" ] && ! command -v "$vksort" >/dev/null; then
  echo "gpu-bench: --vksort $vksort: no such program" >&2
  exit 2
fi
if [ -z "$vksort" ]; then
  cmake --preset default >/dev/null
  cmake --build --preset default --target vksort_cli
  vksort=build/apps/vksort/vksort
fi
# shellcheck source=scripts/gpu_pythons.sh
. scripts/gpu_pythons.sh
mkdir -p "$out"
rm -f "$out"/radix-*.json "$out"/cub.json "$out"/skipped.txt "$out"/failed.txt

"$vksort" info | tee "$out/info.txt"

sizes=""
for ((k = min_log; k <= max_log; k += 2)); do sizes="${sizes:+$sizes,}2^$k"; done

for kind in "${kinds[@]}"; do
  for path in "${paths[@]}"; do
    IFS=: read -r label scan ranking <<<"$path"
    [ -z "$only" ] || [[ "$only" == *",$label,"* ]] || continue
    name="${kind%%:*}"
    file="$out/radix-$name-$label.json"
    echo "== $name, $label"
    rc=0
    # shellcheck disable=SC2086  # the kind's options are words
    timeout "$limit" "$vksort" bench --algo radix ${kind#*:} --n "$sizes" --dist uniform --repeat "$repeat" --warmup 1 --warmup-ms "$warmup_ms" --resident --no-cpu \
      --radix-scan "$scan" --radix-ranking "$ranking" --format json --out "$file" 2>"$out/stderr.txt" || rc=$?
    if [ "$rc" -ne 0 ]; then
      if grep -q "radix sort" "$out/stderr.txt"; then
        # The library refused the path on this device (a clear reason, one line): skipped, not timed.
        echo "$name $label: $(tail -1 "$out/stderr.txt")" | tee -a "$out/skipped.txt"
        rm -f "$file"
        continue
      fi
      # A hang (timeout), a crash or a wrong result: recorded, and the other paths still run.
      cat "$out/stderr.txt" >&2
      echo "$name $label: exit $rc: $(tail -1 "$out/stderr.txt")" | tee -a "$out/failed.txt"
      rm -f "$file"
    fi
  done
done
rm -f "$out/stderr.txt"

echo "== CUB (torch.sort, cupy.sort) on the same sizes"
if [ -n "$cub_python" ]; then
  "$cub_python" scripts/cub_anchor.py --min-log "$min_log" --max-log "$max_log" --repeat "$repeat" --warmup-ms "$warmup_ms" --out "$out/cub.json" || true
else
  echo "no python3 with PyTorch here: CUB not timed"
fi
"$python" scripts/gpu_bench_summary.py "$out" | tee "$out/summary.md"
[ ! -s "$out/failed.txt" ]
