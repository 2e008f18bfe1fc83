# SPDX-License-Identifier: MIT
# How every dependency is found: the system's packages first (Debian/Ubuntu names in
# scripts/install-deps.sh), a FetchContent download with a pinned tag only where a package is missing.
# No source from other projects is copied into this tree.
include(FetchContent)

# --- Vulkan headers (the loader itself is opened at run time by volk, never linked) -------------------
find_package(Vulkan QUIET)
if(Vulkan_FOUND)
  add_library(vksort_vulkan_headers INTERFACE)
  target_include_directories(vksort_vulkan_headers SYSTEM INTERFACE ${Vulkan_INCLUDE_DIRS})
else()
  FetchContent_Declare(vulkan_headers GIT_REPOSITORY https://github.com/KhronosGroup/Vulkan-Headers.git
                       GIT_TAG v1.3.239)
  FetchContent_MakeAvailable(vulkan_headers)
  add_library(vksort_vulkan_headers INTERFACE)
  target_link_libraries(vksort_vulkan_headers INTERFACE Vulkan::Headers)
endif()

# --- volk: Debian ships only volk.h / volk.c; we compile volk.c inside the runtime (see runtime/) ----
find_path(VKSORT_VOLK_DIR volk.c PATHS /usr/include /usr/local/include)
if(NOT VKSORT_VOLK_DIR)
  FetchContent_Declare(volk GIT_REPOSITORY https://github.com/zeux/volk.git GIT_TAG 1.3.239)
  FetchContent_Populate(volk)
  set(VKSORT_VOLK_DIR ${volk_SOURCE_DIR} CACHE PATH "folder holding volk.h and volk.c" FORCE)
endif()

# --- shader tools: glslc compiles, spirv-val validates ----------------------------------------------
find_program(VKSORT_GLSLC glslc REQUIRED)
find_program(VKSORT_SPIRV_VAL spirv-val REQUIRED)

# --- test and app libraries ------------------------------------------------------------------------
if(VKSORT_BUILD_TESTS)
  find_package(doctest QUIET)
  if(NOT doctest_FOUND)
    FetchContent_Declare(doctest GIT_REPOSITORY https://github.com/doctest/doctest.git GIT_TAG v2.4.9)
    FetchContent_MakeAvailable(doctest)
  endif()
endif()
if(VKSORT_BUILD_APPS)
  find_package(CLI11 QUIET)
  if(NOT CLI11_FOUND)
    FetchContent_Declare(cli11 GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git GIT_TAG v2.1.2)
    FetchContent_MakeAvailable(cli11)
  endif()
  find_package(nlohmann_json 3.10 QUIET)
  if(NOT nlohmann_json_FOUND)
    FetchContent_Declare(json GIT_REPOSITORY https://github.com/nlohmann/json.git GIT_TAG v3.11.2)
    FetchContent_MakeAvailable(json)
  endif()
endif()
find_package(Threads REQUIRED)

# --- MPI (optional): the distributed sort, vksort::mpi (Debian: libopenmpi-dev openmpi-bin) ------------
find_package(MPI COMPONENTS CXX QUIET)

# --- the Python module (optional): pybind11 and the headers of a Python with NumPy ---------------------
# Debian's NumPy, pybind11 and pytest belong to the distribution's interpreter; another python3 earlier
# on PATH (pyenv, conda) may lack them, so /usr/bin/python3 is tried first. VKSORT_PYTHON_EXECUTABLE
# overrides the choice (setup.py passes the interpreter pip runs, e.g. a venv's). Inside another project
# (add_subdirectory) only when asked for with VKSORT_PYTHON: the parent's own Python search stays its own.
set(VKSORT_PYTHON_FOUND OFF)
if(PROJECT_IS_TOP_LEVEL OR VKSORT_PYTHON)
  if(NOT DEFINED VKSORT_PYTHON_EXECUTABLE)
    foreach(candidate /usr/bin/python3 python3)
      execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE no_numpy OUTPUT_QUIET ERROR_QUIET)
      if(no_numpy EQUAL 0)
        set(VKSORT_PYTHON_EXECUTABLE ${candidate} CACHE STRING "Python the module is built for and tested with")
        break()
      endif()
    endforeach()
  endif()
  if(VKSORT_PYTHON_EXECUTABLE)
    set(Python3_EXECUTABLE ${VKSORT_PYTHON_EXECUTABLE})
    find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
    if(Python3_FOUND)
      find_package(pybind11 CONFIG QUIET)
      set(VKSORT_PYTHON_FOUND ${pybind11_FOUND})
    endif()
  endif()
endif()
