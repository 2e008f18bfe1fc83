# SPDX-License-Identifier: MIT
# scripts/python-bench.py's command line: bad options and an --out that cannot be written exit 2 with a
# one-line message before any benchmark (they were tracebacks: ValueError, StatisticsError, TypeError,
# and the --out one only after the whole run), and a tiny run writes its JSON whole, with no temporary
# file left beside it.
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "python-bench.py"


def bench(*args, cwd=None):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.parametrize("args, message", [
    (["--n", "abc"], "argument --n: 'abc' is not a size"),
    (["--n", "1000abc"], "argument --n: '1000abc' is not a size"),
    (["--n", "-5"], "argument --n: '-5' is not a size"),
    (["--n", "2^31"], "argument --n: 2^31 is outside 1 to 2^31 - 1"),
    (["--n", "2^9999999999"], "argument --n: 2^9999999999 is outside 1 to 2^31 - 1"),  # computed 2 ** k first: hung
    (["--n", "1000,0"], "argument --n: 0 is outside"),
    (["--repeat", "0"], "argument --repeat: '0' is not a whole number >= 1"),
    (["--repeat", "x"], "argument --repeat: 'x' is not a whole number >= 1"),
    (["--dtype", "int8"], "argument --dtype: 'int8' is not one of uint32, int32, float32, uint64, int64, float64"),
    (["--dtype", "uint32,float16"], "argument --dtype: 'float16' is not one of"),
    (["--device", "no such device"], "--device: no Vulkan device matches"),
    (["--n", "1000", "--out", "/proc/nope/r.json"], "--out /proc/nope/r.json: no folder /proc/nope"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_bad_options_exit_2_with_a_message_and_no_traceback(args, message):
    r = bench(*args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr.splitlines()[-1], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == "", (r.stdout, r.stderr)


def test_an_out_that_is_a_folder_is_refused_before_the_run(tmp_path):
    r = bench("--n", "1000", "--repeat", "1", "--out", str(tmp_path))
    assert r.returncode == 2 and f"--out {tmp_path}: is a folder" in r.stderr, r.stderr
    assert r.stdout == "", r.stdout  # not one size timed


def test_a_tiny_run_writes_its_json_whole(tmp_path):
    (tmp_path / "r.json").write_text("old")
    # --out relative to the working folder, replacing the file there.
    r = bench("--dtype", "uint32,float64", "--n", "1000,2^10", "--repeat", "1", "--out", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(row["dtype"], row["n"]) for row in report["results"]] == [
        ("uint32", 1000), ("uint32", 1024), ("float64", 1000), ("float64", 1024)]
    assert os.listdir(tmp_path) == ["r.json"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o666 & ~umask
