#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Everything a session lent a GPU for a few minutes should run, in ONE call of the device tool (whose
# calls last at most 10 minutes, out of 15 for the whole session): stages in order of worth, each run
# only while the time budget allows and cut off at what is left, so that what ran comes back.
#
#   1. `vksort info` and the radix kernels' pipeline statistics (registers, local memory), where the
#      driver reports them (VK_KHR_pipeline_executable_properties); the u32 pass kernel's of --old, --mid
#      and each of the pass kernel's experiments (2b) too.
#   1b. Where the driver reports registers: the pass kernel compiled at 8-24 keys per invocation (u32
#      keys, pairs, u64 keys; 4096 keys, untimed), and from those registers up to two more shapes per
#      kind (one for pairs and u64) that NVIDIA's register file favours (scripts/nvidia_occupancy.py:
#      the most keys resident per SM), which the sweep (3) adds to its fixed shapes.
#   2. The radix sort against CUB: u32 keys, u32 pairs and u64 keys at --sizes, the default path of
#      this build ("new"), and u32 keys of --old DIR's build ("old") and --mid DIR's ("mid"); every
#      result checked; sorts back to back (--resident) after --warmup-ms of warm-up; CUB
#      (scripts/cub_anchor.py) on the same sizes; a Markdown table (scripts/gpu_bench_summary.py); then
#      CUB's kernels at the largest size (scripts/cub_kernels.py: its histogram, scan and Onesweep
#      passes per sort by torch.profiler, beside this build's histogram and passes; cub-kernels.md).
#   2b. The pass kernel's experiments (switches off by default, docs/algorithms.md), each alone where
#      not named together: u32 keys, uniform, at the first of --sweep-sizes, the default before and after
#      them (drift shows), each in a process of its own; a table of each against the default with its
#      registers (scripts/gpu_experiment_summary.py, experiments.md). Run after 2's summary, before CUB's
#      kernels and the sweep, which may spend the rest of the budget: an experiment that wins here becomes
#      the default.
#   3. The single pass's shape sweep (scripts/gpu-sweep.sh) at --sweep-sizes, each case a process of
#      its own: u32 keys at workgroup x keys-per-invocation shapes around the default (384 x 16 again
#      since session 53, where 384 x 20, the default since session 33, took 87 registers, one workgroup
#      per SM, and ran 1.29x slower at 2^26; in session 20 384 x 16 was 1.23x as fast as 256 x 16, and
#      CUB's own 384 x 21 2.4x slower), u32 pairs and u64 keys likewise (their defaults, 256 x 16 for both since session 26,
#      against other shapes: u64 256 x 16 stages early beside 32-bit rows on 48 KiB since session 21;
#      the shapes that held one workgroup per SM by registers and lost in session 26, u32 448 x 16,
#      pairs 384 x 12, u64 384 x 10, are no longer swept, nor u32 256 x 16 and the match ranking, which
#      lost twice), the shapes of 1b; with each case's pipeline statistics
#      (registers: what decides how many workgroups an SM holds) in sweep/pipeline-stats.txt and the
#      table's last column.
#      (16-bit ballot rows, VKSORT_BALLOT_ROW_BITS=16, lost to 32-bit ones on H200s in sessions 20 and 26
#      and are no longer swept; CUB's own 256 x 21 lost twice too.)
#   (3c and 3d, the rolled and batched sweeps, lost at every shape on an H200 in session 33 and are no
#      longer run: bench/results/nvidia-h200_2026-11-29-session33.)
#   3e. (run after 3) Skewed inputs: u32 keys at the first sweep size, uniform, with less entropy per
#      bit (entropy:2, entropy:4) and 16 distinct keys, phases included; uniform and entropy:4 again with
#      the histogram's single counter copy (VKSORT_HISTOGRAM_REPLICAS=1, the kernel before session 27)
#      and with the ballot pass's aggregated counts (VKSORT_BALLOT_COUNT_AGGREGATE=1, an experiment for
#      skewed keys); CUB at the same entropies (skewed.md).
#   3b. u32 keys at the second of --sizes after 2 s and 8 s of warm-up (a diagnostic: an H200's clock
#      stayed at 345-675 MHz through 2^24's runs, session 20).
#   4. Where the single pass's time goes: `vksort bench --phase-clocks` (the shader clock read at the end
#      of each phase of each tile) for the same kinds at --clock-sizes, and the table of each phase's
#      share (scripts/gpu_clock_summary.py, clocks.md).
#   5. The single-pass test matrix for u32 and u64 keys (every ranking the device has).
#   6. The reduce-then-scan failure with 64-bit keys and values that NVIDIA shows and lavapipe does not
#      (H100 2026-11-26, H200 2026-11-27 to 11-29): in test_radix's u64 case the first sort with values
#      (100 keys, seed 3, the device's blocks: 128 x 8) loses keys and puts zero keys in their place,
#      after the keys-only matrix passed, while the CLI sorts the same in a process of its own right.
#      Session 33 named the scatter's subgroup variant (only with it built without subgroups did the
#      test pass), and the workaround since builds the scatter alone so on NVIDIA for 64-bit keys
#      (runtime/src/sort/radix_plain_scans.hpp). Here: the 64-bit cases with that workaround (u64, i64,
#      f64), then without it (VKSORT_RADIX_PLAIN_SCANS=none) with the runtime's pipeline cache off
#      (VKSORT_PIPELINE_STATS=1 compiles every pipeline afresh) and with the driver's shader disk cache
#      off (__GL_SHADER_DISK_CACHE=0): a pass in either says a cache hands the wrong pipeline over.
#   6a. (run first among the tests, seconds) The failing sort alone in a fresh process (test_radix's
#      "*alone" case), without the workaround, with workgroup memory dirtied before every kernel
#      (VKSORT_TEST_DIRTY_SHARED=1, DeviceOptions::pretend.dirty_shared_memory) and without: if it fails
#      only dirtied, the scatter reads workgroup memory that an earlier kernel left (the matrix's earlier
#      sorts would explain why it failed only after them); lavapipe's whole suite passes dirtied.
#   7. The other GPU-facing suites, each within --test-timeout (test_error_model: a borrowed device
#      whose application enabled full subgroups uses them, since session 24); the tests of where sorts access
#      memory: nothing written outside their ranges (test_write_bounds), nothing read or written past
#      them where they lie against unmapped pages of imported host memory (test_read_bounds: a stray
#      access is a device fault there), and ranges across a multiple of 4 GiB of device addresses
#      (test_address_boundary: it allocates 1 GiB buffers until one crosses, and says skipped where the
#      driver never lays one so). Those four (no GPU run had reached them by session 26) run before
#      stage 5; then test_brick, test_sample, test_buckets (no GPU run had reached them by session 33) and
#      the rest of test_radix(_single_pass), and stage 6 last.
#
#   scripts/gpu-check.sh --bin DIR --out OUT [--old DIR] [--mid DIR] [--bisect DIR] [--shape WxI]
#                        [--budget S] [--sizes LIST] [--clock-sizes LIST] [--sweep-sizes LIST]
#                        [--warmup-ms MS] [--repeat R] [--test-timeout S] [--skip-tests | --tests-only]
#
# --tests-only runs stages 5-7 alone, 6a first (a second call, where the first one's budget ran out
# before them).
# --old DIR: an older vksort timed beside the new one for u32 keys (stage 2). --mid DIR: a third, in
# between, timed for u32 keys and clocked (stage 4), to tell two steps' effects apart.
# --bisect DIR: builds of the commits between two that differ (scripts/prepare-device-run.sh --bisect),
# one folder each holding vksort, in the order of their names: the u32 pass kernel of each at --shape's
# workgroup x keys per invocation (default 384x20), its registers (stage 1) and time (stage 2b, rows
# bisect-NAME in experiments.md), beside this build's at that shape (row shape-WxI): which commit moved
# the registers or the time. Session 53 found the kernel at 384 x 20 grown from 78 registers to 87 between
# a2433ef and a561d33, unbisected.
#
# Sizes are lists of powers of two written 2^K (CUB runs on the even K between the first and last).
#
# DIR holds vksort and the test binaries (test_radix, test_radix_single_pass, test_brick, test_sample,
# test_buckets, test_error_model, test_write_bounds, test_read_bounds, test_address_boundary), built on
# another machine where this one has no glslc (scripts/prepare-device-run.sh
# builds them with -DVKSORT_TBB=OFF, so they need only libstdc++ and the Vulkan loader, and prints the
# call). Defaults: --budget 540 s, --sizes 2^20,2^24,2^28, --clock-sizes 2^26, --sweep-sizes 2^26, --warmup-ms 2000,
# --repeat 5, --test-timeout 60. nvidia-smi, where there is one, logs the clocks every 20 ms. Nothing
# stops at the first failure; the exit code says whether anything failed (1) and OUT/skipped.txt lists
# the stages the budget left out. CI runs it on lavapipe at tiny sizes with --skip-tests.
set -uo pipefail

