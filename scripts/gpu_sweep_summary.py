#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Markdown table of one scripts/gpu-sweep.sh run: per case and size, the median GPU time, Gkeys/s,
and the single pass's look-back facts (window, rounds per tile, rounds spent spinning, fallbacks,
whether digits walked on their own), how tiles were staged and the ballot ranking's row width (bits per
histogram counter), so their cost can be read beside the rate;
and the pass kernel's registers per invocation where the driver reported them (pipeline-stats.txt).
On NVIDIA devices two more columns read those registers through NVIDIA's register file
(scripts/nvidia_occupancy.py): workgroups of the case's shape an SM holds by registers alone, and the
keys those workgroups' tiles hold at once. Neither is measured: they
test a hypothesis. On the H200 sweep of session 26 (bench/results/nvidia-h200_2026-11-28-session26)
the time of all 15 cases with registers fell as those resident keys rose (u32 keys, pairs and u64
keys alike; at equal residency the larger tile won).
The upfront histogram's time does not depend on the pass's shape: a case whose histogram took much
longer than the others' ran at a lower GPU clock (an H200 dropped to 345-675 MHz between runs), and its
time says little about its shape.

    scripts/gpu_sweep_summary.py RUN_DIR
"""
import os
import re
import sys

from bench_runs import bench_files, print_list_file, run_dir
from nvidia_occupancy import workgroups_per_sm


def pass_statistics(run):
    """Case label -> (registers, shared bytes) of the single pass's pass kernel, from gpu-sweep.sh's
    pipeline-stats.txt (shared bytes None where not reported)."""
    path = os.path.join(run, "pipeline-stats.txt")
    found = {}
    if not os.path.exists(path):
        return found
    label = None
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                label = line[3:].strip()
            elif label and label not in found and re.search(r"pipeline radix_onesweep_(ballot|match|columns)", line):
                m = re.search(r"Register Count (\d+)", line)
                if m:
                    shared = re.search(r"Shared Memory Size (\d+)", line)
                    found[label] = (int(m.group(1)), int(shared.group(1)) if shared else None)
    return found


def histogram_ms(result):
    """The upfront histogram's median ms (single pass), or ''."""
    h = result.get("phases_ms", {}).get("histogram")
    return f"{h['median']:.3f}" if h else ""


def main():
    run = run_dir("gpu_sweep_summary.py RUN_DIR")
    if run is None:
        return 2
    files, device = bench_files(run, "sweep")
    rows = [(r["n"], label, r) for label, data in files for r in data["results"]]
    statistics = pass_statistics(run)
    nvidia = "nvidia" in (device or "").lower()
    print(f"# single-pass look-back sweep on {device or 'unknown device'}: uniform keys, median GPU time\n")
    if nvidia and statistics:
        print("WGs/SM and resident keys: NVIDIA's register file (65536 per SM, per warp in units of 256) and the pass")
        print("kernel's registers alone, a model to test against the times (scripts/gpu_sweep_summary.py).\n")
    print("| n | case | ms | Gkeys/s | workgroup | tile | staging | rows | window | per digit | rounds/tile | spin rounds | fallbacks | registers | WGs/SM | resident keys | histogram ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n, label, r in sorted(rows, key=lambda row: (row[0], row[1])):
        f = r.get("facts", {})
        ms = r["gpu_ms"]["median"]

        def fact(name, fmt="{:.0f}"):
            return fmt.format(f[name]) if name in f else ""

        staging = "" if "staged" not in f else "early" if f.get("staged_early") == 1 else "late" if f["staged"] == 1 else "direct"
        registers, per_sm, resident = statistics.get(label, (None, None))[0], "", ""
        if nvidia and registers and "workgroup" in f and "tile" in f:
            workgroups = workgroups_per_sm(int(f["workgroup"]), registers)
            per_sm, resident = str(workgroups), str(workgroups * int(f["tile"]))
        print(f"| 2^{n.bit_length() - 1} | {label} | {ms:.3f} | {n / ms / 1e6:.3g} | {fact('workgroup')} | {fact('tile')} | {staging} | {fact('ballot_row_bits')} | "
              f"{fact('lookback_window')} | {fact('lookback_per_digit')} | {fact('lookback_rounds_per_tile', '{:.2f}')} | "
              f"{fact('lookback_spin_rounds')} | {fact('lookback_fallbacks')} | {registers or ''} | {per_sm} | {resident} | "
              f"{histogram_ms(r)} |")
    print_list_file(run, "skipped.txt", "Skipped (refused by the library on this device):")
    print_list_file(run, "failed.txt", "Failed:")
    return 0


if __name__ == "__main__":
    sys.exit(main())
