#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the consumer projects of tests/consumer the way a third party would: copied outside
# the source tree, against an installed vksort, a vksort source checkout, or the Debian package.
#
#   scripts/consumer-test.sh install <build dir> <prefix>   cmake --install, then find_package and pkg-config consumers
#   scripts/consumer-test.sh subdirectory                     the add_subdirectory consumer (builds the library itself)
#   scripts/consumer-test.sh deb <build dir>                  cpack -G DEB, check the package, unpack it (dpkg -x),
#                                                             then the find_package and pkg-config consumers
# Work folders go to $VKSORT_CONSUMER_WORK (default /tmp/vksort-consumer). Exits non-zero on any failure.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${VKSORT_CONSUMER_WORK:-/tmp/vksort-consumer}"
jobs="${VKSORT_JOBS:-2}"

usage() { echo "usage: scripts/consumer-test.sh install <build dir> <prefix> | subdirectory | deb <build dir>" >&2; exit 2; }

# A fresh copy of tests/consumer outside the tree, so nothing can reach vksort's sources by a relative path.
copy_consumers() {
  rm -rf "$work/src"
  mkdir -p "$work/src"
  cp -r "$repo/tests/consumer/." "$work/src/"
}

# find_package(vksort) against <prefix>, then the same program built by hand from vksort.pc.
consume_prefix() {
  local prefix="$1" name="$2"
  echo "== find_package consumer against $prefix =="
  rm -rf "$work/build-$name"
  cmake -S "$work/src/find_package" -B "$work/build-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/build-$name" -j"$jobs"
  "$work/build-$name/consumer"
  "$work/build-$name/consumer_noexcept"  # built with -fno-exceptions
  # vksort::mpi where the install has it: two ranks on this machine (Open MPI wants consent for root).
  if [ -x "$work/build-$name/consumer_mpi" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
      mpiexec -n 2 --oversubscribe "$work/build-$name/consumer_mpi"
  fi

  echo "== pkg-config consumer against $prefix =="
  local pc_dir
  pc_dir="$(dirname "$(find "$prefix" -name vksort.pc | head -n1)")"
  # A static libvksort needs its private dependencies on the link line (pkg-config --static).
  local flags static=""
  if [ -n "$(find "$prefix" -name libvksort.a | head -n1)" ]; then static=--static; fi
  flags="$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs $static vksort)"
  echo "pkg-config: $flags"
  # shellcheck disable=SC2086  # the flags are words
  c++ -std=c++20 -O1 "$work/src/consumer.cpp" -o "$work/pkgconfig-$name" $flags -Wl,-rpath,"$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=libdir vksort)"
  "$work/pkgconfig-$name"

  check_headers "$prefix/include"
  check_static_symbols "$prefix"
  check_components "$prefix"
}

# The public headers as a project compiles them with a plain -I (CMake consumers get -isystem, which hides
# warnings and once hid a clang-only error): every header, -fno-exceptions, warnings as errors, with g++
# and with clang++ where it is installed (scripts/install-deps.sh installs it; otherwise a loud SKIPPED).
# Then the language check: at -std=c++17 the first error is vksort's "needs C++20".
check_headers() {
  local include="$1" tu="$work/headers.cpp" header cxx out first
  : >"$tu"
  for header in "$include"/vksort/*.hpp; do
    [ "$(basename "$header")" = mpi.hpp ] && continue  # needs <mpi.h>: consumer_mpi compiles it
    echo "#include \"vksort/$(basename "$header")\"" >>"$tu"
  done
  for cxx in g++ clang++; do
    if ! command -v "$cxx" >/dev/null; then
      echo "== public headers with $cxx: SKIPPED ($cxx is not installed; scripts/install-deps.sh installs it) =="
      continue
    fi
    echo "== public headers with $cxx -std=c++20 -fno-exceptions -I$include, and -std=c++17 refused =="
    "$cxx" -std=c++20 -fno-exceptions -Wall -Wextra -Werror -fsyntax-only -I"$include" "$tu"
    if out="$("$cxx" -std=c++17 -fsyntax-only -I"$include" "$tu" 2>&1)"; then
      echo "consumer-test: $cxx -std=c++17 compiled vksort's headers (no language check)" >&2
      exit 1
    fi
    first="$(grep -m1 ' error: ' <<<"$out" || true)"
    if ! grep -q 'vksort needs C++20' <<<"$first"; then
      echo "consumer-test: $cxx -std=c++17: the first error is not vksort's language check: $first" >&2
      exit 1
    fi
  done
}

# Every installed static archive defines only vksort's own global names (scripts/check-exports.sh).
check_static_symbols() {
  local archive found=""
  while IFS= read -r archive; do
    found=1
    "$repo/scripts/check-exports.sh" "$archive"
  done < <(find "$1" -name 'libvksort*.a')
  [ -n "$found" ] || echo "== no static archive under $1: symbol check not needed =="
}

# find_package(vksort REQUIRED COMPONENTS ...) that cannot be satisfied says which component and why.
check_components() {
  local prefix="$1" out mpi_why
  echo "== find_package(vksort REQUIRED COMPONENTS bogus / mpi without MPI) explain themselves =="
  rm -rf "$work/build-component"
  if out="$(cmake -S "$work/src/find_component" -B "$work/build-component" -DCMAKE_PREFIX_PATH="$prefix" \
                  -DVKSORT_COMPONENT=bogus 2>&1)"; then
    echo "consumer-test: find_package(vksort REQUIRED COMPONENTS bogus) succeeded" >&2
    exit 1
  fi
  out="$(tr -s ' \n' ' ' <<<"$out")"  # CMake wraps the reason's lines
  grep -q "unknown component 'bogus'" <<<"$out" || { echo "consumer-test: no reason given:" >&2; echo "$out" >&2; exit 1; }
  if [ -n "$(find "$prefix" -name vksortMpiTargets.cmake | head -n1)" ]; then
    mpi_why="CMAKE_DISABLE_FIND_PACKAGE_MPI is set"
  else
    mpi_why="built without MPI"
  fi
  rm -rf "$work/build-component"
  if out="$(cmake -S "$work/src/find_component" -B "$work/build-component" -DCMAKE_PREFIX_PATH="$prefix" \
                  -DVKSORT_COMPONENT=mpi -DCMAKE_DISABLE_FIND_PACKAGE_MPI=TRUE 2>&1)"; then
    echo "consumer-test: find_package(vksort REQUIRED COMPONENTS mpi) succeeded without MPI" >&2
    exit 1
  fi
  out="$(tr -s ' \n' ' ' <<<"$out")"
  grep -q "$mpi_why" <<<"$out" || { echo "consumer-test: no reason given:" >&2; echo "$out" >&2; exit 1; }
}

mode="${1:-}"
case "$mode" in
  install)
    [ $# -eq 3 ] || usage
    build="$2" prefix="$3"
    copy_consumers
    # The prefix is replaced: refuse anything that holds more than an earlier vksort install.
    if [ -d "$prefix" ] && [ -n "$(ls -A "$prefix")" ] && [ ! -d "$prefix/include/vksort" ]; then
      echo "consumer-test: $prefix exists and is not a vksort install; choose a fresh prefix" >&2
      exit 2
    fi
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix" >/dev/null
    for f in include/vksort/vksort.hpp include/vksort/export.hpp share/doc/vksort/LICENSE; do test -f "$prefix/$f"; done
    test -f "$(find "$prefix" -name vksortConfig.cmake | head -n1)"
    test -f "$(find "$prefix" -name vksortConfigVersion.cmake | head -n1)"
    consume_prefix "$prefix" "$(basename "$prefix")"
    ;;
  subdirectory)
    [ $# -eq 1 ] || usage
    copy_consumers
    echo "== add_subdirectory consumer =="
    rm -rf "$work/build-subdirectory"
    # No build type given: vksort must not choose one for the parent (the CMake file checks it).
    cmake -S "$work/src/add_subdirectory" -B "$work/build-subdirectory" -G Ninja \
          -DVKSORT_SOURCE_DIR="$repo" -DVKSORT_CONSUMER_EXPECT_BUILD_TYPE= >/dev/null
    cmake --build "$work/build-subdirectory" -j"$jobs"
    "$work/build-subdirectory/consumer"
    "$work/build-subdirectory/consumer_noexcept"
    # No tests of vksort's in the parent's ctest, and nothing of vksort's in the parent's install.
    tests="$(ctest --test-dir "$work/build-subdirectory" -N)"
    grep -q 'Total Tests: 0' <<<"$tests" || { echo "consumer-test: vksort's tests leaked into the parent: $tests" >&2; exit 1; }
    rm -rf "$work/subdirectory-prefix"
    cmake --install "$work/build-subdirectory" --prefix "$work/subdirectory-prefix" >/dev/null
    if [ -n "$(find "$work/subdirectory-prefix" -type f 2>/dev/null)" ]; then
      echo "consumer-test: vksort's install rules ran in the parent:" >&2
      find "$work/subdirectory-prefix" -type f >&2
      exit 1
    fi
    ;;
  deb)
    [ $# -eq 2 ] || usage
    build="$(cd "$2" && pwd)"
    copy_consumers
    echo "== cpack -G DEB in $build =="
    rm -f "$build"/libvksort-dev_*.deb
    (cd "$build" && cpack -G DEB >/dev/null)
    deb="$(ls "$build"/libvksort-dev_*.deb)"
    dpkg-deb --info "$deb"
    # The fields a user's apt relies on.
    version="$(dpkg-deb --field "$deb" Version)"
    grep -q "project(vksort VERSION $version " "$repo/CMakeLists.txt"
    # (Whole outputs into variables: grep -q closing a pipe early would fail the pipeline.)
    depends="$(dpkg-deb --field "$deb" Depends)"
    recommends="$(dpkg-deb --field "$deb" Recommends)"
    contents="$(dpkg-deb --contents "$deb")"
    grep -q libvulkan1 <<<"$depends"
    grep -q mesa-vulkan-drivers <<<"$recommends"
    grep -q 'usr/include/vksort/vksort.hpp' <<<"$contents"
    grep -q 'vksortConfig.cmake' <<<"$contents"
    grep -q 'usr/share/doc/libvksort-dev/copyright' <<<"$contents"
    # Unpacked, not installed: this machine's /usr stays untouched (dpkg -i does the same into /).
    rm -rf "$work/deb-root"
    dpkg -x "$deb" "$work/deb-root"
    consume_prefix "$work/deb-root/usr" deb
    ;;
  *) usage ;;
esac
echo "consumer-test $mode: OK"
