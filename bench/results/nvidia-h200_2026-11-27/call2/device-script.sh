#!/usr/bin/env bash
# Session 14's second call: the reduce-then-scan i64 failure in isolation, then u32 at 2^28 old vs new
# vs CUB with a longer warm-up (the first call's 2^28 runs straddled a clock change).
set -u
start=$(date +%s)
exec > >(tee -a "$OUT/log2.txt") 2>&1
el() { echo "[t+$(( $(date +%s) - start ))s] $*"; }
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f $icd ]; then for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig; export VK_DRIVER_FILES=$icd; fi
B=.devbin/new; O=.devbin/old/vksort
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,pstate --format=csv,noheader -lms 20 > $OUT/clocks2.csv 2>&1 &
smi=$!
el "A1: test_radix i64 alone"
timeout 25 $B/test_radix --test-case='*i64' > $OUT/t_i64_alone.txt 2>&1; echo "rc=$?"; grep -A3 "ERROR" $OUT/t_i64_alone.txt | head -8; tail -3 $OUT/t_i64_alone.txt
el "A2: test_radix u64 alone"
timeout 25 $B/test_radix --test-case='*u64' > $OUT/t_u64_alone.txt 2>&1; echo "rc=$?"; grep -A3 "ERROR" $OUT/t_u64_alone.txt | head -8; tail -3 $OUT/t_u64_alone.txt
el "A3: bench i64/u64 100 keys splits, 30 runs each, every run checked"
for t in i64 u64 f64 i32; do
  timeout 20 $B/vksort bench --algo radix --type $t --n 100,2048,2049 --dist uniform --seed 3 --repeat 30 --no-cpu --radix-scan reduce-then-scan --radix-ranking splits --format csv 2>&1 | tail -3 | cut -c1-160
done
el "A4: i64 alone without subgroups"
VKSORT_TEST_NO_SUBGROUPS=1 timeout 25 $B/test_radix --test-case='*i64' > $OUT/t_i64_nosub.txt 2>&1; echo "rc=$?"; grep -A3 "ERROR" $OUT/t_i64_nosub.txt | head -8; tail -3 $OUT/t_i64_nosub.txt
el "B: u32 2^28 old/new, 3 s warm-up, 9 runs"
mkdir -p /tmp/h2
timeout 60 $O bench --algo radix --type u32 --n 2^28 --dist uniform --repeat 9 --warmup 1 --warmup-ms 3000 --resident --no-cpu --format json --out /tmp/h2/u32-old.json 2>&1 | grep "radix  \|phases"
timeout 60 $B/vksort bench --algo radix --type u32 --n 2^28 --dist uniform --repeat 9 --warmup 1 --warmup-ms 3000 --resident --no-cpu --format json --out /tmp/h2/u32-new.json 2>&1 | grep "radix  \|phases"
el "CUB 2^28"
timeout 40 python3 scripts/cub_anchor.py --min-log 28 --max-log 28 --repeat 9 --warmup-ms 3000 --out /tmp/h2/cub.json
tar czf $OUT/h2.tgz -C /tmp h2
kill $smi 2>/dev/null; sleep 0.2; gzip -f $OUT/clocks2.csv
el done
