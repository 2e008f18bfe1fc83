#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two commands. Both install the system packages, configure and build (Release, Ninja);
#   scripts/quickstart.sh bench [vksort bench options]   then benchmarks on the default device
#   scripts/quickstart.sh test  [ctest options]          then runs the whole test suite
# VKSORT_PRESET picks the preset (default: `default`; CI uses `dev`, which makes warnings errors).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  bench|test) shift ;;
  *) echo "usage: scripts/quickstart.sh bench|test [options passed on]" >&2; exit 2 ;;
esac

preset="${VKSORT_PRESET:-default}"
scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"

if [ "$mode" = bench ]; then
  exec ./build/apps/vksort/vksort bench "$@"
else
  exec ctest --preset "$preset" "$@"
fi
