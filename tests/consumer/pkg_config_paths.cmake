# SPDX-License-Identifier: MIT
# vksort.pc names the folders the install put the headers and the library in, for relative and absolute
# CMAKE_INSTALL_LIBDIR / CMAKE_INSTALL_INCLUDEDIR (GNUInstallDirs allows both; Nix passes absolute ones).
# An absolute libdir once gave includedir /include: the prefix was always found by going up
# from the .pc file, which then lies outside the prefix.
#   cmake -DPKG_CONFIG=<pkg-config> -DWORK=<scratch folder> -P tests/consumer/pkg_config_paths.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT PKG_CONFIG OR NOT WORK)
  message(FATAL_ERROR "usage: cmake -DPKG_CONFIG=<pkg-config> -DWORK=<folder> -P pkg_config_paths.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/pkg_config.cmake)
set(PROJECT_VERSION 0.0.0)
set(VKSORT_PC_CFLAGS "")
set(VKSORT_PC_LIBS_PRIVATE "")
file(REMOVE_RECURSE ${WORK})

# name libdir includedir: each relative to the case's prefix, or absolute (under the case's folder).
set(cases
    "plain|lib|include"
    "multiarch|lib/x86_64-linux-gnu|include"
    "absolute_libdir|<case>/elsewhere/lib|include"
    "absolute_includedir|lib|<case>/elsewhere/include"
    "both_absolute|<case>/out-lib/lib|<case>/out-dev/include")
set(failures "")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 CMAKE_INSTALL_LIBDIR)
  list(GET fields 2 CMAKE_INSTALL_INCLUDEDIR)
  set(root ${WORK}/${name})
  string(REPLACE "<case>" "${root}" CMAKE_INSTALL_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  string(REPLACE "<case>" "${root}" CMAKE_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CMAKE_INSTALL_PREFIX ${root}/prefix)
  # Where `cmake --install` puts each (GNUInstallDirs' CMAKE_INSTALL_FULL_*).
  foreach(dir IN ITEMS LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
      set(want_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
      set(want_${dir} "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_${dir}}")
    endif()
    file(MAKE_DIRECTORY ${want_${dir}})
  endforeach()
  vksort_configure_pc(${want_LIBDIR}/pkgconfig/vksort.pc)
  set(ENV{PKG_CONFIG_PATH} ${want_LIBDIR}/pkgconfig)
  foreach(dir IN ITEMS LIBDIR INCLUDEDIR)
    string(TOLOWER ${dir} variable)
    execute_process(COMMAND ${PKG_CONFIG} --variable=${variable} vksort OUTPUT_VARIABLE got RESULT_VARIABLE rc
                    ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      list(APPEND failures "${name}: pkg-config --variable=${variable} failed: ${err}")
      continue()
    endif()
    # Compared as the folders they name (the .pc's relative form has ../ in it).
    if(IS_DIRECTORY "${got}")
      file(REAL_PATH "${got}" got_real)
    else()
      set(got_real "${got} (no such folder)")
    endif()
    file(REAL_PATH "${want_${dir}}" want_real)
    if(NOT got_real STREQUAL want_real)
      list(APPEND failures "${name}: ${variable} is ${got_real}, the install puts it in ${want_real}")
    endif()
  endforeach()
endforeach()
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "vksort.pc names the wrong folders:\n  ${text}")
endif()
message(STATUS "vksort.pc: libdir and includedir right for relative and absolute install folders")
