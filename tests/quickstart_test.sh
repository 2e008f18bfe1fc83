#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/quickstart.sh bench runs the vksort of the preset it built: with VKSORT_PRESET=debug (or asan,
# shared, ...) it built build-debug/ but ran build/apps/vksort/vksort, another build or none. Checked on
# a stand-in project (real CMake presets and configure, the package install left out), in seconds.
#   usage: quickstart_test.sh [QUICKSTART_SCRIPT, default: scripts/quickstart.sh]
set -u
script="${1:-$(cd "$(dirname "$0")/../scripts" && pwd)/quickstart.sh}"
work="$(realpath "$(mktemp -d)")"  # as CMake names it
trap 'rm -rf "$work"' EXIT
mkdir "$work/scripts"
cp "$script" "$work/scripts/quickstart.sh"
printf '#!/bin/sh\nexit 0\n' >"$work/scripts/install-deps.sh"  # no packages installed here
chmod +x "$work/scripts/install-deps.sh"
cat >"$work/CMakePresets.json" <<'JSON'
{
  "version": 4,
  "configurePresets": [
    {"name": "default", "binaryDir": "${sourceDir}/build", "generator": "Ninja"},
    {"name": "dev", "inherits": "default"},
    {"name": "debug", "inherits": "dev", "binaryDir": "${sourceDir}/build-debug"}
  ],
  "buildPresets": [
    {"name": "default", "configurePreset": "default"},
    {"name": "dev", "configurePreset": "dev"},
    {"name": "debug", "configurePreset": "debug"}
  ]
}
JSON
# Each build folder gets a "vksort" that says which folder it is in and what it was asked.
cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(quickstart_stand_in NONE)
file(WRITE ${CMAKE_BINARY_DIR}/apps/vksort/vksort "#!/bin/sh\necho \"vksort of ${CMAKE_BINARY_DIR}: $*\"\n")
file(CHMOD ${CMAKE_BINARY_DIR}/apps/vksort/vksort PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
CMAKE
fail=0
expect() {  # expect PRESET FOLDER: quickstart bench under VKSORT_PRESET=PRESET runs FOLDER's vksort
  local got
  got="$(cd / && VKSORT_PRESET="$1" timeout 120 bash "$work/scripts/quickstart.sh" bench --n 2^10 2>&1 | tail -n 1)"
  if [ "$got" != "vksort of $work/$2: bench --n 2^10" ]; then
    echo "FAIL: VKSORT_PRESET=$1 quickstart.sh bench: '$got' (wanted the vksort of $2/)"
    fail=1
  fi
}
expect debug build-debug  # first, so that no build/ exists to run by mistake
expect dev build
expect default build
[ "$fail" -eq 0 ] && echo "quickstart.sh bench: each preset's own vksort runs"
exit "$fail"
