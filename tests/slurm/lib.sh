# shellcheck shell=bash disable=SC2034
# Shared helpers for tests/slurm/*.sh. Source it; do not run it.
#
# Everything here is about a throw-away Slurm 22.05 test cluster on this machine:
# daemons started by hand (no systemd), pid files under /run, logs under /var/log/slurm.

GA_CLUSTER=ci                       # ClusterName and the accounting cluster
GA_ACCOUNT=proj                     # accounting account every test user belongs to
GA_TEST_USER=${GA_TEST_USER:-alice} # the unprivileged job user
GA_STATE_DIR=/run/gpualert-slurm    # what cluster_up.sh decided (params.env), for the other scripts
GA_LOGDIR=/var/log/slurm
GA_ETC=/etc/slurm
GA_PLUGSTACK_D=$GA_ETC/plugstack.conf.d
GA_PLUGSTACK_FILE=$GA_PLUGSTACK_D/gpualert.conf
GA_NETNS_NET=${GA_NETNS_NET:-10.200.0}  # NODES=2: private /24 on a veth pair (host side .1, namespace side .2)
GA_NETNS=gpualert-n2                # the network namespace of the second slurmd
GA_VETH_HOST=ga-veth0
GA_VETH_NS=ga-veth1
GA_HOSTS_TAG="# gpualert-slurm-test"   # marks the /etc/hosts lines we own

: "${GA_T0:=$(date +%s.%N)}"
export GA_T0

lap() { awk -v a="$GA_T0" -v b="$(date +%s.%N)" -v m="$*" 'BEGIN{printf "[%7.2fs] %s\n", b-a, m}'; }
log() { echo "[slurm-test] $*" >&2; }

