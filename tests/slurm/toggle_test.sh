#!/usr/bin/env bash
# Self-test of the plugin switching machinery (restart_slurmd.sh), with a throw-away probe plugin
# (spank_probe.c, built here with gcc) instead of gpualert.so, plus the Epilog= path (epilog_env.sh).
#   1. plugin on + Epilog=: the --gaprobe option exists, job_epilog runs once per job per node and
#      sees the option value and the job's exit code; the Epilog= script runs on every node.
#   2. plugin off: --gaprobe is rejected and no hook runs.
# Afterwards the cluster is put back to the plugstack line / Epilog= it had before.
# Run cluster_up.sh first (NODES=1 or 2). Prints "N passed, N failed"; exits 1 on any failure.
# VERBOSE=1 prints the job_epilog environment of the first job.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
[ "$(id -u)" = 0 ] || { echo "ERROR: toggle_test.sh must run as root" >&2; exit 1; }
[ -r "$GA_STATE_DIR/params.env" ] || { echo "ERROR: no test cluster: run cluster_up.sh first" >&2; exit 1; }
load_params
ORIG_LINE=$GPUALERT_PLUGSTACK_LINE ORIG_EPI=$GPUALERT_EPILOG
U=$GA_TEST_USER
W=/tmp/gpualert-slurm-probe           # must be readable by the job user: srun loads the .so as that user
EPI_DIR=/tmp/gpualert-slurm-epilog    # written by epilog_env.sh
nodes=$(node_names "$NODES")
T_ALL=$(date +%s.%N)

restore() {
  GPUALERT_PLUGSTACK_LINE=$ORIG_LINE GPUALERT_EPILOG=$ORIG_EPI PROBE=0 "$HERE/restart_slurmd.sh" >/dev/null \
    || echo "WARNING: could not restore the plugstack/epilog configuration" >&2
}
trap restore EXIT

as_user() { (cd /tmp && runuser -u "$U" -- "$@"); }
pass=0; fail=0
check() { # NAME CMD...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "  PASS  $name"; else fail=$((fail + 1)); echo "  FAIL  $name"; fi
}
final() { # ID: wait for a final state in accounting, print it
  local line st end=$(( $(date +%s) + 60 ))
  while :; do
    line=$(sacct -j "$1" -X -n -P -o State,ExitCode 2>/dev/null | head -1); st=${line%%|*}; st=${st%% *}
    case "$st" in ""|PENDING|RUNNING|COMPLETING) ;; *) echo "$line"; return 0;; esac
    [ "$(date +%s)" -lt "$end" ] || { echo "NONE"; return 1; }
    sleep 0.3
  done
}
epilog_lines() { grep -c "^hook=job_epilog ctx=job_script job=$1 " "$W/log/hooks.log" 2>/dev/null || true; }
want_epilogs() { # ID COUNT: wait (bounded) until job_epilog ran COUNT times for job ID
  local end=$(( $(date +%s) + 20 ))
  while [ "$(epilog_lines "$1")" -lt "$2" ]; do [ "$(date +%s)" -lt "$end" ] || return 1; sleep 0.2; done
}
files_for() { # PREFIX ID: one file per node
  local n; for n in $nodes; do [ -s "$1.$2.$n" ] || return 1; done
}

# ---------------------------------------------------------------- build the probe
rm -rf "$W" "$EPI_DIR"; mkdir -p "$W/log"; chmod 755 "$W" "$W/log"
gcc -shared -fPIC -O2 -Wall -o "$W/gaprobe.so" "$HERE/spank_probe.c" || die "cannot build spank_probe.c (gcc, libslurm-dev)"
chmod 644 "$W/gaprobe.so"
lap "probe plugin built: $W/gaprobe.so"

# ---------------------------------------------------------------- 1. plugin on
GPUALERT_PLUGSTACK_LINE="optional $W/gaprobe.so log=$W/log" GPUALERT_EPILOG="$HERE/epilog_env.sh" PROBE=0 \
  "$HERE/restart_slurmd.sh" >/dev/null
