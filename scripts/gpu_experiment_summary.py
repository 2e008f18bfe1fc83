#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown table of scripts/gpu-check.sh's experiment stage (2b): one row per OUT/experiment-LABEL.json
(experiment-default.json and experiment-default-again.json: the default kernel before and after the
experiments; the others: one experiment's switches on), each with its median time, histogram and
passes, its speed against the default's (the mean of the two default runs' medians, so that a drift
between them shows in both rows), the look-back's rounds per tile and window (predecessors a round
reads per digit; "first" where the first round reads a whole one too), and the u32 pass kernel's registers
and binary size from OUT/pipeline-stats-LABEL.txt (stage 1; pipeline-stats.txt for the default) where
the driver reports them.

    scripts/gpu_experiment_summary.py OUT

Exit status 1 where OUT holds no experiment-*.json with results.
"""
import glob
import json
import os
import re
import sys

from nvidia_occupancy import parse_line, workgroups_per_sm

KERNEL = "radix_onesweep_ballot_k32"


def median_result(path):
    """The first result of a `vksort bench --format json` file, or None."""
    try:
        with open(path) as f:
            results = json.load(f)["results"]
    except (OSError, ValueError, KeyError) as e:
        print(f"gpu_experiment_summary: {path}: {e}", file=sys.stderr)
        return None
    return results[0] if results else None


def pass_kernel(out, label):
    """(registers, binary bytes, workgroup) of the u32 pass kernel in the label's statistics, or Nones:
    the bound one (KERNEL_b, onesweep_bound.glsl) where the experiment built it, as the one that ran
    (the Sorter builds the address kernel beside it)."""
    name = "pipeline-stats.txt" if label.startswith("default") else f"pipeline-stats-{label}.txt"
    found = {}
    try:
        with open(os.path.join(out, name)) as f:
            for line in f:
                parsed = parse_line(line)
                if parsed and parsed[0] in (KERNEL, KERNEL + "_b"):
                    size = re.search(r"Binary Size (\d+)", line)
                    found.setdefault(parsed[0], (parsed[3], int(size.group(1)) if size else None, parsed[1]))
    except OSError:
        pass
    return found.get(KERNEL + "_b") or found.get(KERNEL) or (None, None, None)


def main():
    if len(sys.argv) != 2:
        print("usage: scripts/gpu_experiment_summary.py OUT", file=sys.stderr)
        return 2
    out = sys.argv[1]
    rows = []
    for path in glob.glob(os.path.join(out, "experiment-*.json")):
        label = os.path.basename(path)[len("experiment-"):-len(".json")]
        r = median_result(path)
        if r:
            rows.append((label, r))
    if not rows:
        print(f"gpu_experiment_summary: no results in {out}/experiment-*.json", file=sys.stderr)
        return 1
    # The defaults first (before, after), then the experiments by name.
    order = {"default": 0, "default-again": 1}
    rows.sort(key=lambda row: (order.get(row[0], 2), row[0]))
    defaults = [r["gpu_ms"]["median"] for label, r in rows if label in order]
    base = sum(defaults) / len(defaults) if defaults else None
    n = rows[0][1]["n"]
    print(f"u32 keys, uniform, 2^{n.bit_length() - 1}: median of each process's timed sorts; "
          "default / this above 1: the experiment is faster.\n")
    print("| run | ms | histogram ms | passes ms | Gkeys/s | default / this | rounds/tile | window | registers | WGs/SM (registers) | binary bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, r in rows:
        ms = r["gpu_ms"]["median"]
        phases = r.get("phases_ms", {})
        hist = phases.get("histogram", {}).get("median")
        passes = phases.get("pass", {}).get("median")
        facts = r.get("facts", {})
        rounds = facts.get("lookback_rounds_per_tile")
        window = facts.get("lookback_window")
        window = "" if window is None else f"{window:g}" + (" first" if facts.get("lookback_first_window") else "")
        registers, size, workgroup = pass_kernel(out, label)

        def fmt(v, spec=".3f"):
            return "" if v is None else format(v, spec)

        per_sm = workgroups_per_sm(workgroup, registers) if registers and workgroup else None
        print(f"| {label} | {ms:.3f} | {fmt(hist)} | {fmt(passes)} | {r['n'] / ms / 1e6:.2f} | "
              f"{fmt(base / ms if base else None, '.3f')} | {fmt(rounds, '.2f')} | {window} | {fmt(registers, 'd')} | "
              f"{fmt(per_sm, 'd')} | {fmt(size, 'd')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
