#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NVIDIA's register file as a model of the single pass's residency, and the shapes it favours.

An NVIDIA SM has 65536 32-bit registers on every GPU since Kepler, given out per warp of 32 in units
of 256 (so per invocation a multiple of 8): an SM holds floor(65536 / (warps x 32 x registers rounded
up to 8)) workgroups of a shape by registers alone (the CUDA occupancy calculator's rule; shared
memory and warp slots may bound it further). The single pass hides its latencies (the look-back's
chain, its barriers) with the keys resident at once, workgroups x tile: on an H200 all 15 shapes of
session 26's sweep whose registers came back ran faster as those keys rose (docs/algorithms.md).

    scripts/nvidia_occupancy.py shapes --kernel NAME [--exclude WxI,...] [--count K] STATS_FILE...

reads `vksort: pipeline ...` lines (VKSORT_PIPELINE_STATS=1) of the pass kernel NAME (e.g.
radix_onesweep_ballot_k32; _v with values; _k64) compiled at some workgroup W and I keys per
invocation with R registers, and prints, comma-separated, up to K shapes (default 2) of most resident
keys the model gives, one per I seen: the largest workgroup in whole warps of which 2, 3 or 4 fit on
an SM at R registers (128 to 1024 invocations), assuming R holds at that workgroup too (it moves a
little: 92 at 320 and 384 invocations, 94 at 256, 82 at 448; pairs 87 at 384 and 98 at 256, so where
I was compiled at several workgroups the most registers count). Ties go to the larger tile; shapes in
--exclude (already timed elsewhere) are skipped. Prints nothing where no line matches (lavapipe
reports no registers). gpu-check times the shapes it prints, and their real registers come back
with them.
"""
import argparse
import re
import sys

SM_REGISTERS = 65536
WARP_REGISTER_UNIT = 256
WARP = 32


def workgroups_per_sm(workgroup, registers):
    """Workgroups of `workgroup` invocations at `registers` each that one SM holds by registers alone."""
    warps = -(-workgroup // WARP)
    per_warp = -(-registers * WARP // WARP_REGISTER_UNIT) * WARP_REGISTER_UNIT
    return SM_REGISTERS // (warps * per_warp)


def parse_line(line):
    """(kernel, workgroup, keys per invocation, registers) of a `vksort: pipeline` line, or None."""
    m = re.match(r"vksort: pipeline (\S+) \(workgroup (\d+)[^)]*?spec 4=(\d+)[^)]*\).*?Register Count (\d+)", line)
    return (m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))) if m else None


def favoured_shapes(observed, exclude=(), count=2):
    """Up to `count` shapes "WxI" of most resident keys for {items: registers} `observed`, the best
    one per I."""
    best = {}  # items -> (resident keys, tile, shape)
    for items, registers in observed.items():
        for per_sm in (2, 3, 4):
            warps = SM_REGISTERS // (per_sm * WARP * (-(-registers // 8) * 8))
            workgroup = min(1024, warps * WARP)
            shape = f"{workgroup}x{items}"
            if workgroup < 128 or workgroups_per_sm(workgroup, registers) < per_sm or shape in exclude:
                continue
            score = (per_sm * workgroup * items, workgroup * items, shape)
            best[items] = max(best.get(items, score), score)
    return [shape for _, _, shape in sorted(best.values(), reverse=True)[:count]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    shapes = sub.add_parser("shapes")
    shapes.add_argument("--kernel", required=True)
    shapes.add_argument("--exclude", default="")
    shapes.add_argument("--count", type=int, default=2)
    shapes.add_argument("files", nargs="+")
    args = parser.parse_args()
    observed = {}
    for path in args.files:
        with open(path) as f:
            for line in f:
                parsed = parse_line(line)
                if parsed and parsed[0] == args.kernel:
                    observed[parsed[2]] = max(observed.get(parsed[2], 0), parsed[3])
    exclude = {s for s in args.exclude.split(",") if s}
    print(",".join(favoured_shapes(observed, exclude, args.count)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