# Print the tail of every daemon log we know about (used on failure): N lines of the Slurm logs,
# fewer of the MariaDB and munge logs.
tail_logs() {
  local n=${1:-20} f k
  for f in "$GA_LOGDIR"/slurmctld.log "$GA_LOGDIR"/slurmd.*.log "$GA_LOGDIR"/slurmdbd.log \
           "$GA_LOGDIR"/*.stderr "$GA_LOGDIR"/mariadbd.log /var/log/munge/munged.log; do
    [ -s "$f" ] || continue
    case "$f" in *mariadbd.log|*munged.log) k=8;; *) k=$n;; esac
    echo "----- last $k lines of $f -----" >&2
    tail -n "$k" "$f" >&2
  done
}

die() { echo "ERROR: $*" >&2; tail_logs 20; exit 1; }

# waitfor SECONDS DESCRIPTION CMD...: poll CMD every 0.2 s until it succeeds or the time is up.
waitfor() {
  local secs=$1 what=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  while :; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    [ "$(date +%s)" -lt "$end" ] || { echo "ERROR: timed out after ${secs}s waiting for: $what" >&2; return 1; }
    sleep 0.2
  done
}

pidof_file() { tr -dc '0-9' 2>/dev/null <"$1" || true; }   # tolerant: the daemon may remove it meanwhile

# proc_is PID COMM: PID is a live (not zombie) process named COMM. PID 1 here is not an init that
# reaps promptly, so a killed daemon can linger as a zombie whose /proc/PID/comm still matches.
proc_is() {
  local st
  [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
  st=$(sed -E 's/^.*\) ([A-Za-z]).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# pid_alive PIDFILE COMM: the pid file names a live process whose /proc/PID/comm is COMM.
pid_alive() {
  local p; p=$(pidof_file "$1")
  [ -n "$p" ] && proc_is "$p" "$2"
}
kill_pidfile() { # PIDFILE COMM SIGNAL: signal it if it is alive (no wait)
  local p; p=$(pidof_file "$1")
  [ -n "$p" ] && proc_is "$p" "$2" && kill "-$3" "$p" 2>/dev/null
  return 0
}

# stop_pidfile PIDFILE COMM [SECONDS]: SIGTERM the process, wait, SIGKILL if needed, remove the pid file.
# A pid file that names no such live process is just removed (stale).
stop_pidfile() {
  local f=$1 comm=$2 secs=${3:-20} p end
  p=$(pidof_file "$f")
  if [ -n "$p" ] && proc_is "$p" "$comm"; then
    kill -TERM "$p" 2>/dev/null || true
    end=$(( $(date +%s) + secs ))
    while proc_is "$p" "$comm"; do
      if [ "$(date +%s)" -ge "$end" ]; then
        log "$comm (pid $p) ignored SIGTERM for ${secs}s: SIGKILL"
        kill -KILL "$p" 2>/dev/null || true
        sleep 0.3
        break
      fi
      sleep 0.1
    done
    log "stopped $comm (pid $p, $f)"
  elif [ -e "$f" ]; then
    log "removed stale pid file $f"
  fi
  rm -f "$f"
}

# Node names: node 1 is this host's short name; node 2 (NODES=2) is "<node1>2".
node1_name() { hostname -s; }
node2_name() { echo "$(hostname -s)2"; }
node_names() { # NODES
  if [ "${1:-1}" = 2 ]; then echo "$(node1_name) $(node2_name)"; else node1_name; fi
}
slurmd_pidfile() { echo "/run/slurmd.$1.pid"; }   # SlurmdPidFile=/run/slurmd.%n.pid

# Config fingerprints: what a running daemon was started with is recorded in $GA_STATE_DIR, so that a
# changed config (even one written by an earlier, failed run) always leads to a restart.
ctld_conf_hash() { cat "$GA_ETC/slurm.conf" "$GA_ETC"/cgroup.conf 2>/dev/null | sha256sum | cut -c1-16; }
slurmd_conf_hash() {
  cat "$GA_ETC/slurm.conf" "$GA_ETC"/cgroup.conf "$GA_ETC/plugstack.conf" "$GA_PLUGSTACK_D"/*.conf 2>/dev/null \
    | sha256sum | cut -c1-16
}
# daemon_current WHAT PIDFILE COMM HASH: running, and started with the config whose fingerprint is HASH
daemon_current() {
  pid_alive "$2" "$3" && [ "$(cat "$GA_STATE_DIR/$1.confhash" 2>/dev/null)" = "$4" ]
}
mark_current() { mkdir -p "$GA_STATE_DIR"; echo "$2" >"$GA_STATE_DIR/$1.confhash"; }

load_params() { # read what cluster_up.sh recorded, if anything
  # shellcheck disable=SC1091
  [ -r "$GA_STATE_DIR/params.env" ] && . "$GA_STATE_DIR/params.env"
  return 0
}

# write_if_changed FILE MODE: stdin -> FILE, only if the content differs. Returns 0 if FILE changed.
write_if_changed() {
  local f=$1 mode=$2 tmp
  tmp=$(mktemp "$f.XXXXXX")
  cat >"$tmp"
  chmod "$mode" "$tmp"
  if [ -f "$f" ] && cmp -s "$tmp" "$f"; then rm -f "$tmp"; return 1; fi
  mv -f "$tmp" "$f"
  return 0
}

# The plugstack entry: a non-empty GPUALERT_PLUGSTACK_LINE is written to $GA_PLUGSTACK_FILE,
# an empty one removes that file, and "@keep" leaves it as the admin (or a package) made it.
# Returns 0 if anything changed.
write_plugstack() {
  local line=$1 changed=1
  mkdir -p "$GA_PLUGSTACK_D"
  if ! grep -qsx "include $GA_PLUGSTACK_D/\*.conf" "$GA_ETC/plugstack.conf"; then
    printf 'include %s/*.conf\n' "$GA_PLUGSTACK_D" >>"$GA_ETC/plugstack.conf"
    changed=0
  fi
  if [ "$line" = "@keep" ]; then
    return $changed
  elif [ -n "$line" ]; then
    local so
    so=$(awk '{print $2}' <<<"$line")
    case "$(awk '{print $1}' <<<"$line")" in
      optional|required) ;;
      *) die "GPUALERT_PLUGSTACK_LINE must start with 'optional' or 'required': '$line'";;
    esac
    [ -r "$so" ] || die "plugin in GPUALERT_PLUGSTACK_LINE not readable: $so"
    # srun/sbatch load the plugin as the job user: with 'optional' an unreadable .so only logs an error
    # there, so the local/allocator hooks and the --option silently disappear for that user.
    if id "$GA_TEST_USER" >/dev/null 2>&1 && ! runuser -u "$GA_TEST_USER" -- test -r "$so"; then
      log "WARNING: $GA_TEST_USER cannot read $so (every directory on the path needs o+x): srun/sbatch will not load it"
    fi
    if printf '%s\n' "$line" | write_if_changed "$GA_PLUGSTACK_FILE" 0644; then changed=0; fi
  elif [ -e "$GA_PLUGSTACK_FILE" ]; then
    rm -f "$GA_PLUGSTACK_FILE"; changed=0
  fi
  return $changed
}

# write_slurm_conf: renders /etc/slurm/slurm.conf from NODES, GPUALERT_EPILOG, PROCTRACK.
# Returns 0 if the file changed (then slurmctld and every slurmd must be restarted).
write_slurm_conf() {
  local nodes=${NODES:-1} epilog=${GPUALERT_EPILOG:-} pt=${PROCTRACK:-linuxproc}
  local n1 n2 hw cpus sock cores thr ctl_addr ptline tpline omk epline=""
  n1=$(node1_name); n2=$(node2_name)
  hw=$(slurmd -C 2>/dev/null | head -1)
  cpus=$(sed -nE 's/.* CPUs=([0-9]+).*/\1/p' <<<"$hw")
  sock=$(sed -nE 's/.*SocketsPerBoard=([0-9]+).*/\1/p' <<<"$hw")
  cores=$(sed -nE 's/.*CoresPerSocket=([0-9]+).*/\1/p' <<<"$hw")
  thr=$(sed -nE 's/.*ThreadsPerCore=([0-9]+).*/\1/p' <<<"$hw")
  [ -n "$cpus" ] && [ -n "$sock" ] && [ -n "$cores" ] && [ -n "$thr" ] || die "cannot parse 'slurmd -C': $hw"
  if [ -n "$epilog" ]; then
    [ -x "$epilog" ] || die "GPUALERT_EPILOG is not an executable file: $epilog (a failing epilog drains the node)"
    epline="Epilog=$epilog"
  fi
  case "$pt" in
    linuxproc) ptline=proctrack/linuxproc; tpline=task/none; omk="JobAcctGatherParams=OverMemoryKill";;
    cgroup)    ptline=proctrack/cgroup; tpline=task/cgroup; omk="#JobAcctGatherParams=OverMemoryKill (cgroup enforces memory)"
               write_if_changed "$GA_ETC/cgroup.conf" 0644 <<'EOF' || true
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=yes
ConstrainRAMSpace=yes
ConstrainSwapSpace=no
EOF
               ;;
    *) die "PROCTRACK must be linuxproc or cgroup, not '$pt'";;
  esac
  if [ "$nodes" = 2 ]; then ctl_addr=$GA_NETNS_NET.1; else ctl_addr=127.0.0.1; fi
  # Four GPUs per node as a gres, on device nodes made here (no driver behind them:
  # nothing opens them). The plugin learns their PCI addresses from a /proc-shaped tree
  # the tests write (plugstack gpus_dir=).
  install -d "$GA_STATE_DIR/dev"
  local i
  for i in 0 1 2 3; do
    [ -c "$GA_STATE_DIR/dev/nvidia$i" ] || mknod -m 0666 "$GA_STATE_DIR/dev/nvidia$i" c 195 "$i"
  done
  write_if_changed "$GA_ETC/gres.conf" 0644 <<EOF || true
