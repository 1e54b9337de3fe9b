#!/bin/sh
# Epilog= script for the test cluster (GPUALERT_EPILOG=.../epilog_env.sh): runs as root on each node
# after every job and records its environment in /tmp/gpualert-slurm-epilog/env.<jobid>.<node>.
# It always exits 0: a failing Epilog= drains the node.
d=/tmp/gpualert-slurm-epilog
mkdir -p "$d" 2>/dev/null
env | sort >"$d/env.${SLURM_JOB_ID:-unknown}.${SLURMD_NODENAME:-unknown}" 2>/dev/null
exit 0
