#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The single-pass radix sort's look-back on a GPU, in one command: u32 keys at a few sizes with each
# look-back window (Tuning::lookback_window) and keys per invocation, the match ranking where the
# device has subgroup partitions, and optionally an older vksort binary's default path in the same
# run, each case warmed up and run back to back (--resident), every result checked. Then a Markdown table (scripts/gpu_sweep_summary.py) of Gkeys/s beside the facts that
# explain them: look-back rounds per tile, rounds spent spinning, fallbacks.
#
#   scripts/gpu-sweep.sh --vksort BIN --out DIR [--old BIN] [--sizes LIST] [--windows LIST]
#                        [--items LIST] [--workgroups LIST] [--stagings LIST] [--type T] [--shapes LIST]
#                        [--pairs-shapes LIST] [--u64-items LIST] [--u64-shapes LIST] [--repeat R]
#                        [--warmup-ms MS] [--timeout S] [--no-match]
#
# Defaults: --sizes 2^22,2^24,2^28, --windows 1,4,8,16,32, --items 0,8,32 (0: the device's choice),
# --workgroups 0 (the device's choice; others, e.g. 128,256, weigh registers per invocation against
# workgroups per multiprocessor), --stagings "" (RadixStaging: e.g. direct,late,early, each at the device's
# tile and window with the ballot ranking, --type keys, --type pairs and u64 keys),
# --type u32, --repeat 5, --warmup-ms 1000, --timeout 300 per case. --u64-items LIST (default 0,16)
# adds u64 keys with those keys per invocation at the device's window, beside the old binary's u64
# (empty: none); --u64-shapes LIST (default none) adds u64 keys at workgroup x keys shapes, e.g. 384x10
# (CUB's Onesweep tile for 8-byte keys); --shapes LIST and --pairs-shapes LIST the same for --type keys
# alone and with 32-bit values (default none). Every case runs with VKSORT_PIPELINE_STATS=1: what the
# driver reports of each pipeline (registers, local and shared memory; NVIDIA does) is collected in
# DIR/pipeline-stats.txt under the case's label. A case that fails or hangs is
# recorded in DIR/failed.txt, the others still run, and the script then exits 1; a shape the library
# refuses on the device (too much shared memory, say) is listed in DIR/skipped.txt instead. On lavapipe (CI) it
# runs at small sizes so it stays working. --no-match leaves the match ranking out (it lost to the
# ballot ranking on H200s in sessions 20 and 26).
set -uo pipefail

vksort="" old="" out="" sizes="2^22,2^24,2^28" windows="1,4,8,16,32" items="0,8,32" workgroups=0 stagings="" type=u32 repeat=5 warmup_ms=1000 limit=300
u64_items="0,16" u64_shapes="" shapes="" pairs_shapes="" no_match=0
usage="usage: scripts/gpu-sweep.sh --vksort BIN --out DIR [--old BIN] [--sizes LIST] [--windows LIST] [--items LIST] [--workgroups LIST] [--stagings LIST] [--type T] [--shapes LIST] [--pairs-shapes LIST] [--u64-items LIST] [--u64-shapes LIST] [--repeat R] [--warmup-ms MS] [--timeout S] [--no-match]"
while [ $# -gt 0 ]; do
  case "$1" in
    --vksort) vksort="$2"; shift 2 ;;
    --old) old="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --windows) windows="$2"; shift 2 ;;
    --items) items="$2"; shift 2 ;;
    --workgroups) workgroups="$2"; shift 2 ;;
    --stagings) stagings="$2"; shift 2 ;;
    --type) type="$2"; shift 2 ;;
    --u64-items) u64_items="$2"; shift 2 ;;
    --u64-shapes) u64_shapes="$2"; shift 2 ;;
    --shapes) shapes="$2"; shift 2 ;;
    --pairs-shapes) pairs_shapes="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --warmup-ms) warmup_ms="$2"; shift 2 ;;
    --timeout) limit="$2"; shift 2 ;;
    --no-match) no_match=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ -z "$vksort" ] || [ -z "$out" ] || [ ! -x "$vksort" ] || { [ -n "$old" ] && [ ! -x "$old" ]; }; then
  echo "$usage" >&2
  exit 2
fi
for list in "$u64_shapes" "$shapes" "$pairs_shapes"; do
  [[ -z "$list" || "$list" =~ ^[0-9]+x[0-9]+(,[0-9]+x[0-9]+)*$ ]] || {
    echo "gpu-sweep: --shapes, --pairs-shapes and --u64-shapes take WORKGROUPxITEMS,..., e.g. 384x10: '$list'" >&2
    exit 2
  }
done
# The binaries and --out are the caller's paths, relative to where it runs: resolved before the cd to the
# repository (they resolved against the repository, so a relative --out emptied a folder in the tree).
vksort=$(realpath "$vksort")
[ -n "$old" ] && old=$(realpath "$old")
mkdir -p "$out" || exit 2
out=$(realpath "$out")
cd "$(dirname "$0")/.." || exit 2
rm -f "$out"/sweep-*.json "$out/failed.txt" "$out/skipped.txt" "$out/pipeline-stats.txt"
# shellcheck source=scripts/gpu_pythons.sh
. scripts/gpu_pythons.sh
# The clocks, every 10 ms, where there is nvidia-smi: a case run at a low clock shows there.
smi=""
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv -lms 10 >"$out/clocks.csv" 2>&1 &
  smi=$!
fi

