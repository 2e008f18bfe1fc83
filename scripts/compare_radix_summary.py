#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The table of one scripts/compare-radix.sh run: median GPU ms of the old radix sort and of the new one
on each path, and new / old, per kind and size (uniform keys; every result was checked by the bench).

    scripts/compare_radix_summary.py RUN_DIR
"""
import glob
import json
import os
import re
import sys


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: compare_radix_summary.py RUN_DIR", file=sys.stderr)
        return 2
    run = sys.argv[1]
    cells = {}  # (kind, n) -> {variant: (ms, facts)}
    device = commits = None
    for f in sorted(glob.glob(os.path.join(run, "*.json"))):
        m = re.match(r"(old|single-pass|reduce-then-scan)-(keys-u32|pairs-u32|keys-u64)-n", os.path.basename(f))
        if not m:
            continue
        with open(f) as fh:
            data = json.load(fh)
        device = device or data["device"].get("name")
        commits = commits or {}
        commits[m.group(1) if m.group(1) == "old" else "new"] = data.get("git_commit")
        for r in data["results"]:
            cells.setdefault((m.group(2), r["n"]), {})[m.group(1)] = (r["gpu_ms"]["median"], r.get("facts", {}))
    print(f"# Radix sort, old ({commits.get('old')}) against new ({commits.get('new')}) on {device}\n")
    print("Median GPU ms (uniform keys); new / old below 1 means the new code is faster.\n")
    print("| kind | n | old | new single pass | new reduce-then-scan | single pass / old | reduce-then-scan / old |")
    print("|---|---|---|---|---|---|---|")
    for (kind, n) in sorted(cells, key=lambda k: (k[0], k[1])):
        c = cells[(kind, n)]
        old = c.get("old", (None,))[0]
        sp = c.get("single-pass", (None,))[0]
        rts = c.get("reduce-then-scan", (None,))[0]
        fmt = lambda v: f"{v:.2f}" if v is not None else ""
        ratio = lambda v: f"{v / old:.2f}" if v is not None and old else ""
        print(f"| {kind} | 2^{n.bit_length() - 1} | {fmt(old)} | {fmt(sp)} | {fmt(rts)} | {ratio(sp)} | {ratio(rts)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