# Written by tests/slurm: fake GPUs (no driver), see lib.sh.
AutoDetect=off
Name=gpu File=$GA_STATE_DIR/dev/nvidia[0-3]
EOF
  {
    cat <<EOF
# Written by tests/slurm (gpualert test cluster). Regenerated by cluster_up.sh / restart_slurmd.sh.
ClusterName=$GA_CLUSTER
SlurmctldHost=$n1($ctl_addr)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.%n.pid
SlurmctldLogFile=$GA_LOGDIR/slurmctld.log
SlurmdLogFile=$GA_LOGDIR/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$GA_ETC/plugstack.conf
ProctrackType=$ptline
TaskPlugin=$tpline
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=2
$omk
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=256
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6819
AccountingStorageEnforce=associations
JobCompType=jobcomp/none
GresTypes=gpu
InactiveLimit=0
KillWait=5
OverTimeLimit=0
MinJobAge=600
MessageTimeout=10
SlurmctldTimeout=30
SlurmdTimeout=60
$epline
EOF
    if [ "$nodes" = 2 ]; then
      echo "NodeName=$n1 NodeHostname=$n1 NodeAddr=$GA_NETNS_NET.1 CPUs=$cpus Boards=1 SocketsPerBoard=$sock CoresPerSocket=$cores ThreadsPerCore=$thr RealMemory=2000 Gres=gpu:4 State=UNKNOWN"
      echo "NodeName=$n2 NodeHostname=$n2 NodeAddr=$GA_NETNS_NET.2 CPUs=$cpus Boards=1 SocketsPerBoard=$sock CoresPerSocket=$cores ThreadsPerCore=$thr RealMemory=2000 Gres=gpu:4 State=UNKNOWN"
      echo "PartitionName=debug Nodes=$n1,$n2 Default=YES MaxTime=INFINITE State=UP"
    else
      echo "NodeName=$n1 NodeAddr=127.0.0.1 CPUs=$cpus Boards=1 SocketsPerBoard=$sock CoresPerSocket=$cores ThreadsPerCore=$thr RealMemory=2000 Gres=gpu:4 State=UNKNOWN"
      echo "PartitionName=debug Nodes=$n1 Default=YES MaxTime=INFINITE State=UP"
    fi
  } | write_if_changed "$GA_ETC/slurm.conf" 0644
}

