# SPDX-License-Identifier: MIT
"""scripts/gpu_sweep_summary.py reads NVIDIA's register file right: workgroups per SM by registers
alone, and the keys their tiles hold, on the H200 sweep committed from session 26 (its pipeline
statistics give each case's registers), and on shapes worked out by hand.

    python3 tests/sweep_summary_test.py scripts/gpu_sweep_summary.py bench/results/.../sweep
"""
import importlib.util
import os
import subprocess
import sys

script, sweep = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(script))
spec = importlib.util.spec_from_file_location("gpu_sweep_summary", script)
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# By hand: registers per warp round up to units of 256 (8 per invocation), warps round up to 32 lanes.
wps = summary.nvidia_workgroups_per_sm
check(wps(384, 92) == 1, "384 x 96 registers = 36864: one per SM")
check(wps(320, 92) == 2, "320 x 96 = 30720: two")
check(wps(384, 80) == 2, "384 x 80 = 30720: two")
check(wps(384, 81) == 1, "81 registers round up to 88: 384 x 88 = 33792, one")
check(wps(256, 77) == 3, "256 x 80 = 20480: three")
check(wps(100, 32) == 16, "100 invocations take 4 warps: 128 x 32 = 4096, sixteen")
check(wps(1024, 255) == 0, "1024 x 256 registers exceed the file: none")

out = subprocess.run([sys.executable, script, sweep], capture_output=True, text=True, check=True).stdout
rows = {}
for line in out.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 17 and cells[0].startswith("2^"):
        rows[cells[1]] = cells
# case -> (registers, WGs/SM, resident keys): columns 13, 14, 15.
expected = {
    "u32-single-pass-items16-wg384": ("92", "1", "6144"),
    "u32-single-pass-items16-wg320": ("92", "2", "10240"),
    "u32-single-pass-items12-wg384": ("76", "2", "9216"),
    "u64-single-pass-items8-wg256": ("77", "3", "6144"),
    "u64-single-pass-items16-wg256": ("", "", ""),  # its statistics did not come back
}
for case, want in expected.items():
    got = tuple(rows[case][13:16]) if case in rows else None
    check(got == want, f"{case}: registers, WGs/SM, resident keys {got}, expected {want}")
check(len(rows) == 18, f"{len(rows)} rows, expected the sweep's 18 cases")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
