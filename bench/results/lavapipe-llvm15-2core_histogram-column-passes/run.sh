#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Three rounds, each case's four binaries in turn: 0ac75e4's default radix sort (the issue's "today"),
# then the single pass of the head before this change, of variant A and of variant B (README.md).
#   run.sh TODAY_VKSORT HEAD_VKSORT A_VKSORT B_VKSORT OUT_DIR
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: run.sh TODAY HEAD A B OUT_DIR" >&2; exit 2; }
declare -A bins=([today]="$1" [head]="$2" [A]="$3" [B]="$4")
out="$5"
mkdir -p "$out"
for r in 1 2 3; do
  for kind in "keys-u32:--type u32" "pairs-u32:--type u32 --values" "keys-u64:--type u64"; do
    name=${kind%%:*}
    for n in 2^20 2^22; do
      for b in today head A B; do
        extra="--no-cpu --radix-scan single-pass"
        [ "$b" = today ] && extra=""  # (0ac75e4 has no --no-cpu; its CPU baselines do not touch the GPU time)
        # shellcheck disable=SC2086  # the kind's options and extra are words
        "${bins[$b]}" bench --algo radix ${kind#*:} --n "$n" --dist uniform --repeat 5 $extra --format json \
          --out "$out/$b-$name-n${n/^/e}-r$r.json" >/dev/null
      done
    done
  done
done
