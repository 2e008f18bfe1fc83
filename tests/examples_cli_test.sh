#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The embedding examples' command lines: numbers are read whole and within 32 bits (strtoul read
# "--n 4294967297" as 1, "1000abc" as 1000 and "--frames -1" as 2^32 - 1, and ran), each refused with
# exit 2 and the usage line before any device is opened; splat_sort_example's --json is checked before
# the frames run (an unwritable one was reported only after them) and written whole, with no temporary
# file left beside it.
#   usage: examples_cli_test.sh <embed_example> <splat_sort_example> <python with json>
set -u
embed="$1" splat="$2" python="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
json="$work/json"  # --json's folder: nothing else in it
mkdir "$json"
fail=0
refused() {  # refused NEEDLE PROGRAM ARGS...: exit 2, NEEDLE on stderr, nothing on stdout (no device opened)
  local needle="$1" program="$2" out err rc
  shift 2
  out="$(timeout 60 "$program" "$@" 2>"$work/err")"
  rc=$?
  err="$(cat "$work/err")"
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$needle" <<<"$err" || [ -n "$out" ]; then
    echo "FAIL: $(basename "$program") $* gave exit $rc, stdout '$out', stderr '$err' (wanted exit 2 and '$needle')"
    fail=1
  fi
}
for n in 4294967297 1000abc -1 "" " 5" +5 0x10; do
  refused "usage: embed_example" "$embed" --n "$n"
done
refused "usage: embed_example" "$embed" --key-bits 4294967312  # 2^32 + 16
for flag in --splats --frames --width --height; do
  for v in 4294967297 1000abc -1 ""; do
    refused "usage: splat_sort_example" "$splat" "$flag" "$v"
  done
done
# An empty --device or --json (a script's unset variable) names nothing: the default device ran, exit 0.
refused "usage: embed_example" "$embed" --device ""
refused "usage: splat_sort_example" "$splat" --device ""
refused "usage: splat_sort_example" "$splat" --json ""
refused "--json: cannot write $json/nodir/r.json" "$splat" --splats 1000 --frames 1 --json "$json/nodir/r.json"
refused "--json: $json is a folder" "$splat" --splats 1000 --frames 1 --json "$json"
[ -z "$(ls -A "$json")" ] || { echo "FAIL: refused runs left $(ls -A "$json")"; fail=1; }
# A tiny run replaces an old --json whole, and leaves nothing else in its folder.
echo old >"$json/r.json"
timeout 120 "$splat" --splats 2000 --frames 1 --json "$json/r.json" >"$work/out" 2>&1 ||
  { echo "FAIL: the tiny splat run failed:"; cat "$work/out"; fail=1; }
[ "$(ls -A "$json")" = r.json ] || { echo "FAIL: the tiny splat run left $(ls -A "$json")"; fail=1; }
"$python" - "$json/r.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["splats"] == 2000 and doc["frames"] == 1 and doc["sort_ms_median"] >= 0, doc
PY
[ "$fail" -eq 0 ] && echo "embed_example, splat_sort_example: bad numbers and --json refused up front; JSON written whole"
exit "$fail"
