#!/bin/bash
# Integration test of gpualert_events against a real systemd-journald: start one
# (unless one is running), write NVRM Xid / OOM-kill lines that claim to be the
# kernel's from userspace (logger --journald, systemd-cat -t kernel, a raw
# "<3>... kernel:" datagram on /dev/log), which must NOT come back from
# read_kernel_events(), and one record through the kernel transport (a line written to
# /dev/kmsg, root only), which must. Stops the journald we started (by its PID).
# Skips (exit 77) only when journald cannot be started or this build has no libsystemd.
set -u
PROBE=${1:?usage: journal_events_test.sh PATH/TO/events_probe}
JOURNALD=/lib/systemd/systemd-journald
started=""
cleanup() { if [ -n "$started" ]; then kill "$started" 2>/dev/null; wait "$started" 2>/dev/null; fi; }
trap cleanup EXIT

out=$("$PROBE" 0 1 2>&1)
if echo "$out" | grep -q "no libsystemd"; then echo "SKIP: this build has no libsystemd"; exit 77; fi
# A socket file may outlive the journald that made it: look for the daemon itself.
if ! pgrep -x systemd-journal >/dev/null 2>&1; then
  if [ ! -x "$JOURNALD" ]; then echo "SKIP: $JOURNALD not found"; exit 77; fi
  mkdir -p /run/systemd/journal || { echo "SKIP: cannot create /run/systemd/journal"; exit 77; }
  rm -f /run/systemd/journal/socket
  "$JOURNALD" >/dev/null 2>&1 &
  started=$!
  for _ in $(seq 1 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
  if ! pgrep -x systemd-journal >/dev/null 2>&1; then echo "SKIP: systemd-journald did not start"; exit 77; fi
fi
t0=$(( $(date +%s) - 1 ))
tag="gpualert-test-$$"
xpid=$$
opid=$(( $$ + 1 ))
spid=$(( $$ + 2 ))
rpid=$(( $$ + 3 ))
xid="NVRM: Xid (PCI:0000:3b:00): 79, pid=$xpid, name=python, GPU has fallen off the bus."
# Userspace records dressed as the kernel's: the native protocol, stdout, syslog.
printf 'MESSAGE=%s\nSYSLOG_IDENTIFIER=kernel\nSYSLOG_FACILITY=0\nPRIORITY=3\n' "$xid" | logger --journald ||
  { echo "FAIL: logger --journald"; exit 1; }
printf 'MESSAGE=Out of memory: Killed process %s (python3) total-vm:123kB, anon-rss:100kB\nSYSLOG_IDENTIFIER=%s\n' \
  "$opid" "$tag" | logger --journald
echo "NVRM: Xid (PCI:0000:3b:00): 48, pid=$spid, DBE (double bit ECC error)" | systemd-cat -t kernel -p err
if command -v python3 >/dev/null; then
  python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(sys.argv[1].encode(), "/run/systemd/journal/dev-log")' \
    "<3>$(LC_ALL=C date '+%b %e %T') kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=$rpid, GPU has fallen off the bus."
fi
printf 'MESSAGE=an unrelated message\nSYSLOG_IDENTIFIER=%s\n' "$tag" | logger --journald
# A kernel-transport record: only root can write /dev/kmsg. A mild kind of event, since
# the line stays in this machine's real kernel log.
kline="gpualert journal test $$: GPU clock throttle notice (written by a test, not a real event)"
kernel_written=""
if [ -w /dev/kmsg ] && echo "$kline" > /dev/kmsg 2>/dev/null; then kernel_written=yes; fi
sleep 0.5
t1=$(( $(date +%s) + 2 ))
out=$("$PROBE" "$t0" "$t1" --no-kmsg)
echo "$out"
echo "$out" | grep -q "^read journal" || { echo "FAIL: the journal was not read"; exit 1; }
# The userspace records reached the journal (else the checks below prove nothing).
if command -v journalctl >/dev/null; then
  for p in "pid=$xpid," "Killed process $opid " "pid=$spid," "pid=$rpid,"; do
    journalctl --no-pager -q -S "@$t0" -g "$p" | grep -q . || { echo "FAIL: the journal holds no record with '$p'"; exit 1; }
  done
fi
for p in "pid=$xpid," "Killed process $opid " "pid=$spid," "pid=$rpid,"; do
  echo "$out" | grep -qF "$p" && { echo "FAIL: a userspace record claiming to be the kernel's was taken: $p"; exit 1; }
done
echo "$out" | grep -q "unrelated" && { echo "FAIL: an irrelevant message was returned"; exit 1; }
if [ -n "$kernel_written" ]; then
  if ! echo "$out" | grep -qF "$kline"; then
    # journald may not read /dev/kmsg here (a container): then there is nothing to find.
    if journalctl --no-pager -q _TRANSPORT=kernel -S "@$t0" 2>/dev/null | grep -qF "$kline"; then
      echo "FAIL: the kernel-transport record was not read back"; exit 1
    fi
    echo "note: journald did not store the /dev/kmsg line; the kernel transport was not exercised"
  else
    # A window before the injection returns none of it.
    before=$("$PROBE" $(( t0 - 100 )) $(( t0 - 50 )) --no-kmsg)
    echo "$before" | grep -qF "$kline" && { echo "FAIL: the time window was not applied"; exit 1; }
  fi
else
  echo "note: /dev/kmsg is not writable; the kernel transport was not exercised"
fi
echo "PASS"
