#!/usr/bin/env bash
# srun step overhead of the plugin: inside one allocation, N `srun true` steps
# with --gpualert and N without, interleaved; prints the medians and their ratio.
# Needs a running cluster with gpualert.so in plugstack.conf (tests/slurm/cluster_up.sh
# with GPUALERT_PLUGSTACK_LINE set) and a user who may submit (default alice).
# Usage: bench/slurm/step_overhead.sh [RUNS] [USER]
set -euo pipefail
runs=${1:-30}
user=${2:-alice}
work=$(mktemp -d /tmp/ga-step-bench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cat > "$work/steps.sh" <<'INNER'
#!/bin/bash
# Runs inside the allocation: one line per step, "<flag> <milliseconds>".
runs=$1
for i in $(seq "$runs"); do
  for flag in none gpualert; do
    extra=""
    [ "$flag" = gpualert ] && extra="--gpualert=$USER@localhost"
    s=$(date +%s%N)
    srun -n1 $extra true
    e=$(date +%s%N)
    echo "$flag $(( (e - s) / 1000 ))"
  done
done
INNER
chmod 755 "$work/steps.sh"
runuser -u "$user" -- bash -lc "cd $work && salloc -N1 -n1 $work/steps.sh $runs" 2>/dev/null | grep -E '^(none|gpualert) ' > "$work/times"
median() { sort -n | awk '{a[NR]=$1} END{if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
none=$(awk '$1=="none"{print $2}' "$work/times" | median)
with=$(awk '$1=="gpualert"{print $2}' "$work/times" | median)
n=$(grep -c . "$work/times")
awk -v a="$none" -v b="$with" -v n="$n" 'BEGIN{
  printf "| steps | srun true, median ms | with --gpualert, median ms | difference ms | ratio |\n|---|---|---|---|---|\n";
  printf "| %d | %.1f | %.1f | %+.1f | %.3f |\n", n/2, a/1000, b/1000, (b-a)/1000, b/a }'
