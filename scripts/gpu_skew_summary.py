#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables of scripts/gpu-check.sh's skewed-input stage (3e), one per OUT/skewed-u32*.json
(skewed-u32.json: the default build; skewed-u32-replicas1.json: VKSORT_HISTOGRAM_REPLICAS=1;
skewed-u32-aggregate.json: VKSORT_BALLOT_COUNT_AGGREGATE=1; the pass kernel's other experiments are
stage 2b's, scripts/gpu_experiment_summary.py): for each input distribution, vksort's median time, its
histogram and passes, Gkeys/s, its speed against the uniform input's in the same file, the
look-back's rounds per tile, the histogram's counter copies, and CUB's time on the same entropy where
OUT/cub-entropy<K>.json has it (uniform: OUT/cub.json).

    scripts/gpu_skew_summary.py OUT

Exit status 1 where OUT holds no skewed-u32*.json with results.
"""
import glob
import json
import os
import sys


def cub_ms(out, entropy, n):
    """CUB's median ms for u32 keys of `entropy` (1: uniform, from cub.json) at n, or None."""
    name = "cub.json" if entropy == 1 else f"cub-entropy{entropy}.json"
    try:
        with open(os.path.join(out, name)) as f:
            results = json.load(f)["results"]
    except (OSError, ValueError, KeyError):
        return None
    for r in results:
        if r.get("kind") == "keys-u32" and r.get("n") == n and r.get("entropy", 1) == entropy:
            return r["gpu_ms"]["median"]
    return None


def entropy_of(distribution):
    """The number of ANDed words of an entropy:K distribution, 1 for uniform, None for the others."""
    if distribution == "uniform":
        return 1
    if distribution.startswith("entropy:"):
        return int(float(distribution.split(":", 1)[1]))
    return None


def table(out, path, results):
    """Prints the Markdown table of one JSON's results."""
    print(f"`{os.path.basename(path)}`:\n")
    uniform = {r["n"]: r["gpu_ms"]["median"] for r in results if r["distribution"] == "uniform"}
    print("| input | n | ms | histogram ms | passes ms | Gkeys/s | uniform / this | rounds/tile | copies | CUB ms | CUB / vksort |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        n, ms = r["n"], r["gpu_ms"]["median"]
        phases = r.get("phases_ms", {})
        facts = r.get("facts", {})
        hist = phases.get("histogram", {}).get("median")
        passes = phases.get("pass", {}).get("median")
        e = entropy_of(r["distribution"])
        cub = cub_ms(out, e, n) if e is not None else None
        base = uniform.get(n)

        def fmt(v, spec=".3f"):
            return "" if v is None else format(v, spec)

        print(f"| {r['distribution']} | 2^{n.bit_length() - 1} | {ms:.3f} | {fmt(hist)} | {fmt(passes)} | "
              f"{n / ms / 1e6:.2f} | {fmt(base / ms if base else None, '.2f')} | "
              f"{fmt(facts.get('lookback_rounds_per_tile'), '.2f')} | {fmt(facts.get('histogram_replicas'), '.0f')} | "
              f"{fmt(cub)} | {fmt(cub / ms if cub else None, '.2f')} |")
    print()


def main():
    if len(sys.argv) != 2:
        print("usage: scripts/gpu_skew_summary.py OUT", file=sys.stderr)
        return 2
    out = sys.argv[1]
    printed = 0
    default = os.path.join(out, "skewed-u32.json")
    for path in sorted(glob.glob(os.path.join(out, "skewed-u32*.json")), key=lambda p: (p != default, p)):
        try:
            with open(path) as f:
                results = json.load(f)["results"]
        except (OSError, ValueError, KeyError) as e:
            print(f"gpu_skew_summary: {path}: {e}", file=sys.stderr)
            continue
        if results:
            table(out, path, results)
            printed += 1
    if not printed:
        print(f"gpu_skew_summary: no results in {out}/skewed-u32*.json", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
