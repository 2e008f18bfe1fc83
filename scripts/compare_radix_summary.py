#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The table of one scripts/compare-radix.sh run: median GPU ms of the old radix sort and of the new one
on each path, and new / old, per kind, input distribution and size (every result was checked by the bench).
With several rounds (files ...-rN.json): the median over rounds of each round's median, and the median
over rounds of each round's new / old, with the smallest and largest of those ratios (the noise).

    scripts/compare_radix_summary.py RUN_DIR
"""
import glob
import os
import re
import statistics
import sys

from bench_runs import BenchFileError, read_bench


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: compare_radix_summary.py RUN_DIR", file=sys.stderr)
        return 2
    run = sys.argv[1]
    cells = {}  # (kind, distribution, n) -> {variant: {round: ms}}
    device = commits = None
    for f in sorted(glob.glob(os.path.join(run, "*.json"))):
        m = re.match(r"(old|single-pass|reduce-then-scan)-(keys-u32|pairs-u32|keys-u64)-n[^-]*(?:-[a-z_]+)?(?:-r(\d+))?\.json$",
                     os.path.basename(f))
        if not m:
            continue
        try:
            data = read_bench(f)
        except BenchFileError as e:  # one line and exit 2, not a traceback
            print(f"compare_radix_summary.py: {e}", file=sys.stderr)
            return 2
        device = device or data["device"].get("name")
        commits = commits or {}
        commits[m.group(1) if m.group(1) == "old" else "new"] = data.get("git_commit")
        for r in data["results"]:
            if not r["gpu_ms"]:  # untimed (a device without timestamps): no ms to compare
                continue
            cells.setdefault((m.group(2), r.get("distribution", "uniform"), r["n"]), {}).setdefault(m.group(1), {})[int(m.group(3) or 1)] = r["gpu_ms"]["median"]
    if commits is None:
        print(f"compare_radix_summary.py: no old-/single-pass-/reduce-then-scan-KIND-nN.json in {run}", file=sys.stderr)
        return 1
    print(f"# Radix sort, old ({commits.get('old')}) against new ({commits.get('new')}) on {device}\n")
    rounds = max((len(v) for c in cells.values() for v in c.values()), default=1)
    if rounds > 1:
        print(f"Median over {rounds} rounds of median GPU ms; new / old: the median of the rounds' "
              "ratios [smallest-largest]; below 1 means the new code is faster.\n")
    else:
        print("Median GPU ms; new / old below 1 means the new code is faster.\n")
    print("| kind | input | n | old | new single pass | new reduce-then-scan | single pass / old | reduce-then-scan / old |")
    print("|---|---|---|---|---|---|---|---|")
    for (kind, dist, n) in sorted(cells):
        c = cells[(kind, dist, n)]
        old = c.get("old", {})
        fmt = lambda v: f"{statistics.median(v.values()):.2f}" if v else ""

        def ratio(new):
            r = [new[k] / old[k] for k in new if old.get(k)]
            if not r:
                return ""
            spread = f" [{min(r):.2f}-{max(r):.2f}]" if len(r) > 1 else ""
            return f"{statistics.median(r):.2f}{spread}"

        sp, rts = c.get("single-pass", {}), c.get("reduce-then-scan", {})
        print(f"| {kind} | {dist} | 2^{n.bit_length() - 1} | {fmt(old)} | {fmt(sp)} | {fmt(rts)} | {ratio(sp)} | {ratio(rts)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
