# SPDX-License-Identifier: MIT
"""The Python sdist (`python3 setup.py sdist`, MANIFEST.in) carries everything setup.py's CMake build reads.

    python3 tests/python/sdist_test.py BUILD_DIR            quick (seconds; ctest python_sdist)
    python3 tests/python/sdist_test.py BUILD_DIR --install  and `pip install` the tarball: a full build (minutes)

The sdist is made from a copy of the checkout (git's tracked and unignored files), as a user or a release
would make it, then checked three ways:
  - every file of the source tree that BUILD_DIR read to build the module vksort_python (ninja's inputs,
    the compilers' recorded headers, glslc's depfiles) is in the tarball;
  - the unpacked tarball configures with setup.py's CMake options (every CMake file and listed source);
  - every input of vksort_python in that configuration is in the tarball.
Exit 77 (skipped) without git, setuptools or ninja; nothing is downloaded (PIP_NO_INDEX).
"""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SKIP = 77
root = Path(__file__).resolve().parents[2]


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def fail(why):
    print(f"sdist_test: {why}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if done.returncode != 0:
        fail(f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stdout}")
    return done.stdout


def cache_value(build, name):
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    fail(f"{build}/CMakeCache.txt has no {name}")


def source_files_read(build, source, prefix_out):
    """The files under `source` (not under build dirs) that building vksort_python in `build` read."""
    names = run(["ninja", "-C", str(build), "-t", "inputs", "vksort_python"]).splitlines()
    names = [n for n in names if not n.startswith("ninja: ")]
    found = {n for n in names if n.startswith("/")}
    built = [n for n in names if not n.startswith("/")]
    # The headers the compilers reported (ninja's deps log) and the GLSL includes (glslc's depfiles).
    for line in run(["ninja", "-C", str(build), "-t", "deps", *built]).splitlines():
        if line.startswith("    "):
            found.add(line.strip())
    for depfile in build.glob("shaders/**/*.d"):
        found.update(w for w in depfile.read_text().replace("\\\n", " ").split() if w.startswith("/"))
    inside = set()
    for name in found:
        path = Path(os.path.normpath(name))
        if path.is_relative_to(source) and not path.is_relative_to(prefix_out):
            inside.add(path.relative_to(source).as_posix())
    return inside


def check_cmake_args(unpacked, work):
    """setup.py hands CMAKE_ARGS to CMake's configure step split as a shell splits them: a quoted value with
    spaces is one argument (split on whitespace, -DCMAKE_CXX_FLAGS="-O2 -g" reached CMake as two arguments,
    and it stopped: 'Unknown argument -g"'). A stand-in cmake records its arguments and stops the build."""
    fake = work / "fake-cmake"
    fake.mkdir()
    record = work / "cmake-args"
    (fake / "cmake").write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" > "{record}"\nexit 3\n')
    (fake / "cmake").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ.get('PATH', '')}",
               CMAKE_ARGS="-DCMAKE_CXX_FLAGS=\"-O2 -g\" -DVKSORT_EXTRA='a b'  -DCMAKE_VERBOSE_MAKEFILE=ON")
    env.pop("VKSORT_BUILD_DIR", None)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext"], cwd=unpacked, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not record.exists():
        fail("setup.py build_ext did not run cmake")
    args = record.read_text().split("\0")[:-1]
    want = ["-DCMAKE_CXX_FLAGS=-O2 -g", "-DVKSORT_EXTRA=a b", "-DCMAKE_VERBOSE_MAKEFILE=ON"]
    if args[-3:] != want:
        fail(f"setup.py gave CMake CMAKE_ARGS as {args[-4:]}, not {want}")
    print("setup.py: CMAKE_ARGS reach CMake as a shell splits them")


