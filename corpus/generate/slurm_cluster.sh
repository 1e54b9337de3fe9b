#!/usr/bin/env bash
# The real Slurm 22.05 cluster that corpus/generate/slurm_scenarios.py runs its jobs on.
#
#   corpus/generate/slurm_cluster.sh up     # as root: tests/slurm/cluster_up.sh (NODES=2), then our slurm.conf
#   corpus/generate/slurm_cluster.sh down   # tests/slurm/cluster_down.sh (stops every daemon)
#
# It reuses tests/slurm (cluster_up.sh brings up munge, MariaDB, slurmdbd with accounting, slurmctld and
# two slurmds, vm on the host and vm2 in a network namespace; lib.sh has the helpers) and does not edit it.
# After cluster_up.sh it rewrites /etc/slurm/slurm.conf from the one cluster_up.sh wrote, with:
#   - 8 CPUs and 8000 MB per node (SlurmdParameters=config_overrides) so ~16 small jobs run at once;
#   - SlurmdTimeout=10 so a dead slurmd makes its node DOWN (and its jobs NODE_FAIL) quickly, and
#     ReturnToService=1 so a node set DOWN by scontrol stays down until resumed;
#   - preemption: PreemptType=preempt/partition_prio and partitions on both nodes
#       debug   (default) PriorityTier=1  PreemptMode=OFF
#       lowreq            PriorityTier=1  PreemptMode=REQUEUE
#       lowcan            PriorityTier=1  PreemptMode=CANCEL
#       lowgrace          PriorityTier=1  PreemptMode=CANCEL GraceTime=20  (SIGTERM first, SIGKILL 20 s later)
#       high              PriorityTier=10 PreemptMode=OFF
# and restarts slurmctld/slurmds through lib.sh (slurm_daemons_up notices the changed config).
# A later tests/slurm/cluster_up.sh writes its own slurm.conf back and restarts the daemons again.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TESTS=$(cd "$HERE/../../tests/slurm" && pwd)
[ "$(id -u)" = 0 ] || { echo "ERROR: must run as root" >&2; exit 1; }

case "${1:-}" in
  up)
    export NODES=2
    "$TESTS/cluster_up.sh"
    # shellcheck source=../../tests/slurm/lib.sh
    . "$TESTS/lib.sh"
    sed -E \
      -e 's/ CPUs=[0-9]+ Boards=1 SocketsPerBoard=[0-9]+ CoresPerSocket=[0-9]+ ThreadsPerCore=[0-9]+ RealMemory=[0-9]+/ CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=8000/' \
      -e 's/^SlurmdTimeout=.*/SlurmdTimeout=10/' \
      -e 's/^ReturnToService=.*/ReturnToService=1/' \
      -e '/^PartitionName=/d' \
      -e 's/^# Written by tests\/slurm.*/# Written by corpus\/generate\/slurm_cluster.sh from the tests\/slurm template (corpus runs)./' \
      "$GA_ETC/slurm.conf" >/tmp/gac-slurm.conf.new
    nodes="$(node1_name),$(node2_name)"
    cat >>/tmp/gac-slurm.conf.new <<EOF
SlurmdParameters=config_overrides
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=debug Nodes=$nodes Default=YES MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=OFF
PartitionName=lowreq Nodes=$nodes MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE
PartitionName=lowcan Nodes=$nodes MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=CANCEL
PartitionName=lowgrace Nodes=$nodes MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=CANCEL GraceTime=20
PartitionName=high Nodes=$nodes MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF
EOF
    write_if_changed "$GA_ETC/slurm.conf" 0644 </tmp/gac-slurm.conf.new || true
    rm -f /tmp/gac-slurm.conf.new
    slurm_daemons_up 0
    sinfo
    ;;
  down)
    "$TESTS/cluster_down.sh"
    ;;
  *)
    echo "usage: $0 up|down" >&2; exit 2;;
esac
