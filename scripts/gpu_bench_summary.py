#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Markdown table of one scripts/gpu-bench.sh run: Gkeys/s (median GPU time) of every radix path per
kind and size, the facts that explain them (dispatches, bytes per key by design), and CUB's rate and
vksort's best path as a ratio of it where CUB ran in the same run.

    scripts/gpu_bench_summary.py RUN_DIR
"""
import glob
import json
import os
import sys


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: gpu_bench_summary.py RUN_DIR", file=sys.stderr)
        return 2
    run = sys.argv[1]
    rates = {}  # (kind, n) -> {path: Gkeys/s}
    facts = {}  # (kind, path) -> facts of the largest n
    device = None
    for path_file in sorted(glob.glob(os.path.join(run, "radix-*.json"))):
        kind_path = os.path.basename(path_file)[len("radix-"):-len(".json")]
        kind = "-".join(kind_path.split("-")[:2])
        label = "-".join(kind_path.split("-")[2:])
        with open(path_file) as f:
            data = json.load(f)
        device = device or data["device"].get("name")
        for r in data["results"]:
            rates.setdefault((kind, r["n"]), {})[label] = r["n"] / r["gpu_ms"]["median"] / 1e6
            facts[(kind, label)] = r.get("facts", {})
    cub = {}
    cub_file = os.path.join(run, "cub.json")
    if os.path.exists(cub_file):
        with open(cub_file) as f:
            for r in json.load(f)["results"]:
                cub[(r["kind"], r["n"])] = (r["n"] / r["gpu_ms"]["median"] / 1e6, r["api"])
    labels = sorted({label for v in rates.values() for label in v})
    print(f"# vksort radix sort on {device or 'unknown device'}: Gkeys/s, median GPU time, uniform keys\n")
    print("| kind | n | " + " | ".join(labels) + " | CUB | best / CUB |")
    print("|---|---|" + "---|" * (len(labels) + 2))
    for (kind, n) in sorted(rates):
        row = rates[(kind, n)]
        cells = [f"{row[l]:.3g}" if l in row else "" for l in labels]
        c = cub.get((kind, n))
        cub_cell = f"{c[0]:.3g} ({c[1]})" if c else "not run"
        ratio = f"{max(row.values()) / c[0]:.2f}x" if c else ""
        print(f"| {kind} | 2^{n.bit_length() - 1} | " + " | ".join(cells) + f" | {cub_cell} | {ratio} |")
    print("\n| kind | path | dispatches | global barriers | bytes per key (design) | tile | ranking |")
    print("|---|---|---|---|---|---|---|")
    for (kind, label), f in sorted(facts.items()):
        ranking = "ballot" if f.get("ranking_ballot") else "columns" if f.get("ranking_columns") else "splits"
        print(f"| {kind} | {label} | {f.get('dispatches', 0):.0f} | {f.get('global_barriers', 0):.0f} | "
              f"{f.get('bytes_per_key', 0):.0f} | {f.get('tile', 0):.0f} | {ranking} |")
    skipped = os.path.join(run, "skipped.txt")
    if os.path.exists(skipped):
        print("\nSkipped (refused by the library on this device):\n")
        with open(skipped) as f:
            for line in f:
                print(f"- {line.strip()}")
    if not cub:
        print("\nCUB was not timed in this run (no PyTorch/CuPy with a CUDA device).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
