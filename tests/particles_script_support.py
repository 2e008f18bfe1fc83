# SPDX-License-Identifier: MIT
"""What the particle app's Python tests share: numpy, gsd and ase (or exit 77, skipped, when one is not
installed), the app's path from the command line, running it, and counting failed checks."""
import os
import subprocess
import sys

try:
    import numpy as np  # noqa: F401 (re-exported)
    import gsd.hoomd  # noqa: F401
    import ase.io  # noqa: F401
except ImportError as e:
    print(f"skipped: {e} (install python3-gsd and python3-ase)")
    sys.exit(77)

particles = os.path.abspath(sys.argv[1])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


def app_env():
    # Sanitizer builds: the app (not this interpreter) gets the ASan runtime (tests/CMakeLists.txt).
    env = dict(os.environ)
    if os.environ.get("VKSORT_TEST_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["VKSORT_TEST_PRELOAD"]
    return env


def run(folder, *args):
    r = subprocess.run([particles, *args], cwd=folder, capture_output=True, text=True, env=app_env())
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(1)


def finish(name):
    print(f"{name}:", "FAILED" if failures else "ok", f"({len(failures)} failures)")
    sys.exit(1 if failures else 0)
