#!/usr/bin/env bash
# Device call 2: clocks diagnosis, back-to-back (resident) benchmark 2^16..2^28 vs CUB, failure details.
set -u
start=$(date +%s)
exec > >(tee -a "$OUT/log.txt") 2>&1
el() { echo "[t+$(( $(date +%s) - start ))s] $*"; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
B=.devbin
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,pstate --format=csv,noheader -lms 10 > $OUT/clocks.csv 2>&1 &
smi=$!
el "A: 2^24 u32 single pass, idle between runs (upload/download each run), then resident"
timeout 30 $B/vksort bench --algo radix --type u32 --n 2^24 --dist uniform --repeat 3 --no-cpu --radix-scan single-pass
el "A2: resident"
timeout 30 $B/vksort bench --algo radix --type u32 --n 2^24 --dist uniform --repeat 3 --warmup 3 --resident --no-cpu --radix-scan single-pass
el "B1: gpu-bench resident 2^16..2^28 auto"
timeout 125 bash scripts/gpu-bench.sh --vksort $B/vksort --min-log 16 --max-log 28 --repeat 5 --timeout 60 --paths auto --out /tmp/res
tar czf $OUT/res.tgz -C /tmp res
el "B2: gpu-bench resident 2^16..2^24 reduce-then-scan-splits"
timeout 45 bash scripts/gpu-bench.sh --vksort $B/vksort --min-log 16 --max-log 24 --repeat 5 --timeout 20 --paths reduce-then-scan-splits --out /tmp/rts
tar czf $OUT/rts.tgz -C /tmp rts
el "C: splits failures"
for t in u32 u64 i64; do for v in "" --values; do
  timeout 15 $B/vksort bench --algo radix --type $t $v --n 100,1000,2047,2048,2049,5000 --dist uniform --repeat 1 --no-cpu --radix-scan reduce-then-scan --radix-ranking splits --format csv 2>&1 | tail -2
done; done
el "D: tests without validation"
timeout 35 $B/test_radix_single_pass > $OUT/t_single.txt 2>&1; echo "single rc=$?"; tail -4 $OUT/t_single.txt
timeout 20 $B/test_radix --test-case='*i64,*u32' > $OUT/t_radix.txt 2>&1; echo "radix rc=$?"; tail -4 $OUT/t_radix.txt
kill $smi
el done
