#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_segmented's command line: bad numbers exit 2 with a message before any work (they ended in an
# uncaught exception, wrapped to 2^64 - 5, or overflowed K x SIZE and ran away), an unwritable --json
# is refused before the benchmark, and a tiny run writes JSON that parses and names every method.
#   usage: bench_segmented_test.sh <bench_segmented executable> <python with json>
set -u
bench="$1" python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
refused() {  # refused NEEDLE ARGS...: exit 2, NEEDLE in the message, nothing on stdout
  local needle="$1"
  shift
  local out err rc
  out="$(timeout 60 "$bench" "$@" 2>"$work/err")"
  rc=$?
  err="$(cat "$work/err")"
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$needle" <<<"$err" || [ -n "$out" ]; then
    echo "FAIL: bench_segmented $* gave exit $rc, stdout '$out', stderr '$err' (wanted exit 2 and '$needle')"
    fail=1
  fi
}
refused "--n" --n abc
refused "-5 is negative" --n -5
refused "2147483647" --n 3000000000
refused "--large K:SIZE takes two whole numbers" --large 2:
refused "must leave keys" --large 4294967296:4294967296
refused "--max 3 is less than --min 5" --max 3 --min 5
refused "--large=: the option --large has an empty value" --large= --n 100  # CLI11 took --n as the value
refused "the option --json has an empty value" --json "" --n 100  # wrote nothing, exit 0
refused "bogus" --methods loop,bogus
refused "has an empty item" --methods segmented,,loop --n 100  # ran two methods, exit 0
refused "folder '$work/nodir' does not exist" --json "$work/nodir/x.json"
refused "is a folder" --json "$work"
timeout 300 "$bench" --n 3000 --min 8 --max 300 --repeat 1 --methods segmented,loop,pairs --json "$work/r.json" >"$work/out" ||
  { echo "FAIL: the tiny run failed:"; cat "$work/out"; fail=1; }
"$python" - "$work/r.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
methods = [r["method"] for r in doc["results"]]
assert doc["n"] == 3000 and methods == ["segmented", "loop", "pairs"], doc
assert all(r["gpu_ms"] > 0 for r in doc["results"]), doc
PY
[ "$fail" -eq 0 ] && echo "bench_segmented: bad input refused, a tiny run checked and written"
exit "$fail"
