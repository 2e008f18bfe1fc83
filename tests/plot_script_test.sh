#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/plot_bench.py on a real `vksort bench` JSON: four PNG files that are PNGs and not empty
# charts, a clear exit 2 on input that is not a bench file, and the styles plot_styles_test.py checks.
# Usage: plot_script_test.sh VKSORT PYTHON PLOT_SCRIPT
set -euo pipefail
vksort=$1 python=$2 script=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck source=validation_flag.sh
source "$(dirname "$0")/validation_flag.sh"
# Sanitizer builds hand over their LD_PRELOAD for vksort alone (tests/CMakeLists.txt).
LD_PRELOAD="${VKSORT_TEST_PRELOAD:-${LD_PRELOAD:-}}" "$vksort" bench --n 2000,4000 --dist uniform,sorted --algo radix,brick --repeat 1 --out "$dir/r.json" "${validation[@]}" >/dev/null
"$python" "$script" "$dir/r.json" --out "$dir/charts" --prefix t_ >"$dir/listing"
for name in time_vs_n rate_vs_n roofline phases; do
  png="$dir/charts/t_$name.png"
  grep -qx "$png" "$dir/listing" || { echo "not listed: $png"; exit 1; }
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "not a PNG: $png"; exit 1; }
  # A chart with lines and labels compresses to well over 10 kB; an empty canvas to a few.
  size=$(stat -c %s "$png")
  [ "$size" -gt 10000 ] || { echo "suspiciously small ($size bytes): $png"; exit 1; }
done
echo '{"something": "else"}' >"$dir/foreign.json"
set +e
"$python" "$script" "$dir/foreign.json" --out "$dir/charts" 2>"$dir/err"
code=$?
set -e
[ $code = 2 ] || { echo "foreign input: exit $code, expected 2"; exit 1; }
grep -q "not a vksort bench JSON" "$dir/err" || { echo "foreign input: unclear message: $(cat "$dir/err")"; exit 1; }
# How the charts read: colours per configuration across panels, distinct phases, legends off the data.
"$python" "$(dirname "$0")/plot_styles_test.py" "$script"
echo "plot_bench.py: 4 charts written and checked"
