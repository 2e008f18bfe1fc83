#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs pytest on the Python tests with the interpreter the module was built for.
#   run_pytest.sh PYTHON PACKAGE_PARENT TEST_FILE [pytest options]
# PACKAGE_PARENT holds the assembled package vksort (build/python). Without pytest or NumPy the test
# cannot check anything here: it exits 77, which ctest reports as skipped.
set -euo pipefail
python="$1" package_parent="$2"
shift 2
if ! "$python" -c "import numpy, pytest" 2>/dev/null; then
  echo "skipped: $python lacks numpy or pytest (Debian: python3-numpy python3-pytest)"
  exit 77
fi
cd "$(dirname "$0")"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$package_parent${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m pytest -q -p no:cacheprovider -W error "$@"