# One case: label, key type, binary, then bench options.
run_case() {
  local label="$1" key="$2" bin="$3"
  shift 3
  echo "== $label ($(date -u +%H:%M:%S) UTC)"
  local rc=0
  VKSORT_PIPELINE_STATS=1 timeout "$limit" "$bin" bench --algo radix --type "$key" --n "$sizes" --dist uniform --repeat "$repeat" \
    --warmup 1 --warmup-ms "$warmup_ms" --resident --no-cpu --format json --out "$out/sweep-$label.json" "$@" 2>"$out/stderr.all" || rc=$?
  # The pipelines' statistics apart from the messages.
  { echo "== $label"; grep -e '^vksort: pipeline ' -e '^vksort: VKSORT_PIPELINE_STATS' "$out/stderr.all"; } >>"$out/pipeline-stats.txt"
  grep -v -e '^vksort: pipeline ' -e '^vksort: VKSORT_PIPELINE_STATS' "$out/stderr.all" >"$out/stderr.txt"
  if [ "$rc" -eq 2 ] && grep -q "radix sort" "$out/stderr.txt"; then
    # The library refused the shape on this device (a clear reason, one line): skipped, not timed.
    echo "$label: $(tail -1 "$out/stderr.txt")" | tee -a "$out/skipped.txt"
    rm -f "$out/sweep-$label.json"
  elif [ "$rc" -ne 0 ]; then
    cat "$out/stderr.txt" >&2
    echo "$label: exit $rc: $(tail -1 "$out/stderr.txt")" | tee -a "$out/failed.txt"
    rm -f "$out/sweep-$label.json"
  fi
}

[ -n "$old" ] && run_case "$type-old-auto" "$type" "$old"
run_case "$type-auto" "$type" "$vksort"
# The match ranking (one subgroup partition per key instead of a ballot per digit bit) beside the
# default ballot, at the device's tile and window, where the device has subgroup partitions.
match=0
[ "$no_match" -eq 0 ] && "$vksort" info 2>/dev/null | grep -q 'compute ops:.*partitioned' && match=1
if [ "$match" -eq 1 ]; then
  run_case "$type-match" "$type" "$vksort" --radix-scan single-pass --radix-ranking match
else
  if [ "$no_match" -eq 1 ]; then echo "== match ranking: left out (--no-match)"
  else echo "== match ranking: the device has no subgroup partitions (VK_NV_shader_subgroup_partitioned): not run"; fi
fi
IFS=, read -r -a window_list <<<"$windows"
IFS=, read -r -a items_list <<<"$items"
IFS=, read -r -a workgroup_list <<<"$workgroups"
for g in "${workgroup_list[@]}"; do
  # 0: the device's workgroup size, unlabelled (as before the option existed).
  wg_args=() wg_label=""
  [ "$g" != 0 ] && wg_args=(--workgroup-size "$g") wg_label="-wg$g"
  for i in "${items_list[@]}"; do
    # 0: the device's keys per invocation (vksort refuses an explicit 0), labelled items0 as before.
    items_args=()
    [ "$i" != 0 ] && items_args=(--items-per-thread "$i")
    for w in "${window_list[@]}"; do
      run_case "$type-single-pass-items$i-window$w$wg_label" "$type" "$vksort" --radix-scan single-pass "${items_args[@]}" \
        --lookback-window "$w" "${wg_args[@]}"
    done
  done
done
# How a tile's keys reach the output (RadixStaging), ballot ranking at the device's tile and window.
if [ -n "$stagings" ]; then
  IFS=, read -r -a staging_list <<<"$stagings"
  for s in "${staging_list[@]}"; do
    for key in "$type" u64; do
      run_case "$key-staging-$s" "$key" "$vksort" --radix-scan single-pass --radix-ranking ballot --radix-staging "$s"
    done
    # With values: a staged tile holds them too (u32 pairs stage early only since the rows are 16-bit).
    run_case "$type-pairs-staging-$s" "$type" "$vksort" --values --radix-scan single-pass --radix-ranking ballot --radix-staging "$s"
  done
fi
if [ -n "$u64_items" ]; then
  [ -n "$old" ] && run_case "u64-old-auto" u64 "$old"
  IFS=, read -r -a items_list <<<"$u64_items"
  for i in "${items_list[@]}"; do
    items_args=()
    [ "$i" != 0 ] && items_args=(--items-per-thread "$i")
    run_case "u64-single-pass-items$i" u64 "$vksort" --radix-scan single-pass "${items_args[@]}"
  done
  [ "$match" -eq 1 ] && run_case "u64-match" u64 "$vksort" --radix-scan single-pass --radix-ranking match
fi
# Workgroup x keys-per-invocation shapes: label prefix, key type, shapes, then further bench options.
run_shapes() {
  local prefix="$1" key="$2" list="$3"
  shift 3
  [ -n "$list" ] || return 0
  local shape_list shape
  IFS=, read -r -a shape_list <<<"$list"
  for shape in "${shape_list[@]}"; do
    run_case "$prefix-single-pass-items${shape#*x}-wg${shape%x*}" "$key" "$vksort" --radix-scan single-pass \
      --workgroup-size "${shape%x*}" --items-per-thread "${shape#*x}" "$@"
  done
}
run_shapes "$type" "$type" "$shapes"
run_shapes "$type-pairs" "$type" "$pairs_shapes" --values
run_shapes u64 u64 "$u64_shapes"
rm -f "$out/stderr.txt" "$out/stderr.all"
[ -n "$smi" ] && kill "$smi" 2>/dev/null
"$python" scripts/gpu_sweep_summary.py "$out" | tee "$out/sweep.md"
[ ! -s "$out/failed.txt" ]
