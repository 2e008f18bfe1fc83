// SPDX-License-Identifier: MIT
// vksort/export.hpp — which declarations the shared library exports.
//
// The library is compiled with hidden visibility: only declarations marked VKSORT_API are visible
// outside libvksort.so, so its internals (the Vulkan layer, the algorithms, its private copy of volk)
// can never clash with the application's symbols. A shared build defines VKSORT_SHARED for the library
// and for everyone who links it (a usage requirement of the vksort::vksort target, and in vksort.pc);
// a static build leaves it undefined and VKSORT_API expands to nothing, so a static vksort linked into
// the application's own shared library stays hidden there too.
#pragma once

// Every public header includes this one before a declaration of its own, so this is the one place that
// checks the language version: std::span and concepts need C++20, and an older standard would otherwise
// fail deep inside the headers. MSVC keeps __cplusplus at 199711L (unless /Zc:__cplusplus): _MSVC_LANG.
#if defined(_MSVC_LANG)
#  if _MSVC_LANG < 202002L
#    error "vksort needs C++20 (/std:c++20; CMake: cxx_std_20 or CMAKE_CXX_STANDARD 20)"
#  endif
#elif __cplusplus < 202002L
#  error "vksort needs C++20 (-std=c++20; CMake: cxx_std_20 or CMAKE_CXX_STANDARD 20)"
#endif

#if defined(VKSORT_SHARED)
#  if defined(_WIN32)
#    if defined(VKSORT_BUILDING)
#      define VKSORT_API __declspec(dllexport)
#    else
#      define VKSORT_API __declspec(dllimport)
#    endif
#  else
#    define VKSORT_API __attribute__((visibility("default")))
#  endif
#else
#  define VKSORT_API
#endif
