#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU measurement scripts (gpu-bench.sh, gpu-sweep.sh, compare-radix.sh) run from another folder with
# relative paths, at 2^10 keys: the binary and the output folder are the caller's, not the repository's
# (they resolved against the repository root, so a relative --out emptied radix-*.json or sweep-*.json
# inside the source tree). gpu-bench.sh refuses an unknown --paths name (it ran nothing and exited 0).
#   usage: gpu_scripts_test.sh <vksort executable>
set -u
[ -x "${1:-}" ] || { echo "usage: gpu_scripts_test.sh VKSORT (an executable)" >&2; exit 2; }
bin="$(realpath "$1")"
scripts="$(cd "$(dirname "$0")/../scripts" && pwd)"
repo="$(dirname "$scripts")"
work="$(mktemp -d)"
name="vksort-gpu-scripts-test-$$"  # the relative output folder; must not appear in the repository
trap 'rm -rf "$work" "${repo:?}/$name"' EXIT
mkdir "$work/cwd"
cd "$work/cwd" || exit 1
vksort="$(realpath --relative-to=. "$bin")"  # relative to the working folder
fail=0
check() {  # check SCRIPT FILE...: the files exist under ./$name, nothing under the repository's $name
  local script="$1" f
  shift
  for f in "$@"; do
    [ -s "$name/$f" ] || { echo "FAIL: $script did not write $name/$f under the working folder"; fail=1; }
  done
  if [ -e "$repo/$name" ]; then
    echo "FAIL: $script wrote into the repository: $(ls "$repo/$name")"
    rm -rf "${repo:?}/$name"
    fail=1
  fi
  rm -rf "$name"
}
timeout 300 bash "$scripts/gpu-bench.sh" --vksort "$vksort" --min-log 10 --max-log 10 --repeat 1 --warmup-ms 0 --paths auto \
  --out "$name/bench" >"$work/log" 2>&1 || { echo "FAIL: gpu-bench.sh:"; cat "$work/log"; fail=1; }
check gpu-bench.sh bench/radix-keys-u32-auto.json bench/radix-pairs-u32-auto.json bench/radix-keys-u64-auto.json bench/summary.md
timeout 300 bash "$scripts/gpu-sweep.sh" --vksort "$vksort" --sizes 2^10 --windows 1 --items 0 --workgroups 0 --u64-items "" \
  --repeat 1 --warmup-ms 0 --out "$name/sweep" >"$work/log" 2>&1 || { echo "FAIL: gpu-sweep.sh:"; cat "$work/log"; fail=1; }
check gpu-sweep.sh sweep/sweep-u32-auto.json sweep/sweep.md
timeout 300 bash "$scripts/compare-radix.sh" "$vksort" "$vksort" "$name/compare" 2^10 1 1 >"$work/log" 2>&1 ||
  { echo "FAIL: compare-radix.sh:"; cat "$work/log"; fail=1; }
check compare-radix.sh compare/old-keys-u32-n2e10.json compare/single-pass-keys-u64-n2e10.json compare/summary.md
refused() {  # refused NEEDLE COMMAND...: exit 2 with NEEDLE in the message
  local needle="$1" rc
  shift
  timeout 60 "$@" >/dev/null 2>"$work/err"
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$needle" "$work/err"; then
    echo "FAIL: $* gave exit $rc, stderr '$(cat "$work/err")' (wanted exit 2 and '$needle')"
    fail=1
  fi
}
refused "unknown path 'nosuch'" bash "$scripts/gpu-bench.sh" --vksort "$vksort" --paths auto,nosuch --out "$name/bench"
refused "no such program" bash "$scripts/gpu-bench.sh" --vksort ./nosuch/vksort --out "$name/bench"
refused "no such program" bash "$scripts/compare-radix.sh" ./nosuch/vksort "$vksort" "$name/compare"
[ -e "$name" ] || [ -e "$repo/$name" ] && { echo "FAIL: a refused run made an output folder"; fail=1; }
[ "$fail" -eq 0 ] && echo "gpu-bench.sh, gpu-sweep.sh, compare-radix.sh: relative paths are the caller's; unknown paths refused"
exit "$fail"
