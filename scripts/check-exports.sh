#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks what a shared libvksort exports: only the public API (vksort:: outside the internal namespaces
# gpu, algo and the Impl classes) and the RTTI of vksort::Error; in particular no volk symbol (the
# runtime's private copy must never meet the application's) and no Vulkan entry point.
#   scripts/check-exports.sh <path to libvksort.so>
set -euo pipefail
lib="${1:?usage: scripts/check-exports.sh <libvksort.so>}"
symbols="$(nm -DC --defined-only "$lib" | cut -d' ' -f3-)"
[ -n "$symbols" ] || { echo "check-exports: $lib exports nothing" >&2; exit 1; }
unexpected="$(grep -v -E '^vksort::' <<<"$symbols" \
  | grep -v -x -E '(typeinfo|typeinfo name|vtable) for vksort::Error' || true)"
internal="$(grep -E '^vksort::(gpu|algo)::|::Impl::' <<<"$symbols" || true)"
# Raw (mangled) names: volk's functions and the Vulkan entry points it defines are C symbols.
volk="$(nm -D --defined-only "$lib" | cut -d' ' -f3- | grep -E -i 'volk|^vk[A-Z]' || true)"
if [ -n "$unexpected$internal$volk" ]; then
  echo "check-exports: $lib exports more than the public API:" >&2
  printf '%s\n' "$unexpected" "$internal" "$volk" | sed '/^$/d' >&2
  exit 1
fi
echo "check-exports: $(wc -l <<<"$symbols") symbols, all public API"
