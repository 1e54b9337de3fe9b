#!/bin/bash
# Regenerate the whole gpualert corpus: real runs on this machine, then the
# synthetic GPU/cluster-only logs. Takes about 6-7 minutes on 2 cores.
# Needs: root (memory cgroup v1 for the OOM-kill runs, useradd for the
# permission runs), gcc/g++, Debian's python3-torch, python3-numpy,
# python3-yaml, python3-tqdm, python3-pandas, python3-torchvision,
# python3-requests, curl, wget (asset_error runs). The CUDA-toolkit scenarios
# (env_mismatch-real-11..14) run only where /usr/local/cuda-13.0/bin/nvcc exists.
# WITH_SLURM=1 also reruns slurm_scenarios.py on a real Slurm cluster (tests/slurm packages).
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

# The Slurm runs (slurm_scenarios.py: timeout/cancelled/preempted/node_fail on a real Slurm cluster) are
# regenerated only with WITH_SLURM=1; otherwise their logs and labels are kept as they are.
if [ "${WITH_SLURM:-0}" = 1 ]; then
  rm -f "$CORPUS"/logs/*.log "$CORPUS"/labels.jsonl
else
  $PY - "$CORPUS" <<'EOF'
import json, os, sys
corpus = sys.argv[1]
lab = os.path.join(corpus, "labels.jsonl")
rows = [json.loads(l) for l in open(lab) if l.strip()] if os.path.exists(lab) else []
keep = [r for r in rows if r["generator"].startswith("slurm_scenarios.py:")]
kept = {r["log_path"] for r in keep}
for n in os.listdir(os.path.join(corpus, "logs")):
    if n.endswith(".log") and "logs/" + n not in kept:
        os.remove(os.path.join(corpus, "logs", n))
with open(lab, "w") as f:
    for r in keep:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
EOF
fi
$PY "$HERE/real_scenarios.py" -j "${JOBS:-2}"
$PY "$HERE/synthetic.py"
if [ "${WITH_SLURM:-0}" = 1 ]; then
  $PY "$HERE/slurm_scenarios.py"        # brings the Slurm test cluster up and down itself (~12 min)
fi
$PY "$HERE/summary.py"
