# SPDX-License-Identifier: MIT
# Sanitizer builds (VKSORT_SANITIZE): the Vulkan loader dlcloses the driver at vkDestroyInstance, after
# which LeakSanitizer cannot see the pointers the driver's globals hold and reports them as leaks from
# "<unknown module>" (lavapipe: 128 bytes, in every process). Preloading the driver, after the ASan
# runtime, which must come first, keeps it mapped, so the leak scan stays exact for everything else.
#
# vksort_preload_driver_for_sanitizers(SCRIPTS name...): every test defined so far in the calling
# directory gets LD_PRELOAD; those named in SCRIPTS run an interpreter (bash, Python) that starts our
# binaries, and get VKSORT_TEST_PRELOAD for those binaries instead (the interpreter is not
# instrumented, and LeakSanitizer in it would fail the script). Call it after the directory's last
# add_test: a test defined later would run without it and fail on that leak.
function(vksort_preload_driver_for_sanitizers)
  cmake_parse_arguments(PRELOAD "" "" "SCRIPTS" ${ARGN})
  if(NOT VKSORT_SANITIZE)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE asan_runtime
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  find_library(VKSORT_LAVAPIPE_DRIVER NAMES vulkan_lvp)
  if(NOT VKSORT_LAVAPIPE_DRIVER)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(script ${PRELOAD_SCRIPTS})
    if(TEST ${script})
      list(REMOVE_ITEM tests ${script})
      set_property(TEST ${script} APPEND PROPERTY ENVIRONMENT "VKSORT_TEST_PRELOAD=${asan_runtime}:${VKSORT_LAVAPIPE_DRIVER}")
    endif()
  endforeach()
  if(tests)
    set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT "LD_PRELOAD=${asan_runtime}:${VKSORT_LAVAPIPE_DRIVER}")
  endif()
endfunction()
