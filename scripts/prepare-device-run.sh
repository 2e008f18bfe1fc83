#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Gets a run on a lent GPU machine (the device tool) ready here, where glslc is: builds vksort and the
# GPU-facing test binaries without oneTBB or Python (they then need only libstdc++ and the Vulkan
# loader) into .devbin/new, optionally an older commit's vksort into .devbin/old and a commit in between
# into .devbin/mid (each built in a git worktree under /tmp), optionally the vksort of each of a list of
# commits into .devbin/bisect/NN-COMMIT (gpu-check --bisect: which commit moved the pass kernel's
# registers or time), and downloads the Vulkan loader packages into .gl (the device machine has none).
# The binaries travel gzipped (each carries every kernel's SPIR-V: ~4-5 MB, ~1.5-1.9 MB gzipped; the
# device tool sends 64 MiB at most), and the printed calls unpack them first. Both folders are
# git-excluded: name them in the device tool's `carry`. Then prints the calls to make there
# (scripts/gpu-check.sh, within one call's 10 minutes; the tests in a second call).
#
#   scripts/prepare-device-run.sh [--old COMMIT] [--mid COMMIT] [--bisect COMMIT,COMMIT,...]
set -euo pipefail
cd "$(dirname "$0")/.."

old="" mid="" bisect=""
usage="usage: scripts/prepare-device-run.sh [--old COMMIT] [--mid COMMIT] [--bisect COMMIT,COMMIT,...]"
while [ $# -gt 0 ]; do
  case "$1" in
    --old) old="$2"; shift 2 ;;
    --mid) mid="$2"; shift 2 ;;
    --bisect) bisect="$2"; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
IFS=, read -r -a bisect_commits <<<"$bisect"
for c in "$old" "$mid" "${bisect_commits[@]}"; do
  [ -z "$c" ] || git rev-parse --verify -q "$c^{commit}" >/dev/null || { echo "prepare-device-run: '$c' is no commit here" >&2; exit 2; }
done

exclude=.git/info/exclude
for p in /.devbin/ /.gl/; do grep -qxF "$p" "$exclude" 2>/dev/null || echo "$p" >>"$exclude"; done

targets=(vksort_cli test_radix test_radix_single_pass test_brick test_sample test_buckets test_write_bounds test_read_bounds
         test_address_boundary test_error_model)
build() {  # source tree, build folder, targets...
  local src="$1" dir="$2"
  shift 2
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKSORT_TBB=OFF -DVKSORT_PYTHON=OFF >/dev/null
  cmake --build "$dir" --target "$@"
}

rm -rf .devbin
mkdir -p .devbin/new
build . build-device "${targets[@]}"
cp build-device/apps/vksort/vksort .devbin/new/
for t in "${targets[@]:1}"; do cp "build-device/tests/$t" .devbin/new/; done

# An older commit's vksort into .devbin/LABEL.
build_commit() {  # label (a folder under .devbin), commit
  local tree=/tmp/vksort-old-$2
  [ -d "$tree" ] || git worktree add -f "$tree" "$2" >/dev/null
  build "$tree" "$tree/build-device" vksort_cli
  mkdir -p ".devbin/$1"
  cp "$tree/build-device/apps/vksort/vksort" ".devbin/$1/"
}
[ -n "$old" ] && build_commit old "$old"
[ -n "$mid" ] && build_commit mid "$mid"
i=0
for c in "${bisect_commits[@]}"; do
  i=$((i + 1))
  build_commit "bisect/$(printf %02d "$i")-$(git rev-parse --short "$c")" "$c"
done
gzip -9 -r .devbin

if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
  mkdir -p .gl /tmp/amd64/partial
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
  apt-get "${o[@]}" update >/dev/null
  (cd .gl && apt-get "${o[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
fi
du -sh .devbin .gl

# What a device call sends: the tracked files, untracked files git does not ignore, and the carried
# folders, 64 MiB at most (the device tool's limit; a larger tree is refused before anything runs).
# Each GPU session commits results, and the test binaries carry every kernel's SPIR-V (~3.5 MB each).
bytes_of() { { xargs -0 -r stat -c %s -- 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}'; }  # (a deleted file: none)
tree_bytes=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } | bytes_of)
carried_bytes=$(find .devbin .gl -type f -print0 | bytes_of)
travel_mib=$(( (tree_bytes + carried_bytes + 1048575) / 1048576 ))
echo "a device call sends about $travel_mib MiB (tree $(( tree_bytes / 1048576 )) MiB, .devbin and .gl $(( carried_bytes / 1048576 )) MiB; limit 64)"
if [ "$travel_mib" -gt 64 ]; then
  echo "prepare-device-run: over the device tool's 64 MiB: build fewer test binaries into .devbin or move large untracked files out" >&2
  exit 1
fi

setup='gunzip -r .devbin; for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json;'
old_arg=""
[ -n "$old" ] && old_arg=" --old .devbin/old"
[ -n "$mid" ] && old_arg="$old_arg --mid .devbin/mid"
[ -n "$bisect" ] && old_arg="$old_arg --bisect .devbin/bisect"
cat <<EOF

Call 1 (carry: [".devbin", ".gl"], timeout_s 590): scripts/gpu-check.sh runs its stages in order of
worth within a 540 s budget (pipeline statistics, new/old against CUB, the pass kernel's experiments
against the default (experiments.md), the shape sweep with registers, skewed inputs, the warm-up
diagnostic, phase clocks, then the GPU tests while time is left) and returns what ran:
   $setup scripts/gpu-check.sh --bin .devbin/new$old_arg --out /tmp/check --budget 540; tar czf \$OUT/check.tgz -C /tmp check
Call 2, right after it while the machine is warm (it is given back after 30 s idle), with the device
time left (status: budget_left_s; a budget about 40 s less): the test stages alone.
   $setup scripts/gpu-check.sh --bin .devbin/new --tests-only --out /tmp/tests --budget 240; tar czf \$OUT/tests.tgz -C /tmp tests
EOF