def main():
    args = sys.argv[1:]
    install = "--install" in args
    args = [a for a in args if a != "--install"]
    if len(args) != 1:
        fail("usage: sdist_test.py BUILD_DIR [--install]")
    build = Path(args[0]).resolve()
    if shutil.which("git") is None or shutil.which("ninja") is None:
        skip("needs git and ninja")
    try:
        import setuptools  # noqa: F401
    except ImportError:
        skip(f"{sys.executable} has no setuptools (Debian: python3-setuptools)")
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if listed.returncode != 0:
        skip(f"{root} is not a git checkout")
    if cache_value(build, "CMAKE_GENERATOR") != "Ninja":
        skip(f"{build} is not a Ninja build")

    work = Path(tempfile.mkdtemp(prefix="vksort-sdist."))
    try:
        tree = work / "tree"
        for name in listed.stdout.decode().split("\0"):
            if name and (root / name).is_file():
                (tree / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / name, tree / name)
        run([sys.executable, "setup.py", "-q", "sdist", "-d", str(work / "dist")], cwd=tree)
        tarballs = list((work / "dist").glob("vksort-*.tar.gz"))
        if len(tarballs) != 1:
            fail(f"expected one vksort-*.tar.gz, found {tarballs}")
        with tarfile.open(tarballs[0]) as tar:
            members = [m.name for m in tar.getmembers() if m.isfile()]
            top = members[0].split("/", 1)[0]
            in_sdist = {m.split("/", 1)[1] for m in members if "/" in m}
            tar.extractall(work / "unpacked")
        unpacked = work / "unpacked" / top

        # 1. What the build here read.
        source = Path(os.path.normpath(cache_value(build, "CMAKE_HOME_DIRECTORY")))
        needed = source_files_read(build, source, build)
        for name in ("python/src/module.cpp", "runtime/include/vksort/vksort.hpp", "shaders/common/interface.h"):
            if name not in needed:
                fail(f"the build's record of what it read lacks {name}: is {build} built (vksort_python)?")
        missing = sorted(needed - in_sdist)
        if missing:
            fail(f"{tarballs[0].name} lacks {len(missing)} of the {len(needed)} files the module's build read:\n  "
                 + "\n  ".join(missing) + "\n(MANIFEST.in says what the sdist carries)")

        # 2. The tarball alone configures with setup.py's options, 3. and holds every input of the module.
        options = re.findall(r'"(-D[A-Z_]+=[A-Za-z0-9_]*)"', (unpacked / "setup.py").read_text())
        if "-DVKSORT_PYTHON=ON" not in options:
            fail(f"no CMake options found in setup.py (found {options})")
        configured = work / "configured"
        run(["cmake", "-S", str(unpacked), "-B", str(configured), "-G", "Ninja", *options,
             f"-DVKSORT_PYTHON_EXECUTABLE={cache_value(build, 'VKSORT_PYTHON_EXECUTABLE')}"])
        inputs = [n for n in run(["ninja", "-C", str(configured), "-t", "inputs", "vksort_python"]).splitlines()
                  if n.startswith(str(unpacked) + "/")]
        absent = sorted(n for n in inputs if not Path(n).exists())
        if absent:
            fail("the unpacked sdist lacks inputs of vksort_python:\n  " + "\n  ".join(absent))
        print(f"sdist: {tarballs[0].name}, {len(in_sdist)} files, holds all {len(needed)} files the module's build "
              f"read; configures alone ({len(inputs)} inputs present)")
        check_cmake_args(unpacked, work)

        if install:
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            env.pop("VKSORT_BUILD_DIR", None)
            target = work / "target"
            run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q", "--target",
                 str(target), str(tarballs[0])], env=env, cwd=work)
            print(run([sys.executable, "-c", "import sys, numpy as np, vksort; a = np.arange(1000)[::-1].copy(); "
                       "assert (vksort.sort(a) == np.arange(1000)).all(); assert vksort.__file__.startswith(sys.argv[1]); "
                       "print('sdist install: sorted with', vksort.__file__)", str(target)],
                      cwd=work, env=dict(env, PYTHONPATH=str(target))).strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
