#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks what a shared libvksort exports: only the public API (vksort:: outside the internal namespaces
# gpu, algo and the Impl classes) and the RTTI of vksort::Error; in particular no volk symbol (the
# runtime's private copy must never meet the application's) and no Vulkan entry point.
# A static archive (libvksort.a, libvksort_external.a, libvksort_mpi.a) cannot hide its internals, but
# every global symbol it defines must be vksort's own: in namespace vksort (or vksort's RTTI), or a C
# name prefixed vksort_ (its renamed volk), so that no name of an application's can clash with it. Weak
# definitions (templates, inline functions) must not sit at global scope either: an application's
# function of that name would silently replace them.
#   scripts/check-exports.sh <path to libvksort.so | lib*.a>
set -euo pipefail
lib="${1:?usage: scripts/check-exports.sh <libvksort.so | lib*.a>}"
if [[ "$lib" == *.a ]]; then
  # "TYPE NAME" per global definition, demangled (nm names each member first: lines without a type).
  defined="$(nm -gC --defined-only "$lib" 2>/dev/null | sed -n -E 's/^[0-9a-f]+ ([A-Za-z]) (.*)$/\1 \2/p')"
  [ -n "$defined" ] || { echo "check-exports: $lib defines no global symbol" >&2; exit 1; }
  # (AddressSanitizer adds an ODR indicator, __odr_asan.<name>, for every global variable.)
  rtti='(typeinfo|typeinfo name|vtable|VTT|construction vtable|guard variable) for'
  own="^(vksort::|vksort_|__odr_asan\\.(vksort_|_ZN6vksort)|$rtti vksort::)"
  strong="$(grep -E '^[TDBRGSCi] ' <<<"$defined" | cut -c3- | grep -v -E "$own" || true)"
  # Weak or unique: instantiations and inline functions, qualified (std::, vksort::) unless at global scope;
  # DW.ref.* are the exception tables' references to the personality routine and to caught types, and
  # RTTI of built-in types (a sanitizer's function types) is the same everywhere.
  weak="$(grep -v -E '^[TDBRGSCi] ' <<<"$defined" | cut -c3- | grep -v -F '::' \
          | grep -v -E "^(DW\\.ref\\.|$rtti )" || true)"
  if [ -n "$strong$weak" ]; then
    echo "check-exports: $lib defines global symbols outside vksort's namespace and prefix:" >&2
    printf '%s\n' "$strong" "$weak" | sed '/^$/d' | head -n 40 >&2
    exit 1
  fi
  echo "check-exports: $(wc -l <<<"$defined") global definitions in $(basename "$lib"), all vksort's own"
  exit 0
fi
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
