#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The way in docs/python.md shows users: a venv that sees the distribution's packages (NumPy), then
# `pip install --no-build-isolation .` from the repository, then import and sort outside the tree.
#   pip_install_test.sh PYTHON BUILD_DIR    pip takes the module BUILD_DIR built (quick: ctest)
#   pip_install_test.sh PYTHON --fresh      pip configures and builds everything itself (minutes)
# Nothing may be downloaded (PIP_NO_INDEX). Without the venv module it exits 77: skipped.
set -euo pipefail
python="$1" build="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
if ! "$python" -c "import venv, ensurepip, numpy" 2>/dev/null; then
  echo "skipped: $python lacks venv/ensurepip or numpy (Debian: python3-venv python3-numpy)"
  exit 77
fi
work="$(mktemp -d /tmp/vksort-pip.XXXXXX)"
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
if [ "$build" != --fresh ]; then
  export VKSORT_BUILD_DIR="$build"
fi
"$work/venv/bin/python" -m pip install --no-build-isolation -q "$root"
cd "$work"
"$work/venv/bin/python" - "$work/venv" <<'PY'
import sys
import numpy as np
import vksort

assert vksort.__file__.startswith(sys.argv[1]), f"imported {vksort.__file__}, not the venv's install"
a = np.random.default_rng(7).standard_normal(10001)
a[::97] = np.nan
assert vksort.sort(a).tobytes() == np.sort(a, kind="stable").tobytes()
print(f"pip install: vksort {vksort.__version__} from {vksort.__file__} sorted on {vksort.default_device().name}")
PY
"$work/venv/bin/python" -m pip uninstall -y -q vksort
