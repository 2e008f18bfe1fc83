# SPDX-License-Identifier: MIT
"""Builds the extension vksort._core with the project's CMake build (the library, its embedded shaders and
the pybind11 module), for the interpreter running pip; pyproject.toml holds the package's metadata.

Environment: CMAKE_ARGS are added to the configure command, split as a shell splits them (e.g.
-DCMAKE_CXX_COMPILER_LAUNCHER=ccache '-DCMAKE_CXX_FLAGS=-O2 -g');
VKSORT_BUILD_DIR names an existing CMake build tree configured with VKSORT_PYTHON=ON for this interpreter,
whose module is then built and taken as it is (quick, for development and the tests).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    """The version CMakeLists.txt gives the project: one copy for the library and the module."""
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(vksort VERSION ([0-9.]+)", text).group(1)


def cmake_cache_value(build_dir, name):
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    raise RuntimeError(f"{build_dir} was not configured with {name} (configure it with -DVKSORT_PYTHON=ON)")


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        given = os.environ.get("VKSORT_BUILD_DIR")
        build_dir = Path(given).resolve() if given else Path(self.build_temp).resolve() / "cmake"
        if not given:
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
                            "-DCMAKE_BUILD_TYPE=Release", "-DVKSORT_PYTHON=ON", "-DVKSORT_BUILD_TESTS=OFF",
                            "-DVKSORT_BUILD_APPS=OFF", "-DVKSORT_INSTALL=OFF", "-DVKSORT_MPI=OFF",
                            f"-DVKSORT_PYTHON_EXECUTABLE={sys.executable}",
                            # Split as a shell would: -DCMAKE_CXX_FLAGS="-O2 -g" is one argument.
                            *shlex.split(os.environ.get("CMAKE_ARGS", ""))], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "vksort_python", "--parallel"], check=True)
        built = Path(cmake_cache_value(build_dir, "VKSORT_PYTHON_OUTPUT_DIR")) / target.name
        if not built.exists():
            raise RuntimeError(f"{built} is missing: {build_dir} builds the module for another Python than "
                               f"{sys.executable}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(version=project_version(), ext_modules=[CMakeExtension("vksort._core")], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build/setuptools"}})
