#!/usr/bin/env bash
# Stand up (or bring back to the wanted config) a real Slurm 22.05 test cluster on this machine,
# as root, without systemd: munged -> mariadbd -> slurmdbd (+ accounting) -> slurmctld -> slurmd.
#
# Environment:
#   GPUALERT_PLUGSTACK_LINE  full plugstack line, e.g. "optional /path/gpualert.so spool=/var/spool/gpualert";
#                            written to /etc/slurm/plugstack.conf.d/gpualert.conf before slurmd starts.
#                            Empty/unset = no plugin (the file is removed).
#   GPUALERT_EPILOG          optional executable for slurm.conf Epilog= (runs as root on each node).
#   NODES                    1 (default) or 2 (second slurmd in a network namespace, see README.md).
#   PROCTRACK                linuxproc (default: + JobAcctGatherParams=OverMemoryKill) or cgroup (cgroup v1).
#   GA_SKIP_APT=1            never call apt-get (fail if packages are missing).
#
# Idempotent: daemons already running are kept; slurmctld/slurmd are restarted only when their
# configuration (slurm.conf, plugstack) changed or they are not running. See README.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

[ "$(id -u)" = 0 ] || { echo "ERROR: cluster_up.sh must run as root" >&2; exit 1; }
NODES=${NODES:-1}
case "$NODES" in 1|2) ;; *) echo "ERROR: NODES must be 1 or 2, not '$NODES'" >&2; exit 1;; esac
GPUALERT_PLUGSTACK_LINE=${GPUALERT_PLUGSTACK_LINE:-}
GPUALERT_EPILOG=${GPUALERT_EPILOG:-}
PROCTRACK=${PROCTRACK:-linuxproc}
export DEBIAN_FRONTEND=noninteractive

# ---------------------------------------------------------------- packages
PKGS="slurm-wlm libslurm-dev munge slurmdbd mariadb-server"
missing=""
for p in $PKGS; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
  [ "${GA_SKIP_APT:-0}" = 1 ] && { echo "ERROR: missing packages:$missing (GA_SKIP_APT=1)" >&2; exit 1; }
  mkdir -p "$GA_LOGDIR"
  # Postinsts try to start services; /usr/sbin/policy-rc.d refuses (exit 101) here, which is harmless.
  apt-get update -qq >"$GA_LOGDIR/apt.log" 2>&1 || { tail -20 "$GA_LOGDIR/apt.log" >&2; die "apt-get update failed"; }
  # shellcheck disable=SC2086
  apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends $PKGS >>"$GA_LOGDIR/apt.log" 2>&1 \
    || { tail -30 "$GA_LOGDIR/apt.log" >&2; die "apt-get install$missing failed"; }
  lap "packages installed:$missing"
else
  lap "packages already installed"
fi
mkdir -p "$GA_LOGDIR" "$GA_STATE_DIR"
chown slurm:slurm "$GA_LOGDIR"

# ---------------------------------------------------------------- test user
if ! id "$GA_TEST_USER" >/dev/null 2>&1; then
  if getent passwd 1001 >/dev/null || getent group 1001 >/dev/null; then
    useradd -m -s /bin/bash -U "$GA_TEST_USER"
  else
    useradd -m -s /bin/bash -U -u 1001 "$GA_TEST_USER"
  fi
fi
# A second user, for the tests that one user cannot touch another's logs, mail or verdict.
for u in ${GA_OTHER_USERS-bob}; do id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash -U "$u"; done
lap "test user $GA_TEST_USER uid=$(id -u "$GA_TEST_USER"), others: ${GA_OTHER_USERS-bob}"

# ---------------------------------------------------------------- munge
if [ ! -s /etc/munge/munge.key ]; then
  mungekey -c -f -k /etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
if ! pid_alive /run/munge/munged.pid munged; then
  rm -f /run/munge/munged.pid
  # --force: start even if a stale socket/lock from an earlier run is left behind
  runuser -u munge -- /usr/sbin/munged --force </dev/null >>"$GA_LOGDIR/munged.stderr" 2>&1 || die "munged failed to start"
fi
waitfor 10 "munge -n | unmunge" sh -c 'munge -n | unmunge' || die "munge does not work"
lap "munged up (pid $(cat /run/munge/munged.pid))"

