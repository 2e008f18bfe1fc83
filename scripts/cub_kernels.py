#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where CUB's radix sort spends its time, kernel by kernel, beside vksort's phases at the same size.

scripts/cub_anchor.py times cupy.sort and torch.sort whole (CUDA events around the call), which
includes what the call does besides sorting: cupy.sort copies its input first (a.copy(), then an
in-place sort through Thrust), and both allocate scratch. Here the PyTorch profiler (CUPTI activity
tracing: every kernel, memcpy and memset of the process, CuPy's too) records a few sorts after a
warm-up, and each kernel's GPU time per sort is summed by what it does: CUB's upfront histogram
(DeviceRadixSortHistogramKernel), its scan of the histograms (DeviceRadixSortExclusiveSumKernel), its
digit passes (DeviceRadixSortOnesweepKernel: one call per pass), copies and fills, anything else
(e.g. CuPy's copy kernel). So vksort's histogram and passes can be held against CUB's own, phase by
phase, and against the sort alone rather than the call.

    scripts/cub_kernels.py --log 28 [--repeat 3] [--warmup-ms MS] --out FILE [--vksort-dir DIR]

--vksort-dir: a gpu-check output folder; its radix-{keys-u32,pairs-u32,keys-u64}-new.json at the same
size give vksort's phases for the table. Writes JSON; prints a Markdown table; exit 1 (saying why)
where there is no PyTorch, no CUDA device or the profiler recorded no kernel.
"""
import argparse
import json
import os
import sys

from cub_cases import cuda_libraries, random_keys, sort_cases, time_ms, warm_up

# What a kernel does, by the words in its (demangled) name; the first match wins.
CATEGORIES = [
    ("histogram", ("DeviceRadixSortHistogramKernel",)),
    ("scan", ("DeviceRadixSortExclusiveSumKernel",)),
    ("passes", ("DeviceRadixSortOnesweepKernel",)),
    ("other radix", ("DeviceRadixSort", "RadixSort")),
    ("copy", ("Memcpy", "memcpy", "copy")),
    ("fill", ("Memset", "memset", "fill")),
]


def category(name):
    for label, words in CATEGORIES:
        if any(w in name for w in words):
            return label
    return "other"


def per_sort(kernels, sorts):
    """{category: {"ms": per sort, "calls": per sort}} from [(name, total device us, calls)] over
    `sorts` sorts."""
    out = {}
    for name, total_us, calls in kernels:
        c = out.setdefault(category(name), {"ms": 0.0, "calls": 0.0})
        c["ms"] += total_us / 1000.0 / sorts
        c["calls"] += calls / sorts
    return out


def profile(fn, repeat, torch):
    """[(kernel name, total device us, calls)] over `repeat` calls of fn."""
    from torch.profiler import ProfilerActivity, profile as torch_profile

    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeat):
            fn()
        torch.cuda.synchronize()
    kernels = []
    for e in prof.key_averages():
        # Self time: a kernel's own; a host-side row (a CUDA runtime call, an operator launching kernels)
        # has none of its own, so nothing counts twice. (Named cuda_* before PyTorch 2.4.)
        total = getattr(e, "self_device_time_total", None)
        if total is None:
            total = getattr(e, "self_cuda_time_total", 0.0)
        if total and total > 0:
            kernels.append((e.key, float(total), int(e.count)))
    return kernels


def vksort_phases(vksort_dir, kind, n):
    """vksort's {"total", "histogram", "passes"} ms at n for kind, from gpu-check's radix-KIND-new.json."""
    path = os.path.join(vksort_dir, f"radix-{kind}-new.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for r in json.load(f)["results"]:
            if r["n"] == n:
                p = r.get("phases_ms", {})
                return {"total": r["gpu_ms"]["median"], "histogram": p.get("histogram", {}).get("median"),
                        "passes": p.get("pass", {}).get("median")}
    return None


def table(results, vksort_dir):
    lines = ["| kind | n | CUB call ms (events) | CUB kernels ms | histogram | scan | passes (calls) | copy | fill | other |"
             " vksort ms | vksort histogram | vksort passes |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        c = r["per_sort"]

        def ms(label):
            return f"{c[label]['ms']:.3f}" if label in c else ""

        passes = f"{c['passes']['ms']:.3f} ({c['passes']['calls']:.0f})" if "passes" in c else ""
        other = sum(v["ms"] for k, v in c.items() if k in ("other", "other radix"))
        v = vksort_phases(vksort_dir, r["kind"], r["n"]) if vksort_dir else None

        def vms(x):
            return f"{x:.3f}" if x is not None else ""

        lines.append(f"| {r['kind']} ({r['api']}) | 2^{r['n'].bit_length() - 1} | {r['call_ms']:.3f} | {r['kernels_ms']:.3f} | "
                     f"{ms('histogram')} | {ms('scan')} | {passes} | {ms('copy')} | {ms('fill')} | {other:.3f} | "
                     f"{vms(v['total']) if v else ''} | {vms(v['histogram']) if v else ''} | {vms(v['passes']) if v else ''} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", type=int, default=28)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--warmup-ms", type=float, default=0.0)
    p.add_argument("--out", required=True)
    p.add_argument("--vksort-dir", default="")
    a = p.parse_args()
    libraries = cuda_libraries("cub_kernels", "CUB's kernels not profiled")
    if libraries is None:
        return 1
    torch, cupy = libraries
    n = 1 << a.log
    k32, k64 = random_keys(torch, torch.Generator(device="cuda").manual_seed(1), n)
    cases = sort_cases(torch, cupy, k32, k64)
    results = []
    for kind, api, fn in cases:
        # After a warm-up, the call as scripts/cub_anchor.py times it (CUDA events, median of at least 3),
        # then its kernels.
        warm_up(fn, a.warmup_ms, torch)
        call_ms, _ = time_ms(fn, max(3, a.repeat), torch)
        kernels = profile(fn, a.repeat, torch)
        if not kernels:
            print(f"cub_kernels: {kind}: the profiler recorded no kernel (CUPTI unavailable?)", file=sys.stderr)
            return 1
        results.append({"kind": kind, "api": api, "n": n, "call_ms": call_ms,
                        "kernels_ms": sum(t for _, t, _ in kernels) / 1000.0 / a.repeat,
                        "per_sort": per_sort(kernels, a.repeat),
                        "kernels": [{"name": name[:300], "us_per_sort": t / a.repeat, "calls_per_sort": c / a.repeat}
                                    for name, t, c in sorted(kernels, key=lambda k: -k[1])]})
    with open(a.out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "cupy": cupy.__version__ if cupy is not None else None, "repeat": a.repeat, "results": results}, f, indent=1)
    print(f"# CUB's kernels per sort on {torch.cuda.get_device_name()} (torch.profiler), beside vksort's phases\n")
    print(table(results, a.vksort_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
