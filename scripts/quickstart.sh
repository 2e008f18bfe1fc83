#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two commands. Both install the system packages, configure and build (Release, Ninja);
#   scripts/quickstart.sh bench [vksort bench options]   then benchmarks on the default device
#   scripts/quickstart.sh test  [ctest options]          then runs the whole test suite
# VKSORT_PRESET picks the preset (default: `default`; CI uses `dev`, which makes warnings errors); bench
# runs the vksort that preset built, in its own build folder.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  bench|test) shift ;;
  *) echo "usage: scripts/quickstart.sh bench|test [options passed on]" >&2; exit 2 ;;
esac

preset="${VKSORT_PRESET:-default}"
scripts/install-deps.sh
# The preset's build folder as CMake resolved it (its binaryDir: build/, build-debug/, ...), so that
# bench runs the binary this preset built (it ran build/'s, whatever VKSORT_PRESET chose).
configured=$(cmake --preset "$preset") || { printf '%s\n' "$configured" >&2; exit 1; }
build_dir=$(sed -n 's/^-- Build files have been written to: //p' <<<"$configured" | tail -n 1)
if [ -z "$build_dir" ]; then
  echo "quickstart: cannot tell where preset '$preset' builds (no 'Build files have been written to' from CMake)" >&2
  exit 1
fi
cmake --build --preset "$preset"

if [ "$mode" = bench ]; then
  exec "$build_dir/apps/vksort/vksort" bench "$@"
else
  exec ctest --preset "$preset" "$@"
fi
