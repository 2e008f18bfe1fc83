# SPDX-License-Identifier: MIT
"""scripts/nvidia_occupancy.py's model of NVIDIA's register file (workgroups per SM by registers
alone) on shapes worked out by hand, the shapes it favours from pipeline statistics, and
scripts/gpu_sweep_summary.py's columns from it (workgroups per SM, resident keys) on the H200 sweep
committed from session 26 (its pipeline statistics give each case's registers); and that the summaries
reading bench JSON (scripts/bench_runs.py, compare_radix_summary.py) refuse a malformed file in one line.

    python3 tests/sweep_summary_test.py scripts/gpu_sweep_summary.py bench/results/.../sweep
"""
import json
import os
import subprocess
import sys
import tempfile

script, sweep = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(script))
import nvidia_occupancy as model  # noqa: E402 (beside the script under test)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# By hand: registers per warp round up to units of 256 (8 per invocation), warps round up to 32 lanes.
wps = model.workgroups_per_sm
check(wps(384, 92) == 1, "384 x 96 registers = 36864: one per SM")
check(wps(320, 92) == 2, "320 x 96 = 30720: two")
check(wps(384, 80) == 2, "384 x 80 = 30720: two")
check(wps(384, 81) == 1, "81 registers round up to 88: 384 x 88 = 33792, one")
check(wps(256, 77) == 3, "256 x 80 = 20480: three")
check(wps(100, 32) == 16, "100 invocations take 4 warps: 128 x 32 = 4096, sixteen")
check(wps(1024, 255) == 0, "1024 x 256 registers exceed the file: none")

# A pipeline line as VKSORT_PIPELINE_STATS writes it.
line = ("vksort: pipeline radix_onesweep_ballot_k32 (workgroup 384 full subgroups, spec 1=0, spec 2=0, spec 4=16, "
        "spec 5=8, spec 8=6144): Register Count 92; Binary Size 44160; Shared Memory Size 42104")
check(model.parse_line(line) == ("radix_onesweep_ballot_k32", 384, 16, 92), f"parse_line: {model.parse_line(line)}")
check(model.parse_line("vksort: pipeline util_copy_words (workgroup 256): Binary Size 768") is None, "no registers: no shape")
# 16 keys at 92 registers (96 allotted): 2 x 320 (10240 keys) or 3 x 224 (10752); 20 keys at 97 (104):
# 2 x 288 (11520). The best per keys per invocation, most resident keys first; excluded shapes skipped.
fav = model.favoured_shapes
check(fav({16: 92, 20: 97}) == ["288x20", "224x16"], f"favoured {fav({16: 92, 20: 97})}")
check(fav({16: 92, 20: 97}, {"288x20"}, 1) == ["192x20"], f"excluded: {fav({16: 92, 20: 97}, {'288x20'}, 1)}")
check(fav({12: 76}) == ["384x12"], f"76 registers at 12 keys: {fav({12: 76})}")  # 2 x 384, 3 x 256: 9216 both, larger tile
check(fav({}) == [], "nothing observed: nothing favoured")
check(fav({32: 255}) == ["128x32"], f"255 registers (256 allotted): 2 x 128 fill the file exactly: {fav({32: 255})}")

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

# A malformed or foreign file in a run folder: every summary that reads bench JSON (bench_runs.py) exits 2
# with one line naming the file and why, no traceback (before: JSONDecodeError, TypeError, AttributeError).
scripts = os.path.dirname(os.path.abspath(script))
with tempfile.TemporaryDirectory() as tmp:
    bad = {
        "truncated": '{"device": {"name": "x"}, "results": [',
        "result_number": json.dumps({"device": {"name": "x"}, "results": [5]}),
        "gpu_ms_string": json.dumps({"device": {"name": "x"}, "results": [
            {"algorithm": "radix", "key": "u32", "distribution": "uniform", "n": 64, "gpu_ms": {"median": "x"}}]}),
        "no_device": json.dumps({"results": []}),
    }
    for summary, prefix in (("gpu_sweep_summary.py", "sweep"), ("gpu_bench_summary.py", "radix"),
                            ("gpu_clock_summary.py", "clocks")):
        for name, text in bad.items():
            run = os.path.join(tmp, f"{summary}-{name}")
            os.mkdir(run)
            with open(os.path.join(run, f"{prefix}-a.json"), "w") as f:
                f.write(text)
            r = subprocess.run([sys.executable, os.path.join(scripts, summary), run], capture_output=True, text=True)
            err = r.stderr.strip()
            check(r.returncode == 2 and len(err.splitlines()) == 1 and f"{prefix}-a.json" in err and "Traceback" not in err,
                  f"{summary} on {name}: exit {r.returncode}, expected 2 and one line: {err[-300:]}")
    # compare_radix_summary.py, on the same files named as scripts/compare-radix.sh names them, and on a
    # folder without them (before: a traceback, 'NoneType' object has no attribute 'get').
    compare = os.path.join(scripts, "compare_radix_summary.py")
    for name, text in bad.items():
        run = os.path.join(tmp, f"compare-{name}")
        os.mkdir(run)
        with open(os.path.join(run, "old-keys-u32-n65536.json"), "w") as f:
            f.write(text)
        r = subprocess.run([sys.executable, compare, run], capture_output=True, text=True)
        err = r.stderr.strip()
        check(r.returncode == 2 and len(err.splitlines()) == 1 and "old-keys-u32-n65536.json" in err and "Traceback" not in err,
              f"compare_radix_summary.py on {name}: exit {r.returncode}, expected 2 and one line: {err[-300:]}")
    r = subprocess.run([sys.executable, compare, tmp], capture_output=True, text=True)
    err = r.stderr.strip()
    check(r.returncode == 1 and len(err.splitlines()) == 1 and "Traceback" not in err,
          f"compare_radix_summary.py on a folder without its files: exit {r.returncode}, expected 1 and one line: {err[-300:]}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
