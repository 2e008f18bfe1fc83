# SPDX-License-Identifier: MIT
"""scripts/gpu_experiment_summary.py (gpu-check's stage 2b table) on a folder made here: two default runs
and experiments, pipeline statistics for the default and some experiments (registers, binary size; the
bound kernel's where an experiment built it beside the address one), none for another; then a folder without results, which must fail.

    python3 tests/experiment_summary_test.py scripts/gpu_experiment_summary.py
"""
import json
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def bench_json(path, ms, rounds, window=8, first=0):
    result = {"n": 1 << 26, "gpu_ms": {"median": ms}, "phases_ms": {"histogram": {"median": 0.25}, "pass": {"median": ms - 0.25}},
              "facts": {"lookback_rounds_per_tile": rounds, "lookback_window": window, "lookback_first_window": first}}
    with open(path, "w") as f:
        json.dump({"results": [result]}, f)


def stats_line(registers, size, kernel="radix_onesweep_ballot_k32"):
    return (f"vksort: pipeline {kernel} (workgroup 384 full subgroups, spec 4=20, spec 5=8): Register Count "
            f"{registers}; Binary Size {size}; Shared Memory Size 48248\n")


with tempfile.TemporaryDirectory() as out:
    bench_json(os.path.join(out, "experiment-default.json"), 2.0, 3.5)
    bench_json(os.path.join(out, "experiment-default-again.json"), 2.2, 3.6)
    bench_json(os.path.join(out, "experiment-leader-atomic.json"), 1.75, 3.4)
    bench_json(os.path.join(out, "experiment-first-window.json"), 2.1, 2.5, first=1)
    bench_json(os.path.join(out, "experiment-first-window16.json"), 2.0, 1.5, window=16, first=1)
    with open(os.path.join(out, "pipeline-stats.txt"), "w") as f:
        f.write("vksort: pipeline radix_onesweep_histogram_k32 (workgroup 384, spec 5=8): Register Count 40; Binary Size 9000\n")
        f.write(stats_line(78, 45184))
    with open(os.path.join(out, "pipeline-stats-leader-atomic.txt"), "w") as f:
        f.write(stats_line(88, 44800))
    # The bound-buffers experiment builds the bound kernel beside the address one: its row is the bound's.
    bench_json(os.path.join(out, "experiment-bound-buffers.json"), 2.1, 3.5)
    with open(os.path.join(out, "pipeline-stats-bound-buffers.txt"), "w") as f:
        f.write(stats_line(78, 45184))
        f.write(stats_line(72, 43000, "radix_onesweep_ballot_k32_b"))
    run = subprocess.run([sys.executable, script, out], capture_output=True, text=True)
    check(run.returncode == 0, f"exit {run.returncode}: {run.stderr}")
    rows = []
    for line in run.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 11 and cells[0] not in ("run", "---"):
            rows.append(cells)
    check([r[0] for r in rows] == ["default", "default-again", "bound-buffers", "first-window", "first-window16", "leader-atomic"],
          f"rows {[r[0] for r in rows]}")
    by = {r[0]: r for r in rows}
    # Against the defaults' mean, 2.1 ms: the defaults 1.05 and 0.955, leader-atomic 1.2, first-window 1.0.
    want = {"default": "1.050", "default-again": "0.955", "leader-atomic": "1.200", "first-window": "1.000"}
    for label, ratio in want.items():
        check(label in by and by[label][5] == ratio, f"{label}: default / this {by.get(label, [''] * 11)[5]}, expected {ratio}")
    # The window: the device's 8, a whole first window ("first"), a wider one.
    check([by.get(k, [""] * 11)[7] for k in ("default", "first-window", "first-window16")] == ["8", "8 first", "16 first"],
          f"windows {[by.get(k, [''] * 11)[7] for k in ('default', 'first-window', 'first-window16')]}")
    # Registers, workgroups per SM by registers (78 -> 80 a lane: 2 of 384; 88: 1), binary size; none
    # where no statistics came back.
    check(by.get("default", [""] * 11)[8:11] == ["78", "2", "45184"], f"default's kernel {by.get('default', [''] * 11)[8:11]}")
    check(by.get("default-again", [""] * 11)[8] == "78", "the second default run reads the default's statistics")
    check(by.get("leader-atomic", [""] * 11)[8:11] == ["88", "1", "44800"], f"leader-atomic {by.get('leader-atomic', [''] * 11)[8:11]}")
    check(by.get("first-window", [""] * 11)[8:11] == ["", "", ""], f"first-window {by.get('first-window', [''] * 11)[8:11]}")
    check(by.get("first-window", [""] * 11)[6] == "2.50", "rounds per tile")
    check(by.get("bound-buffers", [""] * 11)[8:11] == ["72", "2", "43000"], f"bound-buffers {by.get('bound-buffers', [''] * 11)[8:11]}")
    check(by.get("leader-atomic", [""] * 11)[3] == "1.500", "passes ms")

with tempfile.TemporaryDirectory() as empty:
    run = subprocess.run([sys.executable, script, empty], capture_output=True, text=True)
    check(run.returncode == 1 and "no results" in run.stderr, f"an empty folder: exit {run.returncode}, {run.stderr!r}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
