#!/bin/bash
# Regenerate the whole gpualert corpus: real runs on this machine, then the
# synthetic GPU/cluster-only logs. Takes about 6-7 minutes on 2 cores.
# Needs: root (memory cgroup v1 for the OOM-kill runs, useradd for the
# permission runs), gcc/g++, Debian's python3-torch, python3-numpy,
# python3-yaml, python3-tqdm, python3-pandas, python3-torchvision,
# python3-requests, curl, wget (asset_error runs). The CUDA-toolkit scenarios
# (env_mismatch-real-11..14) run only where /usr/local/cuda-13.0/bin/nvcc exists.
# Not run in CI.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CORPUS="$(dirname "$HERE")"
PY=/usr/bin/python3

missing=()
for m in torch numpy yaml tqdm pandas torchvision requests; do
  $PY -c "import $m" 2>/dev/null || missing+=("$m")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing Python modules for $PY: ${missing[*]}" >&2
  echo "install with: apt-get install -y python3-torch python3-numpy python3-yaml python3-tqdm python3-pandas python3-torchvision python3-requests" >&2
  exit 1
fi

rm -f "$CORPUS"/logs/*.log "$CORPUS"/labels.jsonl
$PY "$HERE/real_scenarios.py" -j "${JOBS:-2}"
$PY "$HERE/synthetic.py"
$PY "$HERE/summary.py"
