#!/usr/bin/env bash
# Session 14's one device call: pipeline statistics, the match ranking's correctness, the look-back
# sweep at 2^22/2^24, old vs new (ballot, match) at 2^20/2^24/2^28 beside CUB, then the test suites.
# Each stage is skipped when the call's time is nearly spent, so what ran still comes back.
set -u
start=$(date +%s)
exec > >(tee -a "$OUT/log.txt") 2>&1
el() { echo "[t+$(( $(date +%s) - start ))s] $*"; }
left() { [ $(( $(date +%s) - start )) -lt "$1" ]; }   # true while fewer than $1 seconds have passed
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f $icd ]; then for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig; export VK_DRIVER_FILES=$icd; fi
HS=${HS:-2^20,2^24,2^28}; SW=${SW:-2^22,2^24}
B=.devbin/new; O=.devbin/old/vksort
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,pstate --format=csv,noheader -lms 20 > $OUT/clocks.csv 2>&1 &
smi=$!
$B/vksort info > $OUT/info.txt 2>&1; head -30 $OUT/info.txt
el "A: pipeline statistics"
for opt in "--type u32" "--type u32 --radix-scan single-pass --radix-ranking match" "--type u32 --values" "--type u64"; do
  VKSORT_PIPELINE_STATS=1 timeout 30 $B/vksort bench --algo radix $opt --n 1M --repeat 1 --no-cpu 2>&1 | grep -e '^vksort: pipeline' -e 'VKSORT_PIPELINE' -e 'rror' | sort -u
done > $OUT/pipeline-stats.txt
grep -e onesweep -e 'not offer' $OUT/pipeline-stats.txt | cut -c1-400 | head -20
el "B: single-pass tests u32, u64 (all rankings incl. match)"
timeout 60 $B/test_radix_single_pass --test-case='*sort u32,*sort u64' > $OUT/t_single_u32_u64.txt 2>&1; echo "rc=$?"; tail -5 $OUT/t_single_u32_u64.txt
el "D: sweep"
timeout 110 scripts/gpu-sweep.sh --vksort $B/vksort --out /tmp/sweep --sizes $SW --windows 1,8,32 --items 0,8,32 --u64-items 0,16 --repeat 5 --warmup-ms 500 --timeout 30
tar czf $OUT/sweep.tgz -C /tmp sweep
el "C: headline old/new/match vs CUB"
mkdir -p /tmp/head
run() { local label=$1 bin=$2; shift 2; left 430 || { echo "skip $label"; return; }
  el "$label"; timeout 60 $bin bench --algo radix "$@" --n $HS --dist uniform --repeat 5 --warmup 1 --warmup-ms 700 --resident --no-cpu --format json --out /tmp/head/$label.json 2>/tmp/head/$label.err || { echo "$label rc=$?"; tail -3 /tmp/head/$label.err; }
}
run u32-old $O --type u32
run u32-new $B/vksort --type u32
run u32-match $B/vksort --type u32 --radix-scan single-pass --radix-ranking match
run pairs-new $B/vksort --type u32 --values
run pairs-match $B/vksort --type u32 --values --radix-scan single-pass --radix-ranking match
run u64-new $B/vksort --type u64
run u64-match $B/vksort --type u64 --radix-scan single-pass --radix-ranking match
run pairs-old $O --type u32 --values
run u64-old $O --type u64
if left 470; then el "CUB"; timeout 60 python3 scripts/cub_anchor.py --min-log 20 --max-log 28 --repeat 5 --warmup-ms 700 --out /tmp/head/cub.json; fi
tar czf $OUT/head.tgz -C /tmp head
el "E: remaining tests"
if left 490; then timeout 40 $B/test_radix_single_pass --test-case-exclude='*sort u32,*sort u64' > $OUT/t_single_rest.txt 2>&1; echo "rc=$?"; tail -4 $OUT/t_single_rest.txt; fi
if left 520; then timeout 25 $B/test_radix --test-case='*i64,*u32' > $OUT/t_radix.txt 2>&1; echo "rc=$?"; tail -4 $OUT/t_radix.txt; fi
kill $smi 2>/dev/null; gzip -f $OUT/clocks.csv
el done
