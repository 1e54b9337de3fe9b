#!/bin/bash
# Integration test of gpualert_events against a real systemd-journald: start one
# (unless one is running), inject NVRM Xid / OOM-kill lines, read them back through
# read_kernel_events(), stop the journald we started (by its PID). Skips (exit 77)
# only when journald cannot be started or this build has no libsystemd.
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
  # A socket file may outlive the journald that made it: look for the daemon itself.
if ! pgrep -x systemd-journal >/dev/null 2>&1; then echo "SKIP: systemd-journald did not start"; exit 77; fi
fi
t0=$(( $(date +%s) - 1 ))
tag="gpualert-test-$$"
xpid=$$
opid=$(( $$ + 1 ))
printf 'MESSAGE=NVRM: Xid (PCI:0000:3b:00): 79, pid=%s, name=python, GPU has fallen off the bus.\nSYSLOG_IDENTIFIER=%s\n' "$xpid" "$tag" | logger --journald || { echo "FAIL: logger --journald"; exit 1; }
printf 'MESSAGE=Out of memory: Killed process %s (python3) total-vm:123kB, anon-rss:100kB\nSYSLOG_IDENTIFIER=%s\n' "$opid" "$tag" | logger --journald
printf 'MESSAGE=an unrelated message\nSYSLOG_IDENTIFIER=%s\n' "$tag" | logger --journald
sleep 0.5
t1=$(( $(date +%s) + 2 ))
out=$("$PROBE" "$t0" "$t1")
echo "$out"
echo "$out" | grep -q "^read journal" || { echo "FAIL: the journal was not read"; exit 1; }
echo "$out" | grep -q "xid=79 blame=hardware | NVRM: Xid (PCI:0000:3b:00): 79, pid=$xpid," || { echo "FAIL: Xid 79 not read back"; exit 1; }
echo "$out" | grep -q "Killed process $opid " || { echo "FAIL: OOM record not read back"; exit 1; }
echo "$out" | grep -q "unrelated" && { echo "FAIL: an irrelevant message was returned"; exit 1; }
# A window before the injection returns none of them.
before=$("$PROBE" $(( t0 - 100 )) $(( t0 - 50 )))
echo "$before" | grep -q "pid=$xpid," && { echo "FAIL: the time window was not applied"; exit 1; }
echo "PASS"
