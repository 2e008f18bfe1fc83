#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The skip mechanism itself (test::skip): with every layer hidden from the Vulkan loader, the
# validation test case has nothing to check, so the run must say why and exit 77 (ctest: skipped),
# never 0 (passed).   usage: skip_report_test.sh <test_runtime executable>
set -u
out="$(VK_LOADER_LAYERS_DISABLE='~all~' "$1" --test-case='*validation error is raised*' 2>&1)"
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q 'not installed' <<<"$out"; then
  # Loaders before 1.3.234 ignore VK_LOADER_LAYERS_DISABLE: the layer ran and the case really checked.
  echo "skip_report: this loader cannot hide layers; the skip path cannot be reached here"
  exit 77
fi
if [ "$rc" -ne 77 ] || ! grep -q 'SKIPPED: validation layer not installed' <<<"$out"; then
  echo "skip_report: expected exit 77 and a SKIPPED line, got exit $rc:"
  echo "$out"
  exit 1
fi
echo "skip_report: exit 77 with the reason, as ctest's SKIP_RETURN_CODE expects"
