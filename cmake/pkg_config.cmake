# SPDX-License-Identifier: MIT
# vksort_configure_pc(<output>): vksort.pc from cmake/vksort.pc.in for GNUInstallDirs' CMAKE_INSTALL_PREFIX,
# CMAKE_INSTALL_LIBDIR (the .pc goes to <libdir>/pkgconfig) and CMAKE_INSTALL_INCLUDEDIR, with the caller's
# PROJECT_VERSION, VKSORT_PC_CFLAGS and VKSORT_PC_LIBS_PRIVATE.
#
# Relative folders (the usual case): the prefix is found from the .pc file's own place (${pcfiledir}), so
# an unpacked (dpkg -x) or moved install works too. GNUInstallDirs also allows absolute ones (Nix and some
# distributions' package builds pass them): those are written as they are, and where the libdir is
# absolute the .pc does not lie under <prefix>, so the prefix is the configured one (as in CMake's own
# export files). Finding the prefix from ${pcfiledir} there gave includedir /include.
# tests/consumer/pkg_config_paths.cmake checks every combination with pkg-config.
function(vksort_configure_pc output)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(VKSORT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  else()
    file(RELATIVE_PATH up /vksort/${CMAKE_INSTALL_LIBDIR}/pkgconfig /vksort)
    set(VKSORT_PC_PREFIX "\${pcfiledir}/${up}")
  endif()
  foreach(dir IN ITEMS LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
      set(VKSORT_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
      set(VKSORT_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
  endforeach()
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/vksort.pc.in ${output} @ONLY)
endfunction()
