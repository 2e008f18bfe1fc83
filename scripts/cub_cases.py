# SPDX-License-Identifier: MIT
"""What the scripts that time CUB (cub_anchor.py, cub_kernels.py) share: PyTorch and CuPy where there
are a CUDA device and the libraries, the random keys (as vksort's uniform and entropy inputs), the sorts
that call CUB's radix sort, a warm-up and CUDA-event timing.

cupy.sort and torch.sort call CUB's device radix sort on CUDA devices. Keys: cupy.sort on uint32 and
uint64 (torch.sort where CuPy is missing: int32 and int64 keys, the same radix sort). Pairs: torch.sort
with stable=True returns each key's index, so it moves 32-bit keys with 64-bit values (more bytes than
vksort's 32-bit values: it favours vksort).
"""
import statistics
import sys
import time


def cuda_libraries(tool, missing):
    """(torch, cupy or None) where PyTorch sees a CUDA device; else None, having printed
    "TOOL: no ... here: MISSING"."""
    try:
        import torch
    except ImportError:
        print(f"{tool}: no PyTorch here: {missing}", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{tool}: no CUDA device here: {missing}", file=sys.stderr)
        return None
    try:
        import cupy
    except ImportError:
        cupy = None
    return torch, cupy


def random_keys(torch, generator, n, entropy=1):
    """n random int32 and int64 keys on the GPU; with entropy K > 1 each the AND of K uniform words (less
    entropy per bit: Thearling and Smith, as the Onesweep paper measures)."""
    k32 = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=generator)
    k64 = torch.randint(-2**63, 2**63 - 1, (n,), device="cuda", dtype=torch.int64, generator=generator)
    for _ in range(entropy - 1):
        k32 &= torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=generator)
        k64 &= torch.randint(-2**63, 2**63 - 1, (n,), device="cuda", dtype=torch.int64, generator=generator)
    return k32, k64


def sort_cases(torch, cupy, k32, k64):
    """[(kind, api, sort)]: keys-u32, keys-u64 and pairs-u32, each a call that sorts the keys by CUB."""
    if cupy is not None:
        c32, c64 = cupy.asarray(k32).view(cupy.uint32), cupy.asarray(k64).view(cupy.uint64)
        cases = [("keys-u32", "cupy.sort", lambda: cupy.sort(c32)), ("keys-u64", "cupy.sort", lambda: cupy.sort(c64))]
    else:
        cases = [("keys-u32", "torch.sort", lambda: torch.sort(k32)), ("keys-u64", "torch.sort", lambda: torch.sort(k64))]
    cases.append(("pairs-u32", "torch.sort(stable) 64-bit indices", lambda: torch.sort(k32, stable=True)))
    return cases


def warm_up(fn, warmup_ms, torch):
    """Calls fn once, and again until warmup_ms have passed (a GPU raises its clocks only under load)."""
    began = time.monotonic()
    fn()
    torch.cuda.synchronize()
    while (time.monotonic() - began) * 1000.0 < warmup_ms:
        fn()
        torch.cuda.synchronize()


def time_ms(fn, repeat, torch):
    """(median, runs): fn's GPU time in ms by CUDA events around each of `repeat` calls."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    runs = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        runs.append(start.elapsed_time(end))
    return statistics.median(runs), runs
