#!/usr/bin/env bash
# Smoke matrix for the test cluster (run cluster_up.sh first). Every job runs as the unprivileged
# test user (alice) from /tmp, and its final state is read from accounting (sacct, via slurmdbd).
#
# Environment:
#   SMOKE_TIMEOUT=1   also run `srun --time=1 sleep 300` and expect TIMEOUT. Slurm checks time limits
#                     about every 30 s, so this takes 75-90 s; it runs in the background while the
#                     other cases run, so it adds about a minute to the total.
#
# Prints one row per case and a closing "N passed, N failed" line; exits 1 if any case failed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
[ "$(id -u)" = 0 ] || { echo "ERROR: smoke.sh must run as root (it runs the jobs via runuser)" >&2; exit 1; }
SMOKE_TIMEOUT=${SMOKE_TIMEOUT:-0}
U=$GA_TEST_USER
id "$U" >/dev/null 2>&1 || { echo "ERROR: no user $U: run cluster_up.sh first" >&2; exit 1; }
scontrol ping 2>/dev/null | grep -q "is UP" || die "slurmctld is not up: run cluster_up.sh first"
nnodes=$(sinfo -h -N -o %N | sort -u | wc -l)
TAG=smk$$
START=$(date +%Y-%m-%dT%H:%M:%S)
T_ALL=$(date +%s.%N)

as_user() { (cd /tmp && runuser -u "$U" -- "$@"); }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

# jobid_by_name NAME: the job id of the (single) job of this run with that name.
jobid_by_name() {
  local id=""
  for _ in $(seq 1 50); do
    id=$(squeue -h -t all -n "$1" -o %i 2>/dev/null | head -1)   # -t all: finished jobs too (until MinJobAge)
    [ -n "$id" ] || id=$(sacct -n -X -P -S "$START" --name="$1" -o JobID 2>/dev/null | head -1)
    [ -n "$id" ] && { echo "$id"; return 0; }
    sleep 0.2
  done
  return 1
}

# final_state ID SECONDS: poll sacct until the job has a final state; prints "STATE|EXITCODE".
final_state() {
  local id=$1 secs=$2 end line st
  end=$(( $(date +%s) + secs ))
  while :; do
    line=$(sacct -j "$id" -X -n -P -o State,ExitCode 2>/dev/null | head -1)
    st=${line%%|*}; st=${st%% *}
    case "$st" in
      ""|PENDING|RUNNING|COMPLETING|REQUEUED|RESIZING|SUSPENDED) ;;
      *) echo "$st|${line#*|}"; return 0;;
    esac
    [ "$(date +%s)" -lt "$end" ] || { echo "${st:-NONE}(no final state after ${secs}s)|?"; return 1; }
    sleep 0.3
  done
}

