# SPDX-License-Identifier: MIT
"""scripts/cub_kernels.py sorts CUB's kernels into phases right and holds them against vksort's, on
kernel names as CUB 2.x and CuPy name them (no GPU needed: the profiler's part runs only on one), and
says why where there is nothing to profile.

    python3 tests/cub_kernels_test.py scripts/cub_kernels.py
"""
import json
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]
sys.path.insert(0, os.path.dirname(script))
import cub_kernels as ck  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


ns = "void cub::CUB_200200_900_NS::"
names = {
    ns + "DeviceRadixSortHistogramKernel<cub::DeviceRadixSortPolicy<unsigned int>::Policy900, false, unsigned int, "
         "unsigned long long>(unsigned long long*, unsigned int const*, unsigned long long, int, int)": "histogram",
    ns + "DeviceRadixSortExclusiveSumKernel<Policy900, unsigned long long>(unsigned long long*)": "scan",
    ns + "DeviceRadixSortOnesweepKernel<Policy900, false, unsigned int, cub::NullType, unsigned long long, int, "
         "int>(int*, int*, unsigned long long*, unsigned long long const*, unsigned int*, unsigned int const*, "
         "cub::NullType*, cub::NullType const*, int, int, int)": "passes",
    "Memcpy DtoD (Device -> Device)": "copy",
    "cupy_copy__uint32_uint32": "copy",
    "Memset (Device)": "fill",
    ns + "DeviceRadixSortUpsweepKernel<Policy, false, false, unsigned int, unsigned long long>": "other radix",
    "void at::native::elementwise_kernel<128, 2>": "other",
}
for name, want in names.items():
    check(ck.category(name) == want, f"{name[:60]}...: {ck.category(name)}, expected {want}")

# Three sorts of 2^28 u32 keys: 3 histogram calls, 12 pass calls.
kernels = [(ns + "DeviceRadixSortHistogramKernel<...>", 3 * 300.0, 3),
           (ns + "DeviceRadixSortExclusiveSumKernel<...>", 3 * 5.0, 3),
           (ns + "DeviceRadixSortOnesweepKernel<...>", 3 * 4 * 1500.0, 12),
           ("cupy_copy__uint32_uint32", 3 * 450.0, 3)]
p = ck.per_sort(kernels, 3)
check(abs(p["histogram"]["ms"] - 0.3) < 1e-9 and p["histogram"]["calls"] == 1, f"histogram {p.get('histogram')}")
check(abs(p["passes"]["ms"] - 6.0) < 1e-9 and p["passes"]["calls"] == 4, f"passes {p.get('passes')}")
check(abs(p["copy"]["ms"] - 0.45) < 1e-9, f"copy {p.get('copy')}")

# The table beside vksort's phases from a gpu-check folder's JSON at the same size.
with tempfile.TemporaryDirectory() as d:
    n = 1 << 28
    with open(os.path.join(d, "radix-keys-u32-new.json"), "w") as f:
        json.dump({"results": [{"n": 1 << 20, "gpu_ms": {"median": 0.1}, "phases_ms": {}},
                               {"n": n, "gpu_ms": {"median": 8.776},
                                "phases_ms": {"histogram": {"median": 0.868}, "pass": {"median": 7.905}}}]}, f)
    result = {"kind": "keys-u32", "api": "cupy.sort", "n": n, "call_ms": 6.77, "kernels_ms": 6.765, "per_sort": p}
    rows = ck.table([result, dict(result, kind="keys-u64")], d).splitlines()
    cells = [c.strip() for c in rows[2].strip("|").split("|")]
    check(cells[:7] == ["keys-u32 (cupy.sort)", "2^28", "6.770", "6.765", "0.300", "0.005", "6.000 (4)"], f"CUB's cells {cells[:7]}")
    check(cells[7] == "0.450" and cells[10:] == ["8.776", "0.868", "7.905"], f"copy and vksort's cells {cells[7:]}")
    cells = [c.strip() for c in rows[3].strip("|").split("|")]
    check(cells[10:] == ["", "", ""], f"no vksort JSON for u64: empty cells, got {cells[10:]}")

# Without PyTorch or a CUDA device (this machine): exit 1, saying why, nothing written.
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "cub.json")
    r = subprocess.run([sys.executable, script, "--log", "10", "--out", out], capture_output=True, text=True)
    try:
        import torch  # noqa: F401
        have_cuda = torch.cuda.is_available()
    except ImportError:
        have_cuda = False
    if not have_cuda:
        check(r.returncode == 1 and "cub_kernels: no" in r.stderr and not os.path.exists(out),
              f"no CUDA: exit {r.returncode}, stderr {r.stderr.strip()!r}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
