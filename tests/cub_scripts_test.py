# SPDX-License-Identifier: MIT
"""scripts/cub_kernels.py sorts CUB's kernels into phases right and holds them against vksort's, on
kernel names as CUB 2.x and CuPy name them; it and scripts/cub_anchor.py run end to end on a stand-in
for PyTorch (no GPU needed), and say why where there is nothing to time.

    python3 tests/cub_scripts_test.py scripts/cub_kernels.py
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

# The GPU path end to end on a stand-in for PyTorch (no CuPy: torch.sort sorts the keys too), whose
# profiler reports CUB's kernels for each sort, one kernel of a host row without device time among them.
import types  # noqa: E402


class FakeEvent:
    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return 6.5


class FakeTensor:
    def __iand__(self, other):
        return self


class FakeProfile:
    sorts = 0

    def __init__(self, activities):
        self.activities = activities

    def __enter__(self):
        FakeProfile.sorts = 0
        return self

    def __exit__(self, *exc):
        return False

    def key_averages(self):
        s = FakeProfile.sorts
        row = types.SimpleNamespace
        return [row(key=ns + "DeviceRadixSortHistogramKernel<...>", count=s, self_device_time_total=300.0 * s),
                row(key=ns + "DeviceRadixSortOnesweepKernel<...>", count=4 * s, self_device_time_total=6000.0 * s),
                row(key="cudaLaunchKernel", count=5 * s, self_device_time_total=0.0)]


def fake_sort(x, stable=False):
    FakeProfile.sorts += 1


torch = types.ModuleType("torch")
torch.__version__ = "fake"
torch.int32, torch.int64 = "int32", "int64"
torch.cuda = types.SimpleNamespace(is_available=lambda: True, synchronize=lambda: None, get_device_name=lambda: "Fake GPU",
                                   Event=lambda enable_timing: FakeEvent())
torch.Generator = lambda device: types.SimpleNamespace(manual_seed=lambda seed: None)
torch.randint = lambda low, high, size, device, dtype, generator: FakeTensor()
torch.sort = fake_sort
torch.profiler = types.ModuleType("torch.profiler")
torch.profiler.ProfilerActivity = types.SimpleNamespace(CUDA="cuda")
torch.profiler.profile = FakeProfile
sys.modules["torch"], sys.modules["torch.profiler"], sys.modules["cupy"] = torch, torch.profiler, None
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "cub.json")
    sys.argv = ["cub_kernels.py", "--log", "28", "--repeat", "3", "--out", out]
    check(ck.main() == 0, "the stand-in run did not succeed")
    with open(out) as f:
        data = json.load(f)
    kinds = [r["kind"] for r in data["results"]]
    check(kinds == ["keys-u32", "keys-u64", "pairs-u32"], f"kinds {kinds}")
    first = data["results"][0]
    check(first["api"] == "torch.sort" and first["call_ms"] == 6.5, f"api and call: {first['api']}, {first['call_ms']}")
    check(abs(first["kernels_ms"] - 6.3) < 1e-9, f"kernel ms per sort {first['kernels_ms']}")
    check(first["per_sort"]["passes"]["calls"] == 4 and abs(first["per_sort"]["histogram"]["ms"] - 0.3) < 1e-9,
          f"per sort {first['per_sort']}")
    check(len(first["kernels"]) == 2, "a host row without device time is no kernel")
    # cub_anchor.py, which shares the stand-in's sorts (scripts/cub_cases.py): every even size, each kind.
    import cub_anchor  # noqa: E402
    sys.argv = ["cub_anchor.py", "--min-log", "10", "--max-log", "14", "--entropy", "3", "--out", out]
    check(cub_anchor.main() == 0, "cub_anchor's stand-in run did not succeed")
    with open(out) as f:
        rows = [(r["kind"], r["n"], r["entropy"], r["gpu_ms"]["median"]) for r in json.load(f)["results"]]
    check(len(rows) == 9 and rows[0] == ("keys-u32", 1024, 3, 6.5) and rows[-1][:2] == ("pairs-u32", 1 << 14),
          f"cub_anchor's rows {rows}")
del sys.modules["torch"], sys.modules["torch.profiler"], sys.modules["cupy"]

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
