#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Markdown table of the single-pass radix sort's phase clocks (`vksort bench --phase-clocks`, files
clocks-LABEL.json in RUN_DIR, as scripts/gpu-check.sh writes them): per case, each phase's share of the
passes' shader-clock ticks and the ticks per tile, then the same of the upfront histogram's blocks. The instrumented kernels have a barrier or two more
than the plain ones: the shares say where the time goes, the times are the instrumented kernels'.

    scripts/gpu_clock_summary.py RUN_DIR
"""
import sys

from bench_runs import bench_files, run_dir

PHASES = ["take_tile", "load_count", "offsets", "rank", "look_back", "stage", "write"]
HISTOGRAM_PHASES = ["clear", "count", "flush"]


def main():
    run = run_dir("gpu_clock_summary.py RUN_DIR")
    if run is None:
        return 2
    files, device = bench_files(run, "clocks")
    if not files:
        print(f"no clocks-*.json in {run}", file=sys.stderr)
        return 1
    print(f"# single-pass radix phase clocks on {device or 'unknown device'}: share of the passes' ticks\n")
    print("| case | n | ranking | tile | ms (clocked) | " + " | ".join(PHASES) + " | ticks/tile | histogram: "
          + " | ".join(HISTOGRAM_PHASES) + " | keys/block | ticks/block |")
    print("|---|---|---|---|---|" + "---|" * (len(PHASES) + len(HISTOGRAM_PHASES) + 3))
    for label, data in files:
        for r in data["results"]:
            facts = r.get("facts", {})
            if "clock_ticks_per_tile" not in facts:
                print(f"| {label} | {r['n']} | (no clock facts: not the single pass) |")
                continue
            ranking = next((name for name in ("match", "ballot", "columns") if facts.get(f"ranking_{name}") == 1), "?")
            shares = " | ".join(f"{100 * facts.get('clock_share_' + p, 0):.1f}%" for p in PHASES)
            if "histogram_clock_ticks_per_block" in facts:  # builds before bf46f1d clocked the passes only
                histogram = " | ".join(f"{100 * facts['histogram_clock_share_' + p]:.1f}%" for p in HISTOGRAM_PHASES)
                histogram += f" | {facts['histogram_block_keys']:.0f} | {facts['histogram_clock_ticks_per_block']:.0f}"
            else:
                histogram = " | ".join("-" for _ in range(len(HISTOGRAM_PHASES) + 2))
            print(f"| {label} | {r['n']} | {ranking} | {facts.get('tile', 0):.0f} | {r['gpu_ms']['median']:.3f} | "
                  f"{shares} | {facts['clock_ticks_per_tile']:.0f} | {histogram} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
