#!/usr/bin/env bash
# Switch the gpualert SPANK plugin (and/or the Epilog= script) on a running test cluster and restart
# slurmd, so that a test can compare runs with the plugin enabled and disabled.
#
#   GPUALERT_PLUGSTACK_LINE='optional /path/gpualert.so spool=/var/spool/gpualert' tests/slurm/restart_slurmd.sh
#   GPUALERT_PLUGSTACK_LINE= tests/slurm/restart_slurmd.sh          # plugin off
#   tests/slurm/restart_slurmd.sh                                   # keep the config, just restart slurmd
#
# Environment (a variable that is UNSET keeps the value cluster_up.sh / the last restart recorded;
# set-but-empty clears it):
#   GPUALERT_PLUGSTACK_LINE  plugstack line for /etc/slurm/plugstack.conf.d/gpualert.conf ('' = no plugin)
#   GPUALERT_EPILOG          Epilog= script ('' = none). Changing it rewrites slurm.conf, which also
#                            restarts slurmctld (about 4 s more).
#   PROBE=0                  skip the final `srun -N$NODES hostname` as the test user.
#
# Every slurmd is always restarted (a SPANK plugin's job_prolog/job_epilog/slurmd hooks are only
# (re)loaded by a slurmd start; `scontrol reconfigure` is not enough). slurmctld is restarted only if
# slurm.conf changed. Returns when every node is IDLE with the new slurmd registered.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
[ "$(id -u)" = 0 ] || { echo "ERROR: restart_slurmd.sh must run as root" >&2; exit 1; }
[ -r "$GA_STATE_DIR/params.env" ] || { echo "ERROR: no running test cluster ($GA_STATE_DIR/params.env missing): run cluster_up.sh" >&2; exit 1; }

set_line=${GPUALERT_PLUGSTACK_LINE+set}; new_line=${GPUALERT_PLUGSTACK_LINE-}
set_epi=${GPUALERT_EPILOG+set};         new_epi=${GPUALERT_EPILOG-}
load_params
[ "$set_line" = set ] && GPUALERT_PLUGSTACK_LINE=$new_line
[ "$set_epi" = set ] && GPUALERT_EPILOG=$new_epi

pid_alive /run/slurmctld.pid slurmctld || die "slurmctld is not running: run cluster_up.sh"
write_slurm_conf || true
write_plugstack "$GPUALERT_PLUGSTACK_LINE" || true
save_params
slurm_daemons_up 1
[ "${PROBE:-1}" = 0 ] || first_job
echo "slurmd restarted: NODES=$NODES plugstack=[${GPUALERT_PLUGSTACK_LINE:-none}] epilog=[${GPUALERT_EPILOG:-none}]"
