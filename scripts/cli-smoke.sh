#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI as a user runs it (for builds without the doctest suites, e.g. a shared libvksort): `info`
# names the version, and `sort` turns random u32 keys into their sorted permutation.
#   scripts/cli-smoke.sh <path to the vksort executable>
set -euo pipefail
cli="${1:?usage: scripts/cli-smoke.sh <vksort executable>}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
info="$("$cli" info)"
grep -E -q '^vksort [0-9]+\.[0-9]+\.[0-9]+' <<<"$info"
head -c $((4 * 100003)) /dev/urandom >"$work/in.bin"
"$cli" sort --type u32 "$work/in.bin" "$work/out.bin"
words() { od -An -v -tu4 -w4 "$1" | tr -d ' '; }
words "$work/out.bin" | sort -n -c                                  # ascending
cmp <(words "$work/in.bin" | sort -n) <(words "$work/out.bin")      # the same keys
echo "cli-smoke: OK"
