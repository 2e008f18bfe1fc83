#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUB's radix sort on the GPU, timed on the sizes vksort's GPU benchmark uses (scripts/gpu-bench.sh).

The sorts are scripts/cub_cases.py's (cupy.sort and torch.sort, which call CUB's device radix sort).
Times are CUDA events around the call, the median of --repeat runs after warm-ups of at least
--warmup-ms (a GPU raises its clocks only after some time under load; vksort's side of
scripts/gpu-bench.sh warms up as long). The call is more than the sort: cupy.sort copies its input
first (scripts/cub_kernels.py times CUB's kernels apart). Writes JSON; prints why if nothing runs.
"""
import argparse
import json
import sys

from cub_cases import cuda_libraries, random_keys, sort_cases, time_ms, warm_up


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
    libraries = cuda_libraries("cub_anchor", "CUB not timed")
    if libraries is None:
        return 1
    torch, cupy = libraries
    results = []
    g = torch.Generator(device="cuda").manual_seed(1)
    for k in range(a.min_log, a.max_log + 1, 2):
        n = 1 << k
        k32, k64 = random_keys(torch, g, n, a.entropy)
        cases = sort_cases(torch, cupy, k32, k64)
        for kind, api, fn in cases:
            warm_up(fn, a.warmup_ms, torch)
            median, runs = time_ms(fn, a.repeat, torch)
            results.append({"kind": kind, "api": api, "n": n, "entropy": a.entropy, "gpu_ms": {"median": median, "runs": runs}})
            print(f"{kind:10} n=2^{k:<2} entropy {a.entropy} {api:36} {median:9.3f} ms  {n / median / 1e6:8.2f} Gkeys/s")
    with open(a.out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "warmup_ms": a.warmup_ms,
                   "cupy": cupy.__version__ if cupy is not None else None, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
