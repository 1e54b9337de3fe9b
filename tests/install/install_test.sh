#!/usr/bin/env bash
# `cmake --install` under an arbitrary prefix gives a working gpualert: it runs a
# command, queues the message, and finds its sender (gpualert-send) in libexec.
set -euo pipefail
build=$1
prefix=$(mktemp -d /tmp/gpualert-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/gpualert libexec/gpualert/gpualert-send libexec/gpualert/gpualert-epilog share/gpualert/gpualert.conf.example \
         lib/systemd/system/gpualert-sender.service lib/systemd/system/gpualert-sender.timer; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
export GPUALERT_STATE_DIR=$prefix/state GPUALERT_SYSTEM_CONFIG=/nonexistent GPUALERT_CONFIG=/nonexistent
set +e
"$prefix/bin/gpualert" run --quiet --run-dir "$prefix/run" -- sh -c 'echo hello; exit 4'
rc=$?
# A closed port: the send fails, which proves gpualert-send was found and run.
out=$("$prefix/bin/gpualert" outbox flush --smtp smtp://127.0.0.1:9 --send-timeout 2 2>&1)
set -e
[ "$rc" = 4 ] || { echo "FAIL: exit $rc, want 4"; exit 1; }
ls "$prefix"/state/outbox/pending/*.eml >/dev/null || { echo "FAIL: no message queued"; exit 1; }
case "$out" in
  *"could not be started"*) echo "FAIL: gpualert-send not found: $out"; exit 1;;
  *"still pending"*) ;;
  *) echo "FAIL: unexpected flush output: $out"; exit 1;;
esac
echo "install: 1 passed, 0 failed"