# ---- network namespace for the second slurmd (NODES=2) ----
netns_up() {
  local n2; n2=$(node2_name)
  if ! ip netns list | awk '{print $1}' | grep -qx "$GA_NETNS"; then
    ip netns add "$GA_NETNS"
  fi
  if ! ip link show "$GA_VETH_HOST" >/dev/null 2>&1; then
    ip link add "$GA_VETH_HOST" type veth peer name "$GA_VETH_NS"
    ip link set "$GA_VETH_NS" netns "$GA_NETNS"
  fi
  ip addr replace "$GA_NETNS_NET.1/24" dev "$GA_VETH_HOST"
  ip link set "$GA_VETH_HOST" up
  ip -n "$GA_NETNS" addr replace "$GA_NETNS_NET.2/24" dev "$GA_VETH_NS"
  ip -n "$GA_NETNS" link set "$GA_VETH_NS" up
  ip -n "$GA_NETNS" link set lo up
  hosts_add "$GA_NETNS_NET.2" "$n2"
}

netns_down() {
  if ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$GA_NETNS"; then
    ip netns del "$GA_NETNS" && log "deleted network namespace $GA_NETNS"
  fi
  if ip link show "$GA_VETH_HOST" >/dev/null 2>&1; then ip link del "$GA_VETH_HOST" || true; fi
  hosts_clear
}

hosts_add() { # ADDR NAME: one /etc/hosts line tagged as ours (idempotent)
  local addr=$1 name=$2
  grep -qE "^${addr}[[:space:]]+${name}[[:space:]]+${GA_HOSTS_TAG}\$" /etc/hosts && return 0
  hosts_clear_name "$name"
  printf '%s\t%s\t%s\n' "$addr" "$name" "$GA_HOSTS_TAG" >>/etc/hosts
}
hosts_clear_name() {
  local tmp
  grep -q "[[:space:]]$1[[:space:]]*$GA_HOSTS_TAG\$" /etc/hosts || return 0
  tmp=$(mktemp); grep -v "[[:space:]]$1[[:space:]]*$GA_HOSTS_TAG\$" /etc/hosts >"$tmp" || true
  cat "$tmp" >/etc/hosts; rm -f "$tmp"          # rewrite in place: /etc/hosts may be a bind mount
}
hosts_clear() {
  local tmp
  grep -q "$GA_HOSTS_TAG\$" /etc/hosts || return 0
  tmp=$(mktemp); grep -v "$GA_HOSTS_TAG\$" /etc/hosts >"$tmp" || true
  cat "$tmp" >/etc/hosts; rm -f "$tmp"
}

