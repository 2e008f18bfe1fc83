#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Strong and weak scaling of the distributed sort (vksort-mpi bench) for P = 1..4 ranks on this machine:
# the time split (local sort, sampling, exchange, merge; slowest rank, median of the runs) and the
# largest rank's share of n. Writes a JSON array and prints a Markdown table.
#   scripts/mpi-scaling.sh [--tool build/apps/vksort-mpi/vksort-mpi] [--strong-n 1M] [--weak-n 256k]
#                          [--type u32] [--repeat 5] [--max-ranks 4] [--out FILE.json]
# Ranks share the machine's cores: on a CPU driver (lavapipe) more ranks mean fewer cores per rank's
# GPU, so this measures the algorithm's overheads there, not a cluster's scaling.
set -euo pipefail
command_line="$*"
tool=build/apps/vksort-mpi/vksort-mpi strong_n=1M weak_n=256k type=u32 repeat=5 max_ranks=4 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool="$2" ;; --strong-n) strong_n="$2" ;; --weak-n) weak_n="$2" ;; --type) type="$2" ;;
    --repeat) repeat="$2" ;; --max-ranks) max_ranks="$2" ;; --out) out="$2" ;;
    *) echo "mpi-scaling: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
flags=(--oversubscribe)
# Open MPI refuses root (containers, CI) unless told, even for --version.
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if mpiexec --version 2>/dev/null | grep -q "Open MPI"; then
  flags+=(--mca btl self,vader)
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
fi
lines="$(mktemp)"
trap 'rm -f "$lines"' EXIT
for scaling in strong weak; do
  for p in $(seq 1 "$max_ranks"); do
    if [ $scaling = strong ]; then n=$strong_n; weak=(); else n=$weak_n; weak=(--weak); fi
    mpiexec -n "$p" "${flags[@]}" "$tool" bench --n "$n" "${weak[@]}" --type "$type" --repeat "$repeat" \
      --json "$lines" >/dev/null
  done
done
python3 - "$lines" "$out" "$command_line" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
if sys.argv[2]:
    with open(sys.argv[2], "w") as f:
        json.dump({"command": "scripts/mpi-scaling.sh " + sys.argv[3], "runs": rows}, f, indent=1)
print("| scaling | ranks | n total | local sort ms | sampling ms | exchange ms | merge ms | total ms | Mkeys/s | largest share (bound) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    p = r["ranks"]
    print(f"| {r['scaling']} | {p} | {r['n_total']} | {r['local_sort_ms']:.1f} | {r['sampling_ms']:.2f} | "
          f"{r['exchange_ms']:.1f} | {r['merge_ms']:.1f} | {r['total_ms']:.1f} | {r['mkeys_per_s']:.1f} | "
          f"{r['largest_share']:.3f} of n, 1/p = {1/p:.3f} ({r['bound_keys'] / r['n_total']:.3f}) |")
PY
