#!/usr/bin/env bash
# End to end for a Slurm job: from the job's end (the batch script's last act
# writes a nanosecond timestamp) to the message's arrival at the real SMTP
# server the site configuration names (the file's modification time in its
# maildir). Needs the cluster of tests/slurm with the plugin and that server up.
# Usage: bench/slurm/e2e_latency.sh MAILDIR [N] [USER]
set -euo pipefail
maildir=$1
n=${2:-10}
user=${3:-alice}
work=$(mktemp -d /tmp/ga-e2e-bench.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
for i in $(seq "$n"); do
  jid=$(runuser -u "$user" -- bash -lc "cd $work && sbatch --parsable -o /dev/null --gpualert=$user@example.org --wrap 'echo RuntimeError: bench; date +%s%N > $work/end.\$SLURM_JOB_ID; exit 1'")
  for _ in $(seq 600); do
    f=$(grep -l "X-Gpualert-Job: $jid\b" "$maildir"/*.eml 2>/dev/null | head -1 || true)
    [ -n "$f" ] && break
    sleep 0.1
  done
  [ -n "$f" ] || { echo "job $jid: no message" >&2; continue; }
  end=$(cat "$work/end.$jid")
  got=$(stat -c %.9Y "$f" | tr -d .)
  echo $(( (got - end) / 1000000 ))
done | sort -n > "$work/ms"
awk '{a[NR]=$1} END{printf "Slurm job end to message accepted: median %d ms over %d jobs (min %d, max %d)\n", a[int((NR+1)/2)], NR, a[1], a[NR]}' "$work/ms"