# ---- slurmd start/stop ----
# start_slurmd NAME: node 1 runs in this network namespace, node 2 inside $GA_NETNS.
# stdout/stderr of the (self-daemonising) process go to a file, never to our caller's pipe.
start_slurmd() {
  local name=$1 pf
  pf=$(slurmd_pidfile "$name")
  mkdir -p "/var/spool/slurmd/$name"
  if [ "$name" = "$(node1_name)" ]; then
    /usr/sbin/slurmd -N "$name" </dev/null >>"$GA_LOGDIR/slurmd.$name.stderr" 2>&1 \
      || die "slurmd $name failed to start"
  else
    # (no ping on a minimal Debian: probe slurmctld's TCP port from inside the namespace instead)
    waitfor 10 "TCP connect from netns $GA_NETNS to slurmctld at $GA_NETNS_NET.1:6817" \
      nsenter --net="/run/netns/$GA_NETNS" bash -c "exec 3<>/dev/tcp/$GA_NETNS_NET.1/6817" \
      || die "slurmctld is not reachable from the network namespace $GA_NETNS"
    # own network namespace (its own 127.0.0.1 and port 6818) and own UTS namespace, so that
    # gethostname() and `hostname` in jobs on this node say $name
    nsenter --net="/run/netns/$GA_NETNS" unshare --uts sh -c 'hostname "$1" && exec /usr/sbin/slurmd -N "$1"' sh "$name" \
      </dev/null >>"$GA_LOGDIR/slurmd.$name.stderr" 2>&1 \
      || die "slurmd $name (in netns $GA_NETNS) failed to start"
  fi
  waitfor 15 "slurmd $name pid file $pf" pid_alive "$pf" slurmd || die "slurmd $name did not come up"
  mark_current "slurmd.$name" "$(slurmd_conf_hash)"
}

