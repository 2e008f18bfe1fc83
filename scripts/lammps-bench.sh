#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The particle app against LAMMPS' DPD on the same machine and the same system: Groot-Warren DPD,
# 32000 particles in a periodic box of 22.013 (density 3), a = 25, gamma = 4.5, kT = 1, r_c = 1,
# dt = 0.04. LAMMPS is built from Debian's own source package (Debian's binary lacks pair_style dpd)
# in a scratch folder, serial, with only the DPD-BASIC package; nothing of it enters this repository.
# The two programs run in turn (app, LAMMPS, app, ...) so both see the same machine load; the script
# writes every run's particle-steps/s, the medians and their ratio, and T, P and g(r) of both, and
# keeps both programs' outputs under <out>/logs.
#   scripts/lammps-bench.sh [--app build/apps/particles/particles] [--steps 300] [--repeat 3]
#                           [--scratch /tmp/lammps-build] [--out bench/results/<machine>_dpd-vs-lammps]
#                           [--app-args "--neighbours list"]   (more app options, split at spaces)
# The LAMMPS build (~20 min on 2 busy cores) is kept in the scratch folder and reused when its
# binary is there.
set -euo pipefail
command_line="$0 $*"
app=build/apps/particles/particles app_args="" steps=300 repeat=3 scratch=/tmp/lammps-build
out=bench/results/lavapipe-llvm15-2core_dpd-vs-lammps
while [ $# -gt 0 ]; do
  case "$1" in
    --app) app="$2" ;; --app-args) app_args="$2" ;; --steps) steps="$2" ;; --repeat) repeat="$2" ;; --scratch) scratch="$2" ;; --out) out="$2" ;;
    *) echo "lammps-bench: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
[ -x "$app" ] || { echo "lammps-bench: no particle app at $app (cmake --build build --target particles)" >&2; exit 2; }
lmp="$scratch/build/lmp_serial"

if [ ! -x "$lmp" ]; then
  # Debian's source package through apt, with a deb-src line in a sources list of our own (the
  # system's lists are not touched).
  mkdir -p "$scratch/apt/lists/partial" "$scratch/src"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $(. /etc/os-release; echo "$VERSION_CODENAME") main" \
    > "$scratch/apt/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$scratch/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State::Lists=$scratch/apt/lists")
  apt-get "${apt_opts[@]}" update -qq
  (cd "$scratch/src" && apt-get "${apt_opts[@]}" source --download-only lammps)
  (cd "$scratch" && tar xf src/lammps_*.orig.tar.xz --wildcards '*/cmake/*' '*/src/*')
  source_dir="$(ls -d "$scratch"/lammps-*/cmake)"
  cmake -S "$source_dir" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_MPI=no -DBUILD_OMP=no \
    -DPKG_DPD-BASIC=yes -DBUILD_TOOLS=no -DBUILD_SHARED_LIBS=no -DLAMMPS_MACHINE=serial -DWITH_JPEG=no \
    -DWITH_PNG=no -DWITH_FFMPEG=no -DWITH_GZIP=no -DFFT=KISS -DCMAKE_CXX_FLAGS=-O2 >"$scratch/cfg.log"
  cmake --build "$scratch/build" -j "$(nproc)" >"$scratch/build.log"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# in.dpd: LAMMPS' own DPD example's system (fcc lattice at density 3: 20^3 cells of 1.1006 = 22.013).
cat >"$work/in.dpd" <<IN
units lj
atom_style atomic
boundary p p p
comm_modify vel yes
lattice fcc 3.0
region box block 0 20 0 20 0 20
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.0 4928459 dist gaussian mom yes
pair_style dpd 1.0 1.0 34387
pair_coeff 1 1 25.0 4.5
neighbor 0.3 bin
neigh_modify delay 0 every 1 check yes
timestep 0.04
fix 1 all nve
compute rdf all rdf 50
fix rdf all ave/time $steps 1 $steps c_rdf[*] file $work/rdf.txt mode vector
thermo_style custom step temp press
thermo 50
run $steps
IN

for k in $(seq 1 "$repeat"); do
  # shellcheck disable=SC2086  # --app-args are words
  "$app" --scenario equilibrium --n 32000 --box 22.013,22.013,22.013 --dt 0.04 --steps "$steps" --every 50 \
    --seed "$k" --xyz "$work/app.xyz" $app_args >"$work/app_$k.txt"
  (cd "$work" && "$lmp" -in in.dpd -log "lammps_$k.log" -screen none)
  echo "lammps-bench: pair $k of $repeat done" >&2
done
mkdir -p "$out/logs"
cp "$work"/app_*.txt "$work"/lammps_*.log "$work/in.dpd" "$out/logs/"
python3 "$(dirname "$0")/dpd_compare.py" "$work" "$repeat" "$steps" "$out" "$command_line"