bin="" out="" old="" mid="" bisect="" shape=384x20 budget=540 sizes="2^20,2^24,2^28" clock_sizes="2^26" sweep_sizes="2^26" warmup_ms=2000 repeat=5
test_timeout=60 skip_tests=0 tests_only=0
usage="usage: scripts/gpu-check.sh --bin DIR --out OUT [--old DIR] [--mid DIR] [--bisect DIR] [--shape WxI] [--budget S] [--sizes LIST] [--clock-sizes LIST] [--sweep-sizes LIST] [--warmup-ms MS] [--repeat R] [--test-timeout S] [--skip-tests | --tests-only]"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --old) old="$2"; shift 2 ;;
    --mid) mid="$2"; shift 2 ;;
    --bisect) bisect="$2"; shift 2 ;;
    --shape) shape="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --clock-sizes) clock_sizes="$2"; shift 2 ;;
    --sweep-sizes) sweep_sizes="$2"; shift 2 ;;
    --warmup-ms) warmup_ms="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --test-timeout) test_timeout="$2"; shift 2 ;;
    --skip-tests) skip_tests=1; shift ;;
    --tests-only) tests_only=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ] || [ -z "$out" ] || [ ! -x "$bin/vksort" ] || { [ -n "$old" ] && [ ! -x "$old/vksort" ]; } ||
  { [ -n "$mid" ] && [ ! -x "$mid/vksort" ]; }; then
  echo "gpu-check: --bin DIR (and --old DIR, --mid DIR) must hold vksort; --out OUT is needed" >&2
  echo "$usage" >&2
  exit 2