# stop_slurmds [NAME...]: stop the named slurmds, or every slurmd we may have started (any NODES).
# SIGTERM goes to all of them first (a slurmd can take ~2 s to shut down), then each is waited for.
stop_slurmds() {
  local f files=() pids=() p i end
  if [ $# -gt 0 ]; then for p in "$@"; do files+=("$(slurmd_pidfile "$p")"); done
  else for f in /run/slurmd.*.pid /run/slurmd.pid; do [ -e "$f" ] && files+=("$f"); done; fi
  for f in "${files[@]}"; do
    p=$(pidof_file "$f")
    if [ -n "$p" ] && proc_is "$p" slurmd; then
      kill -TERM "$p" 2>/dev/null || true; pids+=("$p")
    else
      pids+=("")
    fi
  done
  end=$(( $(date +%s) + 20 ))
  for i in "${!files[@]}"; do
    p=${pids[$i]}
    if [ -n "$p" ]; then
      while proc_is "$p" slurmd; do
        if [ "$(date +%s)" -ge "$end" ]; then log "slurmd $p ignored SIGTERM: SIGKILL"; kill -KILL "$p" 2>/dev/null || true; sleep 0.3; break; fi
        sleep 0.1
      done
      log "stopped slurmd (pid $p, ${files[$i]})"
    elif [ -e "${files[$i]}" ]; then
      log "removed stale pid file ${files[$i]}"
    fi
    rm -f "${files[$i]}"
  done
}

save_params() {
  mkdir -p "$GA_STATE_DIR"
  cat >"$GA_STATE_DIR/params.env" <<EOF
NODES=${NODES:-1}
PROCTRACK=${PROCTRACK:-linuxproc}
GPUALERT_EPILOG=$(printf '%q' "${GPUALERT_EPILOG:-}")
GPUALERT_PLUGSTACK_LINE=$(printf '%q' "${GPUALERT_PLUGSTACK_LINE:-}")
EOF
}

# slurm_daemons_up FORCE_SLURMD: make slurmctld and the slurmd(s) of NODES run with the current files.
# slurmctld is (re)started if it is down or slurm.conf changed since it started; a slurmd is restarted
# if it is down, its config (slurm.conf, plugstack) changed, or FORCE_SLURMD=1. Waits until every node
# is IDLE with a slurmd registered after the (re)start.
slurm_daemons_up() {
  local force=${1:-0} want n f since started="" stop=()
  want=$(node_names "${NODES:-1}")
  if [ "${NODES:-1}" = 2 ]; then
    netns_up
    lap "network namespace $GA_NETNS: $(node1_name)=$GA_NETNS_NET.1 (host side), $(node2_name)=$GA_NETNS_NET.2"
  fi
  if ! daemon_current slurmctld /run/slurmctld.pid slurmctld "$(ctld_conf_hash)"; then
    # stop the slurmds together with slurmctld (in parallel) so they re-register with the new config
    for f in /run/slurmd.*.pid /run/slurmd.pid; do [ -e "$f" ] && kill_pidfile "$f" slurmd TERM; done
    stop_pidfile /run/slurmctld.pid slurmctld 30
    stop_slurmds
    start_slurmctld
    lap "slurmctld (re)started (pid $(cat /run/slurmctld.pid))"
    # Jobs recovered from the saved state are leftovers (cluster_down.sh cancels jobs, so only a crash
    # or kill -9 leaves them). An srun job whose completion was lost stays RUNNING until its time limit
    # and keeps the node MIXED, so cancel them all now.
    local left; left=$(squeue -h -t PD,R,S,CF -o %i 2>/dev/null | tr '\n' ' ')
    if [ -n "${left// /}" ]; then
      log "cancelling jobs left over from an earlier run: $left"
      # shellcheck disable=SC2086
      scancel $left 2>/dev/null || true
    fi
  else
    lap "slurmctld already running with this slurm.conf (pid $(cat /run/slurmctld.pid))"
  fi
  # a slurmd whose node is no longer configured (e.g. NODES 2 -> 1) is stopped too
  for f in /run/slurmd.*.pid; do
    [ -e "$f" ] || continue
    n=${f#/run/slurmd.}; n=${n%.pid}
    if [ "$force" = 1 ] || ! grep -qw -- "$n" <<<"$want" || ! daemon_current "slurmd.$n" "$f" slurmd "$(slurmd_conf_hash)"; then
      stop+=("$n")
    fi
  done
  [ ${#stop[@]} = 0 ] || stop_slurmds "${stop[@]}"
  [ "${NODES:-1}" = 2 ] || netns_down
  since=$(date +%s)
  for n in $want; do
    if ! pid_alive "$(slurmd_pidfile "$n")" slurmd; then
      rm -f "$(slurmd_pidfile "$n")"
      start_slurmd "$n"; started="$started $n"
    fi
  done
  # shellcheck disable=SC2086
  [ -z "$started" ] || wait_nodes_idle "$since" $started
  for n in $want; do
    waitfor 30 "node $n idle" sh -c "scontrol -o show node $n | grep -q ' State=IDLE '" || die "node $n is not idle"
  done
  lap "slurmd up, nodes idle: $want${started:+ (started:$started)}"
}

# first_job: one `srun -N$NODES hostname` as the test user; proves scheduling, launch, munge, accounting.
first_job() {
  local out got
  out=$(cd /tmp && timeout 60 runuser -u "$GA_TEST_USER" -- srun -N"${NODES:-1}" -n"${NODES:-1}" -t 1 hostname 2>&1) \
    || { echo "$out" >&2; die "first job (srun -N${NODES:-1} hostname as $GA_TEST_USER) failed"; }
  got=$(grep -v '^srun:' <<<"$out" | sort -u | tr '\n' ' ')
  lap "first job done: srun -N${NODES:-1} hostname as $GA_TEST_USER -> $got"
}

start_slurmctld() {
  install -d -o slurm -g slurm /var/spool/slurmctld "$GA_LOGDIR"
  /usr/sbin/slurmctld </dev/null >>"$GA_LOGDIR/slurmctld.stderr" 2>&1 || die "slurmctld failed to start"
  waitfor 20 "slurmctld to answer 'scontrol ping'" sh -c 'scontrol ping | grep -q "is UP"' \
    || die "slurmctld does not answer"
  mark_current slurmctld "$(ctld_conf_hash)"
}

# node_ready NAME SINCE_EPOCH: node is idle and its slurmd registered at or after SINCE_EPOCH.
node_ready() {
  local name=$1 since=$2 info st started
  info=$(scontrol -o show node "$name" 2>/dev/null) || return 1
  st=$(sed -nE 's/.* State=([^ ]+).*/\1/p' <<<"$info")
  started=$(sed -nE 's/.* SlurmdStartTime=([^ ]+).*/\1/p' <<<"$info")
  [ "$st" = IDLE ] || return 1
  [ -n "$started" ] && [ "$started" != None ] || return 1
  [ "$(date -d "$started" +%s)" -ge "$since" ]
}

# wait_nodes_idle SINCE_EPOCH NODES...: bounded wait; resumes a DOWN/DRAIN node once.
wait_nodes_idle() {
  local since=$1; shift
  local n
  for n in "$@"; do
    if ! waitfor 30 "node $n idle (slurmd registered after $(date -d "@$since" +%T))" node_ready "$n" "$since"; then
      scontrol -o show node "$n" >&2 || true
      die "node $n is not idle"
    fi
  done
}