lap "plugin ON + Epilog=epilog_env.sh (restart_slurmd.sh)"
check "slurmd loaded the plugin (init in slurmd context)" grep -q "^hook=init ctx=slurmd" "$W/log/hooks.log"
check "srun --help lists --gaprobe" sh -c "cd /tmp && runuser -u $U -- srun --help | grep -q -- --gaprobe"

out=$(as_user sbatch --parsable -N"$NODES" -o /dev/null --gaprobe=hello --wrap "srun -N$NODES hostname; exit 3") || die "sbatch failed"
id1=${out%%;*}
st1=$(final "$id1") || true
check "job $id1 (--gaprobe=hello, exit 3) FAILED 3:0 [$st1]" test "$st1" = "FAILED|3:0"
check "job_epilog ran once per node ($NODES) for job $id1" want_epilogs "$id1" "$NODES"
check "job_epilog saw the option value 'hello'" grep -q "^hook=job_epilog ctx=job_script job=$id1 .* opt=hello$" "$W/log/hooks.log"
check "job_epilog env files for every node" files_for "$W/log/epilog-env" "$id1"
first=$(node1_name)
envf="$W/log/epilog-env.$id1.$first"
check "job_epilog env: SLURM_JOB_EXIT_CODE2=3:0" grep -qx "SLURM_JOB_EXIT_CODE2=3:0" "$envf"
check "job_epilog env: SPANK__SLURM_SPANK_OPTION_gaprobe_gaprobe=hello" grep -qx "SPANK__SLURM_SPANK_OPTION_gaprobe_gaprobe=hello" "$envf"
check "job_epilog env: SLURM_JOB_USER=$U" grep -qx "SLURM_JOB_USER=$U" "$envf"
check "Epilog= script ran on every node for job $id1" files_for "$EPI_DIR/env" "$id1"
if [ "$NODES" = 2 ]; then
  check "node 2 epilog has SLURMD_NODENAME=$(node2_name)" grep -qx "SLURMD_NODENAME=$(node2_name)" "$W/log/epilog-env.$id1.$(node2_name)"
fi
[ "${VERBOSE:-0}" = 1 ] && { echo "---- job_epilog environment ($envf)"; sort "$envf"; echo "----"; }

out=$(as_user sbatch --parsable -o /dev/null --wrap "true") || die "sbatch failed"
id2=${out%%;*}
final "$id2" >/dev/null || true
check "job $id2 without --gaprobe: job_epilog still runs (plugin loaded for every job)" want_epilogs "$id2" 1
check "job $id2 without --gaprobe: spank_option_getopt fails in job_epilog" grep -q "^hook=job_epilog ctx=job_script job=$id2 .* opt=<unset:[0-9]*>$" "$W/log/hooks.log"

out=$(as_user sbatch --parsable -o /dev/null --gaprobe --wrap "true") || die "sbatch failed"
id2b=${out%%;*}
final "$id2b" >/dev/null || true
want_epilogs "$id2b" 1 || true
got=$(sed -n "s/^hook=job_epilog ctx=job_script job=$id2b .* opt=//p" "$W/log/hooks.log" | head -1)
check "job $id2b with bare --gaprobe: job_epilog getopt gives the literal '(null)' [got '$got']" test "$got" = "(null)"
lap "plugin ON checks done"

# ---------------------------------------------------------------- 2. plugin off
GPUALERT_PLUGSTACK_LINE='' PROBE=0 "$HERE/restart_slurmd.sh" >/dev/null
lap "plugin OFF (restart_slurmd.sh)"
check "srun --gaprobe is rejected" sh -c "! (cd /tmp && runuser -u $U -- srun --gaprobe true) 2>/dev/null"
out=$(as_user sbatch --parsable -o /dev/null --wrap "true") || die "sbatch failed"
id3=${out%%;*}
st3=$(final "$id3") || true
sleep 2
check "job $id3 COMPLETED with the plugin off [$st3]" test "$st3" = "COMPLETED|0:0"
check "no hook ran for job $id3" test "$(grep -c "job=$id3 " "$W/log/hooks.log" || true)" = 0
lap "plugin OFF checks done"

echo "toggle_test: total $(awk -v a="$T_ALL" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s (NODES=$NODES)"
echo "toggle_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
