#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What AMD's shader compiler makes of vksort's radix kernels, without an AMD GPU: Mesa's RADV driver
offers a "null" device for an AMD family named by RADV_FORCE_FAMILY, on which pipelines compile (ACO)
and nothing runs. For each family and each kind of sort this runs `vksort bench` there with
VKSORT_PIPELINE_STATS=1 (the sort itself then fails for want of memory; the pipelines compiled first)
and prints a Markdown table of the kernels' statistics: registers (and the pressure before scheduling),
spills, scratch, shared memory,
waves per SIMD (occupancy), instruction count, ACO's static latency and throughput estimates.

A proxy, not a measurement: another vendor's compiler, and static counts. It answers "how many
registers, does it spill, how many waves fit" for a kernel variant or shape before a GPU is at hand.

    scripts/amd_kernel_stats.py --vksort BIN [--vksort LABEL=BIN ...] [--families LIST] [--kinds LIST]
                                [--kernels SUBSTRING] [-- BENCH_ARGS...]

--vksort: a binary, or LABEL=BIN (several: one row each, e.g. old=/tmp/old/vksort new=build/...).
--families: RADV_FORCE_FAMILY names (default navi21,gfx1100,aldebaran: RDNA 2, RDNA 3, CDNA 2).
--kinds: u32,pairs,u64,u64pairs (default u32,pairs,u64). --kernels: which pipelines (substring,
default "onesweep"). BENCH_ARGS go to every `vksort bench` (e.g. --items-per-thread 32).
Exit status: 0, 1 where a run reported no statistics, 2 for bad arguments, 77 where Mesa's radeon
Vulkan driver is not installed (ctest's amd_kernel_stats_script then reports a skip).
"""
import argparse
import glob
import os
import re
import subprocess
import sys

KINDS = {
    "u32": ["--type", "u32"],
    "pairs": ["--type", "u32", "--values"],
    "u64": ["--type", "u64"],
    "u64pairs": ["--type", "u64", "--values"],
}
# "Pre-Sched VGPRs": the register pressure before ACO's scheduler, which spends VGPRs freely up to what
# keeps the occupancy that shared memory allows: so VGPRs may double with no more values live, and the
# pressure before scheduling is the better proxy for the values a kernel holds at once, which any
# vendor's compiler must find registers for (session 35: a change that let the ranking keep each key's
# digit from the counting doubled it, 38 -> 78, where VGPRs alone looked like ACO's slack).
COLUMNS = ["VGPRs", "Pre-Sched VGPRs", "SGPRs", "Spilled VGPRs", "Spilled SGPRs", "Scratch size", "LDS size",
           "Subgroups per SIMD",
           "Instructions", "Latency", "Inverse Throughput"]
LINE = re.compile(r"^vksort: pipeline (\S+) \((.*?)\)(?: \[.*?\])?: (.*)$")


def radv_icd():
    for pattern in ("/usr/share/vulkan/icd.d/radeon_icd*.json", "/etc/vulkan/icd.d/radeon_icd*.json"):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def compile_stats(binary, family, icd, args):
    env = dict(os.environ, RADV_FORCE_FAMILY=family, VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd,
               VKSORT_PIPELINE_STATS="1", MESA_SHADER_CACHE_DISABLE="true")
    run = subprocess.run([binary, "bench", "--algo", "radix", "--n", "1M", "--repeat", "1", "--no-cpu", *args],
                         env=env, capture_output=True, text=True, timeout=300)
    rows = []
    for line in run.stderr.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        stats = {}
        for item in m.group(3).split("; "):
            name, _, value = item.rpartition(" ")
            stats[name.strip()] = value
        rows.append((m.group(1), m.group(2), stats))
    if not rows:
        tail = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
        print(f"amd_kernel_stats: {family}: no pipeline statistics from {binary} {' '.join(args)}: {tail}",
              file=sys.stderr)
    return rows


def split_bench_args(argv):
    """(this script's arguments, those after "--" for every `vksort bench`)."""
    if "--" not in argv:
        return argv, []
    return argv[:argv.index("--")], argv[argv.index("--") + 1:]


def main():
    argv, bench_args = split_bench_args(sys.argv[1:])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vksort", action="append", required=True)
    p.add_argument("--families", default="navi21,gfx1100,aldebaran")
    p.add_argument("--kinds", default="u32,pairs,u64")
    p.add_argument("--kernels", default="onesweep")
    a = p.parse_args(argv)
    icd = radv_icd()
    if not icd:
        print("amd_kernel_stats: Mesa's radeon Vulkan driver (radeon_icd*.json) is not installed", file=sys.stderr)
        return 77
    binaries = []
    for spec in a.vksort:
        label, _, binary = spec.rpartition("=")
        if not os.access(binary, os.X_OK):
            print(f"amd_kernel_stats: {binary} is not an executable vksort", file=sys.stderr)
            return 2
        binaries.append((label or os.path.basename(os.path.dirname(os.path.abspath(binary))), binary))
    for kind in a.kinds.split(","):
        if kind not in KINDS:
            print(f"amd_kernel_stats: unknown kind {kind} (one of {', '.join(KINDS)})", file=sys.stderr)
            return 2
    print(f"# AMD shader compiler (RADV null device, Mesa) statistics of vksort's kernels matching "
          f"'{a.kernels}'{' with ' + ' '.join(bench_args) if bench_args else ''}\n")
    print("| family | kind | build | kernel | constants | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|---|---|" + "---|" * len(COLUMNS))
    missing = False
    for family in a.families.split(","):
        for kind in a.kinds.split(","):
            for label, binary in binaries:
                rows = compile_stats(binary, family, icd, KINDS[kind] + bench_args)
                missing |= not rows
                for kernel, constants, stats in rows:
                    if a.kernels not in kernel:
                        continue
                    cells = [stats.get(c, "") for c in COLUMNS]
                    print(f"| {family} | {kind} | {label} | {kernel} | {constants} | " + " | ".join(cells) + " |")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
