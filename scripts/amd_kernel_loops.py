#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loops of vksort's kernels as AMD's shader compiler builds them, without an AMD GPU: Mesa's RADV
null device (RADV_FORCE_FAMILY) compiles the pipelines of a `vksort bench` run, RADV_DEBUG=shaders
prints each one's disassembly, and this names each by the pipeline vksort reports next
(VKSORT_PIPELINE_STATS=1) and lists its loops: instructions in the body (inner loops included, as
compiled, not as executed), shared atomics, global loads and stores. A loop whose body holds a whole batch of keys and no inner loop says what a key
costs: its instructions over the keys it handles.

A proxy for instruction counts, next to scripts/amd_kernel_stats.py (registers, occupancy): another
vendor's compiler, static code. It shows whether loops unrolled and how much work a key takes.

    scripts/amd_kernel_loops.py --vksort BIN [--family navi21] [--kind u32] [--kernels SUBSTRING]
                                [--disassembly DIR] [-- BENCH_ARGS...]

--kind: u32, pairs, u64 or u64pairs (default u32). --kernels: which pipelines (substring, default
"onesweep"). --disassembly DIR: also writes each matching kernel's disassembly to DIR/NAME.s.
Exit status: 0, 1 where no matching kernel was compiled, 2 for bad arguments, 77 where Mesa's radeon
Vulkan driver is not installed.
"""
import argparse
import os
import re
import subprocess
import sys

from amd_kernel_stats import KINDS, radv_icd, split_bench_args

PIPELINE = re.compile(r"^vksort: pipeline (\S+) \((.*?)\)")
INSTRUCTION = re.compile(r"^\s+(s_|v_|ds_|global_|buffer_|flat_|scratch_)\S*")
LABEL = re.compile(r"^(BB\d+):$")
BRANCH = re.compile(r"^\s+s_(?:c?branch)\S*\s+(BB\d+)")


def disassemblies(binary, family, icd, args):
    """[(pipeline name, constants, [disassembly lines])] in creation order."""
    env = dict(os.environ, RADV_FORCE_FAMILY=family, VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd,
               VKSORT_PIPELINE_STATS="1", MESA_SHADER_CACHE_DISABLE="true", RADV_DEBUG="shaders")
    run = subprocess.run([binary, "bench", "--algo", "radix", "--n", "1M", "--repeat", "1", "--no-cpu", *args],
                         env=env, capture_output=True, text=True, timeout=600)
    kernels, pending = [], None
    for line in (run.stdout + run.stderr).splitlines():
        if line.startswith("disasm:"):
            pending = []
            continue
        m = PIPELINE.match(line)
        if m:
            if pending is not None:
                kernels.append((m.group(1), m.group(2), pending))
            pending = None
            continue
        if pending is not None and (LABEL.match(line) or INSTRUCTION.match(line)):
            pending.append(line.split(";")[0].rstrip())
    return kernels


def loops(lines):
    """Each backward branch's loop: (head label, body lines), outermost last."""
    heads = {}
    found = []
    for i, line in enumerate(lines):
        m = LABEL.match(line)
        if m:
            heads[m.group(1)] = i
            continue
        b = BRANCH.match(line)
        if b and b.group(1) in heads:
            found.append((b.group(1), lines[heads[b.group(1)]:i + 1]))
    return found


def counts(body):
    ins = [x for x in body if INSTRUCTION.match(x)]
    return {
        "instructions": len(ins),
        "shared atomics": sum(x.strip().startswith("ds_add") for x in ins),
        "global loads": sum(x.strip().startswith("global_load") for x in ins),
        "global stores": sum(x.strip().startswith("global_store") for x in ins),
    }


def main():
    argv, bench_args = split_bench_args(sys.argv[1:])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vksort", required=True)
    p.add_argument("--family", default="navi21")
    p.add_argument("--kind", default="u32", choices=sorted(KINDS))
    p.add_argument("--kernels", default="onesweep")
    p.add_argument("--disassembly")
    a = p.parse_args(argv)
    icd = radv_icd()
    if icd is None:
        print("amd_kernel_loops: Mesa's radeon Vulkan driver (radeon_icd*.json) is not installed", file=sys.stderr)
        return 77
    kernels = [k for k in disassemblies(a.vksort, a.family, icd, KINDS[a.kind] + bench_args) if a.kernels in k[0]]
    if not kernels:
        print(f"amd_kernel_loops: no pipeline matching '{a.kernels}' was compiled with disassembly", file=sys.stderr)
        return 1
    print(f"# Loops of vksort's kernels on RADV's null device ({a.family}, {a.kind} keys)\n")
    columns = ["instructions", "shared atomics", "global loads", "global stores"]
    print("| kernel | constants | loop | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    for name, constants, lines in kernels:
        whole = counts(lines)
        print(f"| {name} | {constants} | whole kernel | " + " | ".join(str(whole[c]) for c in columns) + " |")
        for head, body in loops(lines):
            c = counts(body)
            print(f"| {name} | | {head} | " + " | ".join(str(c[k]) for k in columns) + " |")
        if a.disassembly:
            os.makedirs(a.disassembly, exist_ok=True)
            with open(os.path.join(a.disassembly, f"{name}.s"), "w") as f:
                f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
