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
# refused NEEDLE ARGS...: exit 2, NEEDLE in a one-line message (no traceback), no chart written.
refused() {
  local needle="$1" code
  shift
  set +e
  "$python" "$script" "$@" --prefix refused_ >/dev/null 2>"$dir/err"
  code=$?
  set -e
  if [ $code != 2 ] || ! grep -qF -- "$needle" "$dir/err" || [ "$(wc -l <"$dir/err")" != 1 ] ||
    [ -n "$(find "$dir" -name 'refused_*')" ]; then
    echo "plot_bench.py $*: exit $code, expected 2 and '$needle' in one line: $(cat "$dir/err")"
    exit 1
  fi
}
# Bench files bent out of shape: a traceback each before (AttributeError, KeyError, TypeError, ...).
"$python" - "$dir/r.json" "$dir" <<'PY'
import copy, json, sys
doc = json.load(open(sys.argv[1]))
def bent(name, change):
    d = copy.deepcopy(doc)
    change(d)
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
bent("device_string", lambda d: d.update(device="x"))
bent("results_number", lambda d: d.update(results=5))
bent("no_distribution", lambda d: d["results"][0].pop("distribution"))
bent("gpu_ms_string", lambda d: d["results"][0].update(gpu_ms={"median": "fast"}))
bent("samples_string", lambda d: d["results"][0].update(algorithm="sample", facts={"samples": "q"}))
# A device without timestamps: gpu_ms (and what follows from it) null everywhere; before, four empty charts and exit 0.
bent("untimed", lambda d: [c.update(gpu_ms=None, mkeys_per_s=None, roofline_fraction=None,
                                   phases_ms={k: None for k in c["phases_ms"]}) for c in d["results"]])
PY
refused "('device' is no object" "$dir/device_string.json" --out "$dir/charts"
refused "('results' is no list)" "$dir/results_number.json" --out "$dir/charts"
refused "'distribution' is no string" "$dir/no_distribution.json" --out "$dir/charts"
refused "'gpu_ms' is no {median, min, max}" "$dir/gpu_ms_string.json" --out "$dir/charts"
refused "'facts' are no" "$dir/samples_string.json" --out "$dir/charts"
refused "no GPU times in $dir/untimed.json" "$dir/untimed.json" --out "$dir/charts"
# An output folder that cannot take a file: refused before any chart is drawn.
refused "--out /proc/nope: cannot write a file there" "$dir/r.json" --out /proc/nope
refused "--out $dir/r.json: not a folder" "$dir/r.json" --out "$dir/r.json"
# A chart that fails to write (here the last, as on a full disk) leaves the folder as it was: the charts
# drawn before it do not replace the old ones, and no temporary file stays.
"$python" - "$script" "$dir/r.json" "$dir/charts" <<'PY'
import errno, importlib.util, os, sys
spec = importlib.util.spec_from_file_location("plot_bench", sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
before = {name: open(os.path.join(sys.argv[3], name), "rb").read() for name in os.listdir(sys.argv[3])}
def full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")
plot.phases_figure = full
sys.argv = ["plot_bench.py", sys.argv[2], "--out", sys.argv[3], "--prefix", "t_"]
try:
    plot.main()
    sys.exit("a failed chart: plot_bench.py exited 0")
except SystemExit as e:
    assert e.code == 1, f"a failed chart: exit {e.code}, expected 1"
after = {name: open(os.path.join(sys.argv[3], name), "rb").read() for name in os.listdir(sys.argv[3])}
assert after == before, f"a failed chart changed the folder: {sorted(before)} -> {sorted(after)}"
PY
# How the charts read: colours per configuration across panels, distinct phases, legends off the data.
"$python" "$(dirname "$0")/plot_styles_test.py" "$script"
echo "plot_bench.py: 4 charts written and checked"
