#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_external's command line: bad numbers exit 2 with a message before any work ("abc" meant 0, "1q"
# meant 1, "-5" ended in std::length_error), a bad --dir or --json is refused before the benchmark (an
# unwritable --json was ignored, --dir /proc/nope aborted), a library error (a device too small) exits 2
# with the library's message instead of aborting, and no run leaves its work folder behind (a failed one
# left 64 MiB in DIR). A tiny run writes JSON that parses, and removes the work folder of a run that a
# signal ended (its process gone), but not one whose process lives, nor a folder of another name;
# SIGTERM and SIGHUP remove the run's own folder. Sizes print in units that fit ("128 KiB", not "0 MiB").
#   usage: bench_external_test.sh <bench_external executable> <python with json>
set -u
bench="$1" python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/dir"
: >"$work/file"
fail=0
refused() {  # refused NEEDLE ARGS...: exit 2, NEEDLE in the message, nothing on stdout, nothing left in DIR
  local needle="$1"
  shift
  local out err rc dir=(--dir "$work/dir")
  [[ " $* " == *" --dir "* ]] && dir=()
  out="$(timeout 60 "$bench" "${dir[@]}" "$@" 2>"$work/err")"
  rc=$?
  err="$(cat "$work/err")"
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$needle" <<<"$err" || [ -n "$out" ]; then
    echo "FAIL: bench_external $* gave exit $rc, stdout '$out', stderr '$err' (wanted exit 2 and '$needle')"
    fail=1
  fi
  if [ -n "$(ls -A "$work/dir")" ]; then
    echo "FAIL: bench_external $* left $(ls -A "$work/dir") in --dir"
    rm -rf "${work:?}/dir/"*
    fail=1
  fi
}
refused "abc is not a count" --n abc
refused "-5 is not a count" --n -5
refused "1q is not a count" --n 1q
refused "0 is not at least 1" --n 0
refused "--repeat" --repeat abc
refused "--repeat" --repeat 0
refused "--overlap" --overlap 2
refused "--type" --type i8
refused "--type=: the option --type has an empty value" --type= --n 100  # CLI11 took --n as the value
refused "the option --json has an empty value" --json "" --n 1000  # wrote nothing, exit 0
refused "the option --dir has an empty value" --dir "" --n 1000
refused "--device-memory" --device-memory 1x
refused "folder '$work/nodir' does not exist" --json "$work/nodir/x.json"
refused "is a folder" --json "$work"
refused "--dir $work/nodir: no such folder" --n 1000 --repeat 1 --dir "$work/nodir"
refused "--dir $work/file: no such folder" --n 1000 --repeat 1 --dir "$work/file"
out="$(TMPDIR="$work/nodir" timeout 60 "$bench" --n 1000 --repeat 1 2>&1)"
rc=$?
[ "$rc" -eq 2 ] && grep -qF "no temporary folder" <<<"$out" || { echo "FAIL: TMPDIR of no folder: exit $rc, '$out'"; fail=1; }
# An empty TMPDIR is unset (it was taken for a folder named "": "no temporary folder"): TMP is next.
mkdir -p "$work/tmp"
out="$(TMPDIR= TMP="$work/tmp" timeout 60 "$bench" --n 1000 --repeat 1 2>&1)" || { echo "FAIL: empty TMPDIR: '$out'"; fail=1; }
[ -z "$(ls -A "$work/tmp")" ] || { echo "FAIL: the run with an empty TMPDIR left $(ls -A "$work/tmp")"; fail=1; }
# The library refuses a device that holds no key: its message, exit 2, and in.bin removed.
refused "cannot hold a run of 64 u32 keys" --n 1000 --device-memory 1 --repeat 1
[ -e "$work/x.json" ] && { echo "FAIL: a refused run wrote JSON"; fail=1; }
timeout 120 "$bench" --n 64k --device-memory 128k --memory 1M --repeat 1 --dir "$work/dir" --json "$work/r.json" >"$work/out" ||
  { echo "FAIL: the tiny run failed:"; cat "$work/out"; fail=1; }
[ -z "$(ls -A "$work/dir")" ] || { echo "FAIL: the tiny run left $(ls -A "$work/dir") in --dir"; fail=1; }
grep -qF "pretend device memory 128 KiB, host budget 1 MiB" "$work/out" || { echo "FAIL: sizes: $(head -1 "$work/out")"; fail=1; }
# Folders as a killed run leaves them: one of a process that has ended (a child reaped), one of this
# shell (alive), one of another name.
sleep 0 &
dead=$!
wait "$dead"
for name in "vksort-bench-external-$dead" "vksort-bench-external-$$" "vksort-bench-external-x1"; do
  mkdir "$work/dir/$name" && echo data >"$work/dir/$name/in.bin"
done
timeout 120 "$bench" --n 1000 --device-memory 128k --memory 1M --repeat 1 --dir "$work/dir" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: the run beside abandoned folders failed:"; cat "$work/out" "$work/err"; fail=1; }
[ -e "$work/dir/vksort-bench-external-$dead" ] && { echo "FAIL: the ended run's folder is still there"; fail=1; }
grep -qF "removed $work/dir/vksort-bench-external-$dead" "$work/err" || { echo "FAIL: no word of the removal: $(cat "$work/err")"; fail=1; }
for name in "vksort-bench-external-$$" "vksort-bench-external-x1"; do
  [ -e "$work/dir/$name/in.bin" ] || { echo "FAIL: $name was removed"; fail=1; }
done
# SIGTERM and SIGHUP (and SIGINT, which a script's background job ignores) remove the work folder (a
# whole copy of the input) before the process dies of the signal; it was left for the next run in DIR.
# Sent once in.bin exists, and a little later (copies, std::sort or the sort itself).
# A run that ended before the signal came (a quiet machine sorts 2M keys within the delay) proves
# nothing: it is run again with 4x the keys, and only a run the signal reached is judged. A run that
# exits 0 ended on its own (a finished process not yet reaped still takes the kill): a run the signal
# reaches dies of it, or exits 128 + the signal.
mkdir "$work/sig"
for sig in TERM HUP; do
  signalled=0
  for n in 2M 8M 32M; do
    "$bench" --n "$n" --device-memory 1M --memory 1M --repeat 1 --dir "$work/sig" >"$work/out" 2>&1 &
    pid=$!
    for _ in $(seq 400); do [ -e "$work/sig/vksort-bench-external-$pid/in.bin" ] && break; sleep 0.05; done
    [ "$sig" = HUP ] && sleep 0.5
    kill -s "$sig" "$pid" 2>/dev/null && signalled=1
    wait "$pid"
    rc=$?
    [ "$rc" -eq 0 ] && signalled=0
    [ "$signalled" -eq 1 ] && break
  done
  [ "$signalled" -eq 1 ] || { echo "FAIL: SIG$sig: every run ended before the signal (32M keys included)"; fail=1; }
  [ "$rc" -gt 128 ] || { echo "FAIL: SIG$sig: exit $rc, not death by the signal: $(cat "$work/out")"; fail=1; }
  [ -z "$(ls -A "$work/sig")" ] || { echo "FAIL: SIG$sig left $(ls -A "$work/sig")"; rm -rf "${work:?}/sig/"*; fail=1; }
done
"$python" - "$work/r.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["n"] == 65536 and doc["type"] == "u32" and doc["runs"] > 1 and doc["repeat"] == 1, doc
assert doc["seconds"]["total"] > 0, doc
PY
[ "$fail" -eq 0 ] && echo "bench_external: bad input refused, nothing left behind, a tiny run checked and written"
exit "$fail"
