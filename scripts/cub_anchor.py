#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUB's radix sort on the GPU, timed on the sizes vksort's GPU benchmark uses (scripts/gpu-bench.sh).

cupy.sort and torch.sort call CUB's device radix sort on CUDA devices. Keys: cupy.sort on uint32 and
uint64 (torch.sort where CuPy is missing: int32 and int64 keys, the same radix sort). Pairs: torch.sort
with stable=True returns each key's index, so it moves 32-bit keys with 64-bit values (more bytes than
vksort's 32-bit values: it favours vksort, which the summary says). Times are CUDA events around the
sort alone, the median of --repeat runs after warm-ups of at least --warmup-ms (a GPU raises its clocks
only after some time under load; vksort's side of scripts/gpu-bench.sh warms up as long). Writes JSON;
prints why if nothing runs.
"""
import argparse
import json
import statistics
import sys
import time


def time_ms(fn, repeat, warmup_ms, torch_mod):
    start, end = torch_mod.cuda.Event(enable_timing=True), torch_mod.cuda.Event(enable_timing=True)
    began = time.monotonic()
    fn()
    torch_mod.cuda.synchronize()
    while (time.monotonic() - began) * 1000.0 < warmup_ms:
        fn()
        torch_mod.cuda.synchronize()
    runs = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        runs.append(start.elapsed_time(end))
    return statistics.median(runs), runs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--min-log", type=int, default=16)
    p.add_argument("--max-log", type=int, default=28)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--warmup-ms", type=float, default=0.0)
    p.add_argument("--entropy", type=int, default=1,
                   help="keys: the AND of this many uniform words (vksort's entropy distribution; 1: uniform)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.entropy < 1 or a.entropy > 32:
        print("cub_anchor: --entropy takes 1..32", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("cub_anchor: no PyTorch here: CUB not timed", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("cub_anchor: no CUDA device here: CUB not timed", file=sys.stderr)
        return 1
    try:
        import cupy
    except ImportError:
        cupy = None
    results = []
    g = torch.Generator(device="cuda").manual_seed(1)
    for k in range(a.min_log, a.max_log + 1, 2):
        n = 1 << k
        k32 = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g)
        k64 = torch.randint(-2**63, 2**63 - 1, (n,), device="cuda", dtype=torch.int64, generator=g)
        # Less entropy per bit (Thearling and Smith, as the Onesweep paper measures): AND more words in.
        for _ in range(a.entropy - 1):
            k32 &= torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g)
            k64 &= torch.randint(-2**63, 2**63 - 1, (n,), device="cuda", dtype=torch.int64, generator=g)
        cases = []
        if cupy is not None:
            c32 = cupy.asarray(k32).view(cupy.uint32)
            c64 = cupy.asarray(k64).view(cupy.uint64)
            cases += [("keys-u32", "cupy.sort", lambda: cupy.sort(c32)), ("keys-u64", "cupy.sort", lambda: cupy.sort(c64))]
        else:
            cases += [("keys-u32", "torch.sort", lambda: torch.sort(k32)), ("keys-u64", "torch.sort", lambda: torch.sort(k64))]
        cases.append(("pairs-u32", "torch.sort(stable) 64-bit indices", lambda: torch.sort(k32, stable=True)))
        for kind, api, fn in cases:
            median, runs = time_ms(fn, a.repeat, a.warmup_ms, torch)
            results.append({"kind": kind, "api": api, "n": n, "entropy": a.entropy, "gpu_ms": {"median": median, "runs": runs}})
            print(f"{kind:10} n=2^{k:<2} entropy {a.entropy} {api:36} {median:9.3f} ms  {n / median / 1e6:8.2f} Gkeys/s")
    with open(a.out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "warmup_ms": a.warmup_ms,
                   "cupy": cupy.__version__ if cupy is not None else None, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
