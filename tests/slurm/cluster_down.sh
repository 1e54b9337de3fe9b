#!/usr/bin/env bash
# Stop the test cluster started by cluster_up.sh: cancel remaining jobs, then stop every daemon by
# the pid in its own pid file (slurmd(s) -> slurmctld -> slurmdbd -> mariadbd -> munged), remove stale
# pid files, and remove the NODES=2 network namespace and /etc/hosts lines.
# Packages, /etc/slurm, job state and the accounting database are kept.
# Safe to run when nothing (or only part of it) is up.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
[ "$(id -u)" = 0 ] || { echo "ERROR: cluster_down.sh must run as root" >&2; exit 1; }

if pid_alive /run/slurmctld.pid slurmctld && command -v squeue >/dev/null; then
  jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
  if [ -n "$jobs" ]; then
    log "cancelling jobs: $(echo $jobs)"
    # shellcheck disable=SC2086
    timeout 10 scancel $jobs 2>/dev/null || true
    waitfor 20 "jobs to leave the queue" sh -c '[ -z "$(squeue -h -o %i 2>/dev/null)" ]' || log "jobs still listed; stopping anyway"
  fi
fi

stop_slurmds
stop_pidfile /run/slurmctld.pid slurmctld 20
stop_pidfile /run/slurmdbd.pid slurmdbd 20
stop_pidfile /run/mysqld/mysqld.pid mariadbd 60
stop_pidfile /run/munge/munged.pid munged 10
netns_down
rm -f "$GA_STATE_DIR/params.env"

left=$(pgrep -x slurmstepd || true)
[ -z "$left" ] || log "WARNING: slurmstepd processes still running (pids: $(echo $left)); they end with their jobs"
echo "cluster down"
