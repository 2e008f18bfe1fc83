# SPDX-License-Identifier: MIT
# Mesa's on-disk shader cache (Debian 12's Mesa 22.3) keys a compute kernel that lavapipe compiled by the
# kernel (its NIR and llvmpipe's variant key) but not by llvmpipe's SIMD width, which
# LP_NATIVE_VECTOR_WIDTH changes per process: a kernel compiled by a run at one width is handed, from
# the cache, to a later run at another, whose subgroups then have the lanes of the first. Measured
# (docs/building.md, "Mesa's shader cache and the SIMD width"): the single-pass radix sort's CPU-shape
# kernels (workgroups of 8) compiled once at width 512 ran 16 lanes wide, half of them idle, in every
# later run at the default 256, 1.9 times as long; and a test entry meant to run at 4 or 16 lanes ran
# whatever width had compiled that kernel first.
#
# vksort_shader_cache_per_width(): every test defined so far in the calling directory gets a shader
# cache of its own width, MESA_SHADER_CACHE_DIR=<cache home>/vksort-lavapipe-width-<width> ("default" for
# entries that do not set LP_NATIVE_VECTOR_WIDTH), so entries of one width still share compiled kernels,
# and so do the release, sanitizer and shared builds' suites (the same kernels), and no entry runs
# another width's, nor one that an earlier run of anything else left in Mesa's own cache. The cache home
# is $XDG_CACHE_HOME or ~/.cache at configure time (the build directory where neither is set). Entries
# that set the cache themselves keep theirs. Call it after the directory's last add_test.
function(vksort_shader_cache_per_width)
  if(DEFINED ENV{XDG_CACHE_HOME} AND IS_ABSOLUTE "$ENV{XDG_CACHE_HOME}")
    set(home "$ENV{XDG_CACHE_HOME}")
  elseif(DEFINED ENV{HOME} AND IS_ABSOLUTE "$ENV{HOME}")
    set(home "$ENV{HOME}/.cache")
  else()
    set(home "${PROJECT_BINARY_DIR}")
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} ENVIRONMENT environment)
    if(environment MATCHES "MESA_SHADER_CACHE_(DISABLE|DIR)=")
      continue()
    endif()
    set(width default)
    if(environment MATCHES "LP_NATIVE_VECTOR_WIDTH=([0-9]+)")
      set(width ${CMAKE_MATCH_1})
    endif()
    # Made here: Mesa creates only the last folder of MESA_SHADER_CACHE_DIR, and where the cache home
    # does not exist yet (a fresh machine's first run) it says so on stderr and runs without a cache,
    # which fails every test that expects a quiet stderr.
    file(MAKE_DIRECTORY "${home}/vksort-lavapipe-width-${width}")
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "MESA_SHADER_CACHE_DIR=${home}/vksort-lavapipe-width-${width}")
  endforeach()
endfunction()
