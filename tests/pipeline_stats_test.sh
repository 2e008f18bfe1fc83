#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# VKSORT_PIPELINE_STATS (runtime/src/gpu/pipeline_statistics.hpp) through the CLI, validated: a radix
# sort with it on is still checked against the CPU reference, and
#   supported:   on a device with VK_KHR_pipeline_executable_properties every radix pipeline built gets
#                a line with at least one statistic (skipped, exit 77, where the device lacks it);
#   unsupported: on a device without it, one line says so and no pipeline line is made up (skipped
#                where the device has it).
# Without the variable, neither kind of line appears.
# Usage: pipeline_stats_test.sh VKSORT supported|unsupported
set -euo pipefail
vksort=$1 mode=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck source=validation_flag.sh
source "$(dirname "$0")/validation_flag.sh"
run() {  # sanitizer builds hand over their LD_PRELOAD for vksort alone (tests/CMakeLists.txt)
  LD_PRELOAD="${VKSORT_TEST_PRELOAD:-${LD_PRELOAD:-}}" "$vksort" bench --algo radix --n 5000 --repeat 1 --no-cpu "${validation[@]}"
}
VKSORT_PIPELINE_STATS=0 run >"$dir/off" 2>&1 || { cat "$dir/off"; echo "the sort failed without statistics"; exit 1; }
if grep -q -e '^vksort: pipeline ' -e 'VKSORT_PIPELINE_STATS' "$dir/off"; then
  cat "$dir/off"; echo "statistics lines without VKSORT_PIPELINE_STATS"; exit 1
fi
VKSORT_PIPELINE_STATS=1 run >"$dir/on" 2>&1 || { cat "$dir/on"; echo "the sort failed with VKSORT_PIPELINE_STATS=1"; exit 1; }
if grep -q 'does not offer VK_KHR_pipeline_executable_properties' "$dir/on"; then
  [ "$mode" = unsupported ] || { echo "skipped: the device lacks VK_KHR_pipeline_executable_properties"; exit 77; }
  if grep -q '^vksort: pipeline ' "$dir/on"; then cat "$dir/on"; echo "pipeline lines from a device without statistics"; exit 1; fi
  [ "$(grep -c 'does not offer' "$dir/on")" = 1 ] || { cat "$dir/on"; echo "said more than once"; exit 1; }
  echo "ok: the device lacks the extension, said so once, and sorted"
  exit 0
fi
[ "$mode" = supported ] || { echo "skipped: the device offers VK_KHR_pipeline_executable_properties"; exit 77; }
# "vksort: pipeline NAME (workgroup W, ...): STAT VALUE; ..." with at least one statistic, for radix kernels.
grep -E '^vksort: pipeline [a-z0-9_]*(radix|onesweep)[a-z0-9_]* \(workgroup [0-9]+.*\)( \[.*\])?: [^(]' "$dir/on" ||
  { cat "$dir/on"; echo "no radix pipeline reported a statistic"; exit 1; }
