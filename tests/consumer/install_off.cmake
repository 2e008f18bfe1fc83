# SPDX-License-Identifier: MIT
# vksort inside another project (add_subdirectory) with its programs asked for (VKSORT_BUILD_APPS=ON) and
# VKSORT_INSTALL left at its default there, OFF: the parent's `cmake --install` must install nothing of
# vksort's. The vksort-mpi tool (built where MPI is found) was once installed regardless. Configure only:
# the parent's install scripts must hold no file(INSTALL ...).
#   cmake -DSOURCE=<vksort tree> -DWORK=<scratch folder> [-DGENERATOR=..] [-DCC=..] [-DCXX=..] -P install_off.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE OR NOT WORK)
  message(FATAL_ERROR "usage: cmake -DSOURCE=<vksort tree> -DWORK=<folder> -P install_off.cmake")
endif()
file(REMOVE_RECURSE ${WORK})
file(WRITE ${WORK}/parent/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.22)\nproject(parent LANGUAGES C CXX)\nadd_subdirectory(\"${SOURCE}\" vksort)\n")
set(options -DVKSORT_BUILD_APPS=ON -DVKSORT_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release)
if(GENERATOR)
  list(APPEND options -G ${GENERATOR})
endif()
if(CC)
  list(APPEND options -DCMAKE_C_COMPILER=${CC})
endif()
if(CXX)
  list(APPEND options -DCMAKE_CXX_COMPILER=${CXX})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/parent -B ${WORK}/build ${options}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring a parent project of vksort failed:\n${out}")
endif()
file(GLOB_RECURSE scripts ${WORK}/build/cmake_install.cmake)
set(installed "")
foreach(script IN LISTS scripts)
  file(STRINGS ${script} lines REGEX "file\\(INSTALL ")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    list(APPEND installed "${script}: ${line}")
  endforeach()
endforeach()
if(installed)
  list(JOIN installed "\n  " text)
  message(FATAL_ERROR "vksort as a subproject (VKSORT_INSTALL OFF) adds to the parent's install:\n  ${text}")
endif()
message(STATUS "vksort as a subproject with its apps on installs nothing into the parent's install")
