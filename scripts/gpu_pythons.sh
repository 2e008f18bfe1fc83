# SPDX-License-Identifier: MIT
# Sourced by the GPU scripts (gpu-bench.sh, gpu-check.sh, gpu-sweep.sh): which Python runs what.
#   python      the distribution's python3, for the summaries (they need only json)
#   cub_python  the first python3 that has PyTorch, for CUB (on CUDA machines often a virtual
#               environment's, first on PATH); empty where there is none
python=/usr/bin/python3
[ -x "$python" ] || python=python3
cub_python=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c "import torch" 2>/dev/null; then cub_python="$p"; break; fi
done
