#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what vksort needs to build, test and run on Debian or Ubuntu (apt-get; sudo when not root).
# Already-installed packages are left alone, so repeated runs take a second.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libvulkan-dev              # Vulkan headers and the loader
  mesa-vulkan-drivers        # lavapipe: a conformant Vulkan driver on the CPU, the default device here
  vulkan-validationlayers    # VK_LAYER_KHRONOS_validation, on in every test
  glslc spirv-tools          # shader compiler and validator
  libvulkan-volk-dev         # volk.h / volk.c, compiled into the runtime
  libglm-dev doctest-dev libcli11-dev nlohmann-json3-dev
  vulkan-tools               # vulkaninfo, handy when a device misbehaves
  python3-matplotlib         # scripts/plot_bench.py: charts from vksort bench JSON
  libpng-dev                 # the particle app's PNG frames
  libgif-dev                 # giflib: the particle app's animated GIF (--animation)
  libtbb-dev                 # oneTBB: tbb::parallel_sort, a parallel CPU baseline in vksort bench (optional)
  libopenmpi-dev openmpi-bin # the distributed sort (vksort::mpi, vksort-mpi) and its mpiexec tests
  python3-gsd python3-ase    # the particle app's readback test: its GSD and XYZ files through HOOMD's and ASE's readers
  pybind11-dev python3-dev python3-numpy   # the Python module vksort (python/, VKSORT_PYTHON)
  python3-pytest python3-venv python3-pip python3-setuptools  # its tests and `pip install --no-build-isolation .`
  clang                      # a second compiler for the public headers (scripts/consumer-test.sh) and scripts/fuzz.sh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
