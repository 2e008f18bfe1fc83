#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the CLI's and library's input parsers and the option structs (tests/fuzz) with libFuzzer under
# ASan + UBSan, each target for half the time:
#   fuzz_inputs   the parsers of counts, distributions, names, tuning knobs and profile files
#   fuzz_options  random SortOptions / BucketOptions into Sorter / BucketLists on the default Vulkan
#                 device (lavapipe in CI): an Error or a result equal to the CPU reference
#   scripts/fuzz.sh [seconds]     (default 60; CI runs a short pass)
# Installs clang and its libFuzzer runtime if missing (Debian/Ubuntu), builds the fuzz preset in
# build-fuzz/, and runs from a copy of tests/fuzz/corpus so the tree stays clean. Any crash, leak, UB
# report or timeout fails the run and leaves the input as build-fuzz/findings/<kind>-<hash>.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if ! command -v clang++ >/dev/null; then
  echo "fuzz: installing clang"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
fi
# libFuzzer's runtime ships apart from clang on Debian (libclang-rt-<major>-dev).
major=$(clang++ -dumpversion | cut -d. -f1)
if ! find "$(clang++ -print-resource-dir)" -name 'libclang_rt.fuzzer*.a' 2>/dev/null | grep -q .; then
  echo "fuzz: installing libclang-rt-$major-dev"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "libclang-rt-$major-dev" >/dev/null
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r tests/fuzz/corpus "$work/corpus"
cp -r tests/fuzz/options_corpus "$work/options_corpus"
mkdir -p build-fuzz/findings
half=$(( (seconds + 1) / 2 ))
echo "fuzz: inputs, ${half}s from $(ls tests/fuzz/corpus | wc -l) seed inputs"
build-fuzz/tests/fuzz/fuzz_inputs -max_total_time="$half" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=build-fuzz/findings/ -print_final_stats=1 "$work/corpus" 2>&1 | tail -15
# Leaks inside the Vulkan driver (lavapipe keeps some allocations LeakSanitizer cannot trace) are not
# vksort's to fix; every other leak still fails the run. The loader dlcloses the driver with each
# Device, after which its leaks come from "<unknown module>", which no suppression can name: the driver
# is preloaded to stay mapped (as cmake/sanitizer_preload.cmake does for the tests).
driver=$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk '/libvulkan_lvp\.so /{print $NF; exit}' || true)
# ASan's quarantine of freed memory is capped at 64 MB (default 256): each input makes Sorters and
# device memory (lavapipe's allocations go through ASan too), and with the default this target's RSS
# grew ~50 MB per run of one input up to ~2 GB, so a 20-minute run ended in a false out-of-memory
# (-rss_limit_mb 2048) after 909 inputs. The same runs with a 16 MB quarantine stay at 280 MB, and the
# release build at 98 MB over 60 such sorts: memory the sanitizer holds back, not memory vksort keeps
# (2026-12-02). With 64 MB: 630-860 MB over 619 inputs.
echo "fuzz: options, ${half}s from $(ls tests/fuzz/options_corpus | wc -l) seed inputs"
ASAN_OPTIONS="quarantine_size_mb=64${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
  LD_PRELOAD="${driver}${LD_PRELOAD:+${driver:+:}$LD_PRELOAD}" \
  build-fuzz/tests/fuzz/fuzz_options -max_total_time="$half" -timeout=30 -rss_limit_mb=2048 \
  -artifact_prefix=build-fuzz/findings/ -print_final_stats=1 "$work/options_corpus" 2>&1 | tail -15