# ---------------------------------------------------------------- slurm.conf + plugstack
# slurm.conf must exist before the first sacctmgr call: the client takes SlurmUser from it for the
# munge UID restriction; without it slurmdbd logs "Unauthorized credential for client UID=64030".
install -d -o slurm -g slurm /var/spool/slurmctld
install -d /var/spool/slurmd
write_slurm_conf || true
write_plugstack "$GPUALERT_PLUGSTACK_LINE" || true

# ---------------------------------------------------------------- MariaDB
install -d -o mysql -g root -m 0755 /run/mysqld
if [ ! -d /var/lib/mysql/mysql ]; then
  mariadb-install-db --user=mysql --datadir=/var/lib/mysql >"$GA_LOGDIR/mariadb-install-db.log" 2>&1 \
    || die "mariadb-install-db failed (see $GA_LOGDIR/mariadb-install-db.log)"
fi
if ! pid_alive /run/mysqld/mysqld.pid mariadbd; then
  rm -f /run/mysqld/mysqld.pid
  # mariadbd does not daemonise: detach it from our session and from our stdout (a CI pipe would hang).
  nohup setsid /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 \
    </dev/null >>"$GA_LOGDIR/mariadbd.log" 2>&1 &
fi
waitfor 60 "mariadb-admin ping" mariadb-admin ping || die "MariaDB did not come up"
mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
            CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmdbpass';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;" || die "MariaDB setup failed"
lap "mariadbd up (pid $(cat /run/mysqld/mysqld.pid))"

# ---------------------------------------------------------------- slurmdbd + accounting
dbd_changed=0
write_if_changed "$GA_ETC/slurmdbd.conf" 0600 <<EOF && dbd_changed=1
# Written by tests/slurm (gpualert test cluster).
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=slurm
LogFile=$GA_LOGDIR/slurmdbd.log
PidFile=/run/slurmdbd.pid
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=localhost
StoragePort=3306
StorageUser=slurm
StoragePass=slurmdbpass
StorageLoc=slurm_acct_db
EOF
chown slurm:slurm "$GA_ETC/slurmdbd.conf"
if [ "$dbd_changed" = 1 ]; then stop_pidfile /run/slurmdbd.pid slurmdbd; fi
if ! pid_alive /run/slurmdbd.pid slurmdbd; then
  rm -f /run/slurmdbd.pid
  /usr/sbin/slurmdbd </dev/null >>"$GA_LOGDIR/slurmdbd.stderr" 2>&1 || die "slurmdbd failed to start"
fi
waitfor 60 "slurmdbd to answer sacctmgr" sacctmgr -n list cluster || die "slurmdbd does not answer"
lap "slurmdbd up (pid $(cat /run/slurmdbd.pid))"

sacctmgr -n -P list cluster format=cluster | grep -qx "$GA_CLUSTER" \
  || sacctmgr -i add cluster "$GA_CLUSTER" >/dev/null || die "sacctmgr add cluster failed"
sacctmgr -n -P list account format=account | grep -qx "$GA_ACCOUNT" \
  || sacctmgr -i add account "$GA_ACCOUNT" Cluster="$GA_CLUSTER" Description=gpualert-tests Organization=gpualert >/dev/null \
  || die "sacctmgr add account failed"
have=$(sacctmgr -n -P list assoc cluster="$GA_CLUSTER" account="$GA_ACCOUNT" format=user)
add=""
for u in root "$GA_TEST_USER" ${GA_OTHER_USERS-bob}; do grep -qx "$u" <<<"$have" || add="$add${add:+,}$u"; done
if [ -n "$add" ]; then
  sacctmgr -i add user "$add" Account="$GA_ACCOUNT" Cluster="$GA_CLUSTER" >/dev/null || die "sacctmgr add user $add failed"
fi
lap "accounting: cluster $GA_CLUSTER, account $GA_ACCOUNT, users root $GA_TEST_USER"

# ---------------------------------------------------------------- slurmctld, slurmd(s), first job
save_params
slurm_daemons_up 0
first_job
echo "cluster up: NODES=$NODES nodes=[$(node_names "$NODES")] plugstack=[${GPUALERT_PLUGSTACK_LINE:-none}] epilog=[${GPUALERT_EPILOG:-none}] proctrack=$PROCTRACK"
