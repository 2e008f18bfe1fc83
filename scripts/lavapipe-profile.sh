#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where a command's lavapipe shaders spend their time. lavapipe's JIT code has no symbols, so this
# samples the running process by address (perf), copies the anonymous executable regions (the JIT'd
# shaders) out of /proc/PID/mem, disassembles them (objdump) with the sample count of each instruction,
# and prints the hottest regions and windows, and the share of samples on the instruction right after
# a reload of a 64-bit lane address from the stack (`mov 0x..(%rsp,%reg,8),%reg`): the stall of a load
# or store through a buffer device address in Mesa 22's gallivm (docs/algorithms.md, docs/particles.md).
#
#   scripts/lavapipe-profile.sh [--wait S] [--seconds S] [--out DIR] -- COMMAND [ARG ...]
#
# The command must run for at least wait + seconds (defaults 3 + 8): give it enough work, e.g.
#   scripts/lavapipe-profile.sh -- build/apps/vksort/vksort bench --algo radix --n 1M --repeat 600 --no-cpu
# Writes DIR/annotated.txt (every JIT instruction with its samples; default DIR /tmp/lavapipe-profile).
# Needs perf (Debian: linux-perf) and permission to profile the process (kernel.perf_event_paranoid <= 2).
set -euo pipefail

wait_s=3 seconds=8 out=/tmp/lavapipe-profile
while [ $# -gt 0 ]; do
  case "$1" in
    --wait) wait_s="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "lavapipe-profile: unknown option $1 (usage: see the script's header)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "lavapipe-profile: no command after --" >&2; exit 2; }
command -v perf >/dev/null || { echo "lavapipe-profile: perf is not installed (Debian: linux-perf)" >&2; exit 2; }
command -v objdump >/dev/null || { echo "lavapipe-profile: objdump is not installed (Debian: binutils)" >&2; exit 2; }
python=$(command -v /usr/bin/python3 || command -v python3)
mkdir -p "$out"

"$@" >"$out/command.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep "$wait_s"
kill -0 "$pid" 2>/dev/null || { echo "lavapipe-profile: the command ended within $wait_s s (see $out/command.log)" >&2; exit 1; }
perf record -q -o "$out/perf.data" -F 4000 -p "$pid" -- sleep "$seconds" >/dev/null 2>&1 ||
  { echo "lavapipe-profile: perf record failed (perf_event_paranoid?)" >&2; exit 1; }
kill -0 "$pid" 2>/dev/null || { echo "lavapipe-profile: the command ended while sampled: run it longer" >&2; exit 1; }
perf script -i "$out/perf.data" -F ip 2>/dev/null | sort | uniq -c >"$out/ips.txt"

"$python" - "$out" "$pid" <<'PY'
import re, subprocess, sys
out, pid = sys.argv[1], int(sys.argv[2])
samples = {}
for line in open(f"{out}/ips.txt"):
    count, ip = line.split()
    samples[int(ip, 16)] = int(count)
total = sum(samples.values())
regions = []
for line in open(f"/proc/{pid}/maps"):
    fields = line.split()
    if len(fields) < 6 and fields[1] == "r-xp":  # anonymous executable: JIT code
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        regions.append((sum(c for ip, c in samples.items() if lo <= ip < hi), lo, hi))
regions.sort(reverse=True)
annotated = []
with open(f"/proc/{pid}/mem", "rb") as mem:
    for n, lo, hi in regions[:8]:
        if n == 0:
            break
        print(f"region {lo:x}, {hi - lo} bytes: {100 * n / total:.1f}% of all samples")
        mem.seek(lo)
        blob = f"{out}/region_{lo:x}.bin"
        open(blob, "wb").write(mem.read(hi - lo))
        dis = subprocess.run(["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma={lo:#x}", blob],
                             capture_output=True, text=True, check=True).stdout
        for line in dis.split("\n"):
            m = re.match(r"\s*([0-9a-f]+):\t", line)
            if m:
                annotated.append((samples.get(int(m.group(1), 16), 0), line))
open(f"{out}/annotated.txt", "w").write("\n".join(f"{c:7d} {l}" for c, l in annotated) + "\n")
# Samples on the instruction after each reload of a 64-bit lane address (continuation lines of long
# encodings carry no mnemonic: skip them).
reload = re.compile(r"mov\s+0x[0-9a-f]+\(%rsp,%r[a-z0-9]+,8\),%r")
stalled = 0
for k, (c, line) in enumerate(annotated):
    if reload.search(line):
        j = k + 1
        while j < len(annotated) and annotated[j][1].count("\t") < 2:
            j += 1
        if j < len(annotated):
            stalled += annotated[j][0]
print(f"samples: {total}; right after a 64-bit lane address reload: {stalled} ({100 * stalled / max(total, 1):.1f}%)")
width = 40
counts = [c for c, _ in annotated]
windows = sorted(((sum(counts[i:i + width]), i) for i in range(0, max(len(counts) - width, 1), width // 2)), reverse=True)
for n, i in windows[:5]:
    print(f"hot window: lines {i + 1}-{i + width} of {out}/annotated.txt, {100 * n / max(total, 1):.1f}%")
PY