fi
bisect_builds=()
if [ -n "$bisect" ]; then
  [ -d "$bisect" ] || { echo "gpu-check: --bisect $bisect is not a folder" >&2; exit 2; }
  for d in "$bisect"/*/; do
    [ -x "$d/vksort" ] || { echo "gpu-check: --bisect $bisect: ${d%/} holds no vksort" >&2; exit 2; }
    bisect_builds+=("$(realpath "$d")")
  done
  [ ${#bisect_builds[@]} -gt 0 ] || { echo "gpu-check: --bisect $bisect holds no builds (one folder with vksort each)" >&2; exit 2; }
fi
[[ "$shape" =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "gpu-check: --shape is WORKGROUPxITEMS, e.g. 384x20: '$shape'" >&2; exit 2; }
shape_args="--workgroup-size ${BASH_REMATCH[1]} --items-per-thread ${BASH_REMATCH[2]}"
if [ "$skip_tests" -eq 1 ] && [ "$tests_only" -eq 1 ]; then
  echo "gpu-check: --skip-tests and --tests-only leave nothing to run" >&2
  exit 2
fi
for v in "$budget" "$warmup_ms" "$repeat" "$test_timeout"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "gpu-check: '$v' is not a whole number" >&2; exit 2; }
done
for list in "$sizes" "$clock_sizes" "$sweep_sizes"; do
  [[ "$list" =~ ^2\^[0-9]+(,2\^[0-9]+)*$ ]] || { echo "gpu-check: sizes are powers of two, 2^K,2^K,...: '$list'" >&2; exit 2; }
done
mkdir -p "$out"
bin=$(realpath "$bin") out=$(realpath "$out")
[ -n "$old" ] && old=$(realpath "$old")
[ -n "$mid" ] && mid=$(realpath "$mid")
cd "$(dirname "$0")/.." || exit 2
rm -f "$out/skipped.txt" "$out"/radix-*.json "$out"/clocks-*.json "$out/cub.json" "$out"/experiment-*.json "$out/experiments.log"
start=$(date +%s)
failed=0
# shellcheck source=scripts/gpu_pythons.sh
. scripts/gpu_pythons.sh

# The pass kernel's experiments (2b), LABEL:SWITCHES (environment assignments, space-separated): the
# ranking's rounds ordered by one subgroup control barrier on shared memory; full subgroups' lanes from
# the builtins; the two together (session 22 shipped them with an early look-back read, and the three
# took the u32 pass kernel from 78 to 97 registers: alone and together their registers tell which one
# did, or whether only both do); 32-bit rows' places moved by shared atomics (with the round barrier
# too: what an atomic's latency saves may hinge on what the barrier waits for); the per-digit
# look-back's first round reading a whole window, alone and with wider windows (Tuning::lookback_window
# 16 and 32, a `vksort bench` option: words without `=` are options). Why wider: a tile's walk has to
# pass the tiles that started within one round trip to L2 before it (about latency / tile spacing:
# session 33's 3.6-4.5 rounds a tile at a window of 8 say 15-30 of them), so its rounds are about
# that many / window; session 27's window of 32 ran 2.3x slower, but its reads then sat in local
# memory (indexed by loop counters), where now every index is a constant (docs/algorithms.md). And the
# histogram and passes reaching keys and values through pushed storage-buffer bindings instead of
# device addresses (VKSORT_BOUND_BUFFERS=1, onesweep_bound.glsl; 2-2.6x on lavapipe, where CPU drivers
# take them by default): no 64-bit address per buffer in registers, 32-bit offsets; its row's registers
# are the bound kernel's, its facts say bound_buffers 1 where the device took push descriptors; also at
# --shape (384 x 20: 87 registers through addresses in session 53, one workgroup per SM).
experiments=(
  "bound-buffers:VKSORT_BOUND_BUFFERS=1"
  "round-barrier:VKSORT_BALLOT_ROUND_BARRIER=1"
  "builtin-lanes:VKSORT_BALLOT_BUILTIN_LANES=1"
  "round-barrier-builtin-lanes:VKSORT_BALLOT_ROUND_BARRIER=1 VKSORT_BALLOT_BUILTIN_LANES=1"
  "leader-atomic:VKSORT_BALLOT_LEADER_ATOMIC=1"
  "leader-atomic-round-barrier:VKSORT_BALLOT_LEADER_ATOMIC=1 VKSORT_BALLOT_ROUND_BARRIER=1"
  "first-window:VKSORT_LOOKBACK_FIRST_WINDOW=1"
  "first-window16:VKSORT_LOOKBACK_FIRST_WINDOW=1 --lookback-window 16"
  "first-window32:VKSORT_LOOKBACK_FIRST_WINDOW=1 --lookback-window 32"
  "shape-$shape:$shape_args"
  "bound-buffers-shape-$shape:VKSORT_BOUND_BUFFERS=1 $shape_args"
)
# experiment_words SWITCHES: an experiment's environment assignments into exp_env, its vksort options
# (the other words) into exp_args.
experiment_words() {
  exp_env=() exp_args=()
  local word
  for word in $1; do
    if [[ "$word" =~ ^[A-Z_][A-Z0-9_]*= ]]; then exp_env+=("$word"); else exp_args+=("$word"); fi
  done
}

left() { echo $((budget - ($(date +%s) - start))); }
# stage NAME SECONDS: true when at least SECONDS of the budget are left, else records NAME as skipped.
stage() {
  if [ "$(left)" -lt "$2" ]; then
    echo "$1: skipped, $(left) s of the budget left" | tee -a "$out/skipped.txt"
    return 1
  fi
  echo "== $1 (t+$(($(date +%s) - start)) s)"
}
# measure_stage NAME SECONDS: a stage of measurements (1-4), which --tests-only leaves out.
measure_stage() { [ "$tests_only" -eq 0 ] && stage "$@"; }
# within LIMIT CMD...: CMD under timeout, at most LIMIT seconds and never past the budget.
within() {
  local limit="$1"
  shift
  local l
  l=$(left)
  [ "$l" -lt "$limit" ] && limit="$l"
  [ "$limit" -lt 1 ] && limit=1
  timeout "$limit" "$@"
}

smi=""
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,pstate --format=csv -lms 20 \
    >"$out/clocks.csv" 2>&1 &
  smi=$!
fi

# 1.
measure_stage "device and pipeline statistics" 30 && {
  "$bin/vksort" info >"$out/info.txt" 2>&1
  head -12 "$out/info.txt"
  partitioned=0
  grep -q 'compute ops:.*partitioned' "$out/info.txt" && partitioned=1
  kinds=("--type u32" "--type u32 --values" "--type u64")
  [ "$partitioned" -eq 1 ] && kinds+=("--type u32 --radix-scan single-pass --radix-ranking match")
  for kind in "${kinds[@]}"; do
    # shellcheck disable=SC2086 # the kind is several words
    VKSORT_PIPELINE_STATS=1 within 30 "$bin/vksort" bench --algo radix $kind --n 1M --repeat 1 --no-cpu 2>&1 |
      grep -e '^vksort: pipeline' -e 'VKSORT_PIPELINE_STATS' | sort -u
  done >"$out/pipeline-stats.txt"
  grep -e onesweep -e 'does not offer' "$out/pipeline-stats.txt" | cut -c1-300 | head -12
  # The older builds' u32 kernels too: a speed difference between builds reads against their registers
  # (session 26 timed a 1.5x gap and had only the new build's counts).
  for label in old mid; do
    dir=$([ "$label" = old ] && echo "$old" || echo "$mid")
    [ -n "$dir" ] || continue
    VKSORT_PIPELINE_STATS=1 within 30 "$dir/vksort" bench --algo radix --type u32 --n 1M --repeat 1 --no-cpu 2>&1 |
      grep -e '^vksort: pipeline' -e 'VKSORT_PIPELINE_STATS' | sort -u >"$out/pipeline-stats-$label.txt"
    grep -e onesweep_ballot "$out/pipeline-stats-$label.txt" | cut -c1-300 | sed "s/^/$label: /"
  done
  # The experiments' u32 kernels (stage 2b times them): their registers beside the default's.
  for experiment in "${experiments[@]}"; do
    label="${experiment%%:*}"
    experiment_words "${experiment#*:}"
    within 30 env "${exp_env[@]}" VKSORT_PIPELINE_STATS=1 "$bin/vksort" bench --algo radix --type u32 --n 1M \
      --repeat 1 --no-cpu "${exp_args[@]}" 2>&1 | grep -e '^vksort: pipeline' -e 'VKSORT_PIPELINE_STATS' | sort -u >"$out/pipeline-stats-$label.txt"
    grep -e onesweep_ballot "$out/pipeline-stats-$label.txt" | cut -c1-300 | sed "s/^/$label: /"
  done
  # The bisected builds' u32 kernels at --shape (timed in 2b).
  for build in "${bisect_builds[@]}"; do
    label="bisect-$(basename "$build")"
    # shellcheck disable=SC2086 # the shape's options are words
    VKSORT_PIPELINE_STATS=1 within 30 "$build/vksort" bench --algo radix --type u32 --n 1M --repeat 1 --no-cpu $shape_args 2>&1 |
      grep -e '^vksort: pipeline' -e 'VKSORT_PIPELINE_STATS' | sort -u >"$out/pipeline-stats-$label.txt"
    grep -e onesweep_ballot "$out/pipeline-stats-$label.txt" | cut -c1-300 | sed "s/^/$label: /"
  done
}
partitioned=0
grep -q 'compute ops:.*partitioned' "$out/info.txt" 2>/dev/null && partitioned=1

# 1b. The pass kernel's registers at other keys per invocation (compiled and run once at 4096 keys,
# untimed), for the shapes NVIDIA's register file favours (scripts/nvidia_occupancy.py), which the
# sweep (3) then times beside its fixed shapes. Only where the driver reports registers (not lavapipe).
if grep -q 'does not offer' "$out/pipeline-stats.txt" 2>/dev/null; then
  : >"$out/pipeline-stats-items.txt"
  echo "== pass kernel registers at 8-24 keys per invocation: the driver reports none (no model shapes)"
else measure_stage "pass kernel registers at 8-24 keys per invocation" 20 && {
  for probe in "u32:12,16,20,24" "u32 --values:12,16,20" "u64:8,12,16"; do
    IFS=, read -r -a probe_items <<<"${probe#*:}"
    for i in "${probe_items[@]}"; do
      # shellcheck disable=SC2086 # the kind is several words
      VKSORT_PIPELINE_STATS=1 within 15 "$bin/vksort" bench --algo radix --type ${probe%%:*} --radix-scan single-pass \
        --radix-ranking ballot --items-per-thread "$i" --n 4k --repeat 1 --warmup 0 --no-cpu 2>&1 | grep -e '^vksort: pipeline radix_onesweep_ballot'
    done
  done | sort -u >"$out/pipeline-stats-items.txt"
  cut -c1-200 "$out/pipeline-stats-items.txt"
}
fi
# The sweep's fixed shapes, and up to two more per kind that the model favours (none without registers).
# (u32 384 x 16 is the default again since session 53, which the sweep's "auto" case times; 384 x 20, the
# default of sessions 33-52, is timed beside it (fastest while its registers let two workgroups share an
# SM), and 320 x 20, which tied with 384 x 16 in session 53; 256 x 16 and the match ranking lost on H200s
# in sessions 20 and 26, 384 x 12, 320 x 16 and 256 x 20 in session 33, 384 x 24 in sessions 33 and 53.)
sweep_u32="384x20,320x20" sweep_pairs="256x16,384x8,256x12" sweep_u64="256x16,256x12,256x8"
model_shapes() {  # kernel, shapes already swept, count
  [ -s "$out/pipeline-stats-items.txt" ] || return 0
  "$python" scripts/nvidia_occupancy.py shapes --kernel "$1" --exclude "$2" --count "$3" "$out/pipeline-stats-items.txt" \
    "$out/pipeline-stats.txt" 2>/dev/null
}
with_model() {  # shapes, model's shapes
  if [ -n "$2" ]; then echo "$1,$2"; else echo "$1"; fi
}
sweep_u32=$(with_model "$sweep_u32" "$(model_shapes radix_onesweep_ballot_k32 "$sweep_u32,384x16" 2)")
sweep_pairs=$(with_model "$sweep_pairs" "$(model_shapes radix_onesweep_ballot_k32_v "$sweep_pairs" 1)")
sweep_u64=$(with_model "$sweep_u64" "$(model_shapes radix_onesweep_ballot_k64 "$sweep_u64" 1)")

# 2. label, binary, bench options: one JSON per kind and label, named as scripts/gpu_bench_summary.py reads them.
bench_case() {
  local file="$1" binary="$2"
  shift 2
  measure_stage "bench $(basename "$file" .json)" 20 || return 0
  local rc=0
  within 150 "$binary" bench --algo radix "$@" --n "$sizes" --dist uniform --repeat "$repeat" --warmup 1 --warmup-ms "$warmup_ms" \
    --resident --no-cpu --format json --out "$file" >"$out/bench.log" 2>&1 || rc=$?
  grep -e '^radix' "$out/bench.log"
  if [ "$rc" -ne 0 ]; then
    echo "gpu-check: $(basename "$file"): exit $rc: $(tail -1 "$out/bench.log")"
    rm -f "$file"
    failed=1
  fi
}
for kind in "keys-u32:--type u32" "pairs-u32:--type u32 --values" "keys-u64:--type u64"; do
  name="${kind%%:*}"
  # shellcheck disable=SC2086 # the kind's options are words
  bench_case "$out/radix-$name-new.json" "$bin/vksort" ${kind#*:}
  # Older builds for u32 keys only (each case of three sizes takes ~45 s, most of it the 2^28 input
  # and its CPU reference; the sweep below is worth more).
  # shellcheck disable=SC2086
  [ -n "$old" ] && [ "$name" = keys-u32 ] && bench_case "$out/radix-$name-old.json" "$old/vksort" ${kind#*:}
  # shellcheck disable=SC2086
  [ -n "$mid" ] && [ "$name" = keys-u32 ] && bench_case "$out/radix-$name-mid.json" "$mid/vksort" ${kind#*:}
done
rm -f "$out/bench.log"
# CUB on every even power of two from the smallest to the largest size.
logs=$(tr ',' '\n' <<<"$sizes" | sed 's/^2^//' | sort -n)
min_log=$(head -1 <<<"$logs") max_log=$(tail -1 <<<"$logs")
if [ "$tests_only" -eq 1 ]; then
  :
elif [ -n "$cub_python" ]; then
  measure_stage "CUB (torch.sort, cupy.sort) at 2^$min_log..2^$max_log" 30 &&
    within 90 "$cub_python" scripts/cub_anchor.py --min-log "$min_log" --max-log "$max_log" --repeat "$repeat" \
      --warmup-ms "$warmup_ms" --out "$out/cub.json"
else
  echo "no python3 with PyTorch here: CUB not timed" | tee -a "$out/skipped.txt"
fi
[ "$tests_only" -eq 0 ] && "$python" scripts/gpu_bench_summary.py "$out" | tee "$out/summary.md"

# 2b. The pass kernel's experiments against the default, u32 keys at the first sweep size.
measure_stage "the pass kernel's experiments: u32 keys at ${sweep_sizes%%,*}" 40 && {
  experiment_n="${sweep_sizes%%,*}"
  # The bisected builds at --shape, as experiments of their own binary (BUILD|LABEL:SWITCHES).
  bisect_runs=()
  for build in "${bisect_builds[@]}"; do bisect_runs+=("$build|bisect-$(basename "$build"):$shape_args"); done
  for experiment in default "${experiments[@]}" "${bisect_runs[@]}" default-again; do
    binary="$bin/vksort"
    [[ "$experiment" == *"|"* ]] && binary="${experiment%%|*}/vksort" experiment="${experiment#*|}"
    label="${experiment%%:*}" switches=""
    [[ "$experiment" == *:* ]] && switches="${experiment#*:}"
    experiment_words "$switches"
    within 30 env "${exp_env[@]}" "$binary" bench --algo radix --type u32 --n "$experiment_n" --dist uniform --repeat "$repeat" \
      --warmup 1 --warmup-ms 500 --resident --no-cpu --format json --out "$out/experiment-$label.json" "${exp_args[@]}" >>"$out/experiments.log" 2>&1 ||
      { echo "gpu-check: experiment $label: exit $?"; rm -f "$out/experiment-$label.json"; failed=1; }
  done
  "$python" scripts/gpu_experiment_summary.py "$out" | tee "$out/experiments.md"
}
# CUB's sort kernel by kernel at the largest size (torch.profiler), beside this build's phases: the
# histogram against CUB's, the passes against its Onesweep passes, and what the timed call adds.
if [ "$tests_only" -eq 0 ] && [ -n "$cub_python" ]; then
  measure_stage "CUB's kernels at 2^$max_log (torch.profiler)" 20 &&
    within 60 "$cub_python" scripts/cub_kernels.py --log "$max_log" --repeat 3 --warmup-ms 500 --out "$out/cub-kernels.json" \
      --vksort-dir "$out" | tee "$out/cub-kernels.md"
fi

# 3. The shape sweep, one size per process (see the header), with each shape's pipeline statistics.
measure_stage "shape sweep (scripts/gpu-sweep.sh) at $sweep_sizes" 40 && {
  within 200 scripts/gpu-sweep.sh --vksort "$bin/vksort" --sizes "$sweep_sizes" --windows 8 --items "" --workgroups 0 \
    --shapes "$sweep_u32" --pairs-shapes "$sweep_pairs" \
    --u64-items "" --u64-shapes "$sweep_u64" --no-match --repeat "$repeat" --warmup-ms 500 --timeout 60 --out "$out/sweep" \
    >"$out/sweep.log" 2>&1 || { echo "gpu-check: the sweep failed or ran out of time (sweep.log)"; failed=1; }
  # What came back even if the sweep ran out of time.
  "$python" scripts/gpu_sweep_summary.py "$out/sweep" >"$out/sweep/sweep.md" 2>/dev/null
  cat "$out/sweep/sweep.md"
}

# 3e. Skewed inputs (the Onesweep paper's entropy test): u32 keys at the first of --sweep-sizes, uniform
# and with less entropy per bit (the AND of 2 and 4 uniform words: 0.811 and 0.337 bits), and 16 distinct
# keys; CUB on the same entropies. Fewer distinct digits put more of a subgroup's lanes on one shared
# counter (the histogram's and the ranking's atomics) and make the look-back's digit runs uneven: the
# phases line of each case says where that costs.
measure_stage "skewed inputs: u32 keys, entropy and few unique, at ${sweep_sizes%%,*}" 40 && {
  skew_n="${sweep_sizes%%,*}"
  within 60 "$bin/vksort" bench --algo radix --type u32 --n "$skew_n" --dist uniform,entropy:2,entropy:4,few_unique:16 \
    --repeat "$repeat" --warmup 1 --warmup-ms 500 --resident --no-cpu --format json --out "$out/skewed-u32.json" \
    >"$out/skewed.log" 2>&1 || { echo "gpu-check: skewed inputs: exit $? ($(tail -1 "$out/skewed.log"))"; failed=1; }
  # The histogram with one copy of each counter (as before session 27: VKSORT_HISTOGRAM_REPLICAS=1)
  # beside the default copies, in the same run: its phase time on uniform and skewed keys.
  VKSORT_HISTOGRAM_REPLICAS=1 within 40 "$bin/vksort" bench --algo radix --type u32 --n "$skew_n" --dist uniform,entropy:4 \
    --repeat "$repeat" --warmup 1 --warmup-ms 500 --resident --no-cpu --format json --out "$out/skewed-u32-replicas1.json" \
    >>"$out/skewed.log" 2>&1 || { echo "gpu-check: skewed inputs, one histogram copy: exit $?"; failed=1; }
  # The ballot pass counting a round's first-digit group with one atomic (VKSORT_BALLOT_COUNT_AGGREGATE=1,
  # an experiment): its passes on uniform and skewed keys beside the default's.
  VKSORT_BALLOT_COUNT_AGGREGATE=1 within 40 "$bin/vksort" bench --algo radix --type u32 --n "$skew_n" --dist uniform,entropy:4 \
    --repeat "$repeat" --warmup 1 --warmup-ms 500 --resident --no-cpu --format json --out "$out/skewed-u32-aggregate.json" \
    >>"$out/skewed.log" 2>&1 || { echo "gpu-check: skewed inputs, aggregated counts: exit $?"; failed=1; }
  if [ -n "$cub_python" ]; then
    for e in 2 4; do
      within 30 "$cub_python" scripts/cub_anchor.py --min-log "${skew_n#2^}" --max-log "${skew_n#2^}" --entropy "$e" \
        --repeat "$repeat" --warmup-ms 500 --out "$out/cub-entropy$e.json" 2>&1 | grep keys-u32
    done | tee "$out/skewed-cub.txt"
  fi
  "$python" scripts/gpu_skew_summary.py "$out" | tee "$out/skewed.md"
}

# 3b. The GPU's clock at mid sizes: u32 keys at the second of --sizes after 2 s and after 8 s of
# warm-up. An H200 (session 20, clocks.csv) ran every build's 2^24 sorts at 345-675 MHz instead of
# 1980, 3x slow, histogram included: its clock fell while the host prepared the input and rose only
# slowly while runs of ~2 ms alternated with the host's submissions; 2^28 (longer runs) ran at 1980.
[[ "$sizes" == *,* ]] && measure_stage "u32 keys at ${sizes#*,} after 2 s and 8 s of warm-up" 40 && {
  second="${sizes#*,}" second="${second%%,*}"
  for warm in 2000 8000; do
    within 40 "$bin/vksort" bench --algo radix --type u32 --n "$second" --dist uniform --repeat "$repeat" --warmup 1 \
      --warmup-ms "$warm" --resident --no-cpu 2>&1 | grep -e '^radix' -e 'phases ms'
  done | tee "$out/warm-up.txt"
}

# 4. The same kinds with phase clocks (the device's default single pass), one size per process.
clock_kinds=("keys-u32:--type u32" "pairs-u32:--type u32 --values" "keys-u64:--type u64")
[ -n "$mid" ] && clock_kinds+=("keys-u32-mid:--type u32")
for kind in "${clock_kinds[@]}"; do
  name="${kind%%:*}"
  measure_stage "phase clocks $name at $clock_sizes" 20 || break
  rc=0
  clocked="$bin"
  [ "$name" = keys-u32-mid ] && clocked="$mid"
  # shellcheck disable=SC2086 # the kind's options are words
  within 90 "$clocked/vksort" bench --algo radix ${kind#*:} --radix-scan single-pass --phase-clocks --n "$clock_sizes" --dist uniform \
    --repeat 3 --warmup 1 --warmup-ms 500 --resident --no-cpu --format json --out "$out/clocks-$name.json" >"$out/clocks.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "gpu-check: phase clocks $name: exit $rc: $(tail -1 "$out/clocks.log")"
    rm -f "$out/clocks-$name.json"
    failed=1
  fi
done
rm -f "$out/clocks.log"
[ "$tests_only" -eq 0 ] && ls "$out"/clocks-*.json >/dev/null 2>&1 && "$python" scripts/gpu_clock_summary.py "$out" | tee "$out/clocks.md"

# A test binary under the budget: name, file suffix, time limit, then its arguments (env first).
run_test() {
  local t="$1" suffix="$2" limit="$3"
  shift 3
  [ -x "$bin/$t" ] || { echo "gpu-check: $bin/$t missing: not run" | tee -a "$out/skipped.txt"; return 0; }
  stage "$t $suffix (at most $limit s)" 10 || return 0
  local rc=0
  within "$limit" env "$@" >"$out/$t-$suffix.txt" 2>&1 || rc=$?
  tail -3 "$out/$t-$suffix.txt"
  if [ "$rc" -eq 124 ]; then
    echo "gpu-check: $t $suffix ran out of time"
    failed=1
  elif [ "$rc" -eq 77 ]; then
    echo "gpu-check: $t $suffix skipped (exit 77): $(grep -m1 -i "skip" "$out/$t-$suffix.txt")" | tee -a "$out/skipped.txt"
  elif [ "$rc" -ne 0 ]; then
    echo "gpu-check: $t $suffix failed (exit $rc)"
    grep -m3 -A2 "ERROR" "$out/$t-$suffix.txt"
    failed=1
  fi
}

if [ "$skip_tests" -eq 0 ]; then
  # 7a, first of the tests: the suites no GPU run has reached yet (sessions 25-26 ran out of budget
  # before them); each takes seconds.
  for t in test_error_model test_write_bounds test_read_bounds test_address_boundary; do
    run_test "$t" all "$test_timeout" "$bin/$t"
  done
  # 6a. NVIDIA's reduce-then-scan defect: the failing sort alone, first in fresh processes, without the
  # workaround, with workgroup memory dirtied before every kernel and without (seconds each).
  run_test test_radix u64-values-alone-dirty-shared 30 VKSORT_RADIX_PLAIN_SCANS=none VKSORT_TEST_DIRTY_SHARED=1 \
    "$bin/test_radix" --test-case='*alone'
  run_test test_radix u64-values-alone 30 VKSORT_RADIX_PLAIN_SCANS=none "$bin/test_radix" --test-case='*alone'
  # 5.
  run_test test_radix_single_pass u32-u64 "$((test_timeout * 2))" "$bin/test_radix_single_pass" --test-case='*sort u32,*sort u64'
fi

# 7.
if [ "$skip_tests" -eq 0 ]; then
  for t in test_brick test_sample test_buckets; do
    run_test "$t" all "$test_timeout" "$bin/$t"
  done
  run_test test_radix rest "$test_timeout" "$bin/test_radix" --test-case-exclude='*u64,*i64,*f64'
  run_test test_radix_single_pass rest "$((test_timeout * 2))" "$bin/test_radix_single_pass" --test-case-exclude='*sort u32,*sort u64'
fi

if [ "$skip_tests" -eq 0 ]; then
  # 6. With the workaround (the scatter without subgroups for 64-bit keys on NVIDIA), every 64-bit case.
  run_test test_radix u64-i64-f64 "$((test_timeout * 2))" "$bin/test_radix" --test-case='*u64,*i64,*f64'
  # Without it, and without a pipeline cache: the runtime's (statistics compile afresh), the driver's.
  # The failing sort is the u64 matrix's first with values: a run that passes it goes on through the
  # matrix, and its 30 s cut says nothing.
  run_test test_radix u64-no-workaround-no-pipeline-cache 30 VKSORT_RADIX_PLAIN_SCANS=none VKSORT_PIPELINE_STATS=1 \
    "$bin/test_radix" --test-case='*u64'
  run_test test_radix u64-no-workaround-no-disk-cache 30 VKSORT_RADIX_PLAIN_SCANS=none __GL_SHADER_DISK_CACHE=0 \
    "$bin/test_radix" --test-case='*u64'
fi

[ -n "$smi" ] && kill "$smi" 2>/dev/null
[ -f "$out/clocks.csv" ] && gzip -f "$out/clocks.csv"
echo "gpu-check: done at t+$(($(date +%s) - start)) s of $budget; exit $failed"
exit "$failed"
