#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Markdown table of one scripts/gpu-bench.sh run: Gkeys/s (median GPU time) of every radix path per
kind and size, the facts that explain them (dispatches, bytes per key by design), CUB's rate and
vksort's best path as a ratio of it where CUB ran in the same run, and each path's phases (the upfront
histogram, the passes) in ms, so that two builds in one run show which phase a change moved.

    scripts/gpu_bench_summary.py RUN_DIR
"""
import json
import os
import sys

from bench_runs import bench_files, print_list_file, run_dir


def print_phases(phases, labels):
    """Each path's phases in ms (median GPU time); where a path is "new", every other path's time of
    each phase over new's (above 1: new is faster)."""
    names = sorted({name for row in phases.values() for path in row.values() for name in path})
    if not names:
        return
    others = [l for l in labels if l != "new"] if "new" in labels else []
    print("\n| kind | n | phase | " + " | ".join(f"{l} ms" for l in labels) + "".join(f" | {l} / new" for l in others) + " |")
    print("|---|---|---|" + "---|" * (len(labels) + len(others)))
    for (kind, n) in sorted(phases):
        row = phases[(kind, n)]
        for name in names:
            ms = {l: row[l][name] for l in labels if l in row and name in row[l]}
            if not ms:
                continue
            cells = [f"{ms[l]:.4g}" if l in ms else "" for l in labels]
            cells += [f"{ms[l] / ms['new']:.3f}x" if l in ms and ms.get("new") else "" for l in others]
            print(f"| {kind} | 2^{n.bit_length() - 1} | {name} | " + " | ".join(cells) + " |")


def main():
    run = run_dir("gpu_bench_summary.py RUN_DIR")
    if run is None:
        return 2
    rates = {}  # (kind, n) -> {path: Gkeys/s}
    facts = {}  # (kind, path) -> facts of the largest n
    phases = {}  # (kind, n) -> {path: {phase: median ms}}
    files, device = bench_files(run, "radix")
    for kind_path, data in files:
        kind = "-".join(kind_path.split("-")[:2])
        label = "-".join(kind_path.split("-")[2:])
        for r in data["results"]:
            rates.setdefault((kind, r["n"]), {})[label] = r["n"] / r["gpu_ms"]["median"] / 1e6
            facts[(kind, label)] = r.get("facts", {})
            phases.setdefault((kind, r["n"]), {})[label] = {p: v["median"] for p, v in r.get("phases_ms", {}).items()}
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
        ranking = ("ballot" if f.get("ranking_ballot") else "match" if f.get("ranking_match") else
                   "columns" if f.get("ranking_columns") else "splits")
        print(f"| {kind} | {label} | {f.get('dispatches', 0):.0f} | {f.get('global_barriers', 0):.0f} | "
              f"{f.get('bytes_per_key', 0):.0f} | {f.get('tile', 0):.0f} | {ranking} |")
    print_phases(phases, labels)
    print_list_file(run, "skipped.txt", "Skipped (refused by the library on this device):")
    if not cub:
        print("\nCUB was not timed in this run (no PyTorch/CuPy with a CUDA device).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