ROWS=()
pass=0; fail=0
# record CASE EXPECTED_STATE_REGEX EXPECTED_EXIT_REGEX JOBID STATE|EXIT CLIENT_RC CLIENT_RC_OK(0/1) SECONDS [NOTE]
record() {
  local c=$1 est=$2 eex=$3 id=$4 se=$5 rc=$6 rcok=$7 t=$8 note=${9:-} st ex verdict=PASS
  st=${se%%|*}; ex=${se#*|}
  [[ "$st" =~ ^($est)$ ]] || verdict=FAIL
  [[ "$ex" =~ ^($eex)$ ]] || verdict=FAIL
  [ "$rcok" = 1 ] || verdict=FAIL
  if [ "$verdict" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  ROWS+=("$(printf '%-13s %-6s %-36s %-14s %-6s %7s  %s %s' "$c" "$id" "$st (want $est)" "$ex" "$rc" "$t" "$verdict" "$note")")
  echo "  ${ROWS[-1]}"
}

echo "smoke: user=$U nodes=$nnodes timeout_case=$SMOKE_TIMEOUT"

# -- TIMEOUT (background, started first because it takes longest)
if [ "$SMOKE_TIMEOUT" = 1 ]; then
  t_to=$(now)
  as_user srun -J "$TAG-timeout" --time=1 sleep 300 >/tmp/"$TAG"-timeout.out 2>&1 &
  to_pid=$!
  # let it start before the other cases, so their timings are not spent waiting behind it
  waitfor 30 "timeout job RUNNING" sh -c "squeue -h -n $TAG-timeout -o %T | grep -qx RUNNING" || true
fi

# -- srun true
t=$(now); rc=0
as_user srun -J "$TAG-true" -t 1 true || rc=$?
id=$(jobid_by_name "$TAG-true") || id="?"
se=$(final_state "$id" 30) || true
record srun_true COMPLETED '0:0' "$id" "$se" "$rc" "$([ $rc = 0 ] && echo 1 || echo 0)" "$(secs "$t")"

# -- sbatch exit 3
t=$(now)
id=$(as_user sbatch --parsable -J "$TAG-exit3" -t 1 -o /dev/null --wrap 'exit 3') || die "sbatch failed"
id=${id%%;*}
se=$(final_state "$id" 60) || true
record sbatch_exit3 FAILED '3:0' "$id" "$se" - 1 "$(secs "$t")"

# -- scancel a running batch job
t=$(now)
id=$(as_user sbatch --parsable -J "$TAG-cancel" -t 5 -o /dev/null --wrap 'sleep 300') || die "sbatch failed"
id=${id%%;*}
waitfor 30 "job $id RUNNING" sh -c "squeue -h -j $id -o %T | grep -qx RUNNING" || true
as_user scancel "$id"
se=$(final_state "$id" 60) || true
record scancel CANCELLED '0:[0-9]+' "$id" "$se" - 1 "$(secs "$t")"

# -- memory hog: --mem=100M, touches 600 MB; OverMemoryKill (linuxproc) or the cgroup kills it
t=$(now); rc=0
as_user srun -J "$TAG-oom" -t 2 --mem=100M perl -e '$x = "x" x (600*1024*1024); sleep 60' \
  >/tmp/"$TAG"-oom.out 2>&1 || rc=$?
id=$(jobid_by_name "$TAG-oom") || id="?"
se=$(final_state "$id" 30) || true
note=""; grep -q "exceeded memory limit" /tmp/"$TAG"-oom.out && note="(srun: exceeded memory limit)"
grep -qi "oom" /tmp/"$TAG"-oom.out && note="(srun: oom-kill)"
record mem_hog 'FAILED|OUT_OF_MEMORY' '[0-9]+:[0-9]+' "$id" "$se" "$rc" "$([ $rc != 0 ] && echo 1 || echo 0)" "$(secs "$t")" "$note"
rm -f /tmp/"$TAG"-oom.out

# -- two nodes: one task per node, two different host names
if [ "$nnodes" -ge 2 ]; then
  t=$(now); rc=0
  out=$(as_user srun -J "$TAG-2n" -N2 -n2 -t 1 hostname 2>/dev/null) || rc=$?
  id=$(jobid_by_name "$TAG-2n") || id="?"
  se=$(final_state "$id" 30) || true
  names=$(sort -u <<<"$out" | tr '\n' ' ')
  ok=0; [ "$rc" = 0 ] && [ "$(sort -u <<<"$out" | wc -l)" = 2 ] && ok=1
  record srun_N2 COMPLETED '0:0' "$id" "$se" "$rc" "$ok" "$(secs "$t")" "(hostnames: $names)"
fi

# -- TIMEOUT result
if [ "$SMOKE_TIMEOUT" = 1 ]; then
  rc=0; wait "$to_pid" || rc=$?
  id=$(jobid_by_name "$TAG-timeout") || id="?"
  se=$(final_state "$id" 30) || true
  record srun_timeout TIMEOUT '0:[0-9]+' "$id" "$se" "$rc" "$([ $rc != 0 ] && echo 1 || echo 0)" "$(secs "$t_to")"
  rm -f /tmp/"$TAG"-timeout.out
fi

echo
printf '%-13s %-6s %-36s %-14s %-6s %7s  %s\n' case jobid "sacct State" ExitCode srunrc seconds verdict
for r in "${ROWS[@]}"; do echo "$r"; done
echo "total $(secs "$T_ALL") s"
echo "smoke: $pass passed, $fail failed"
[ "$fail" = 0 ]
