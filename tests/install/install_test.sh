#!/usr/bin/env bash
# `cmake --install` under an arbitrary prefix gives a working gpualert: it runs a
# command, queues the message, and finds its sender (gpualert-send) in libexec.
set -euo pipefail
build=$1
prefix=$(mktemp -d /tmp/gpualert-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
installed=$(cmake --install "$build" --prefix "$prefix")
# Everything lands under the prefix (nothing in /etc or /usr/local behind its back).
outside=$(sed -nE 's/^-- (Installing|Up-to-date): //p' <<<"$installed" | grep -v "^$prefix/" || true)
[ -z "$outside" ] || { echo "FAIL: installed outside the prefix: $outside"; exit 1; }
for f in bin/gpualert libexec/gpualert/gpualert-send libexec/gpualert/gpualert-epilog share/gpualert/gpualert.conf.example \
         lib/systemd/system/gpualert-sender.service lib/systemd/system/gpualert-sender.timer \
         etc/gpualert/gpualert.conf etc/gpualert/rules.d/README lib/tmpfiles.d/gpualert.conf etc/logrotate.d/gpualert; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
# The config shipped to /etc sets nothing: every line a comment or blank.
if grep -vE '^[[:space:]]*(#|$)' "$prefix/etc/gpualert/gpualert.conf"; then
  echo "FAIL: the shipped gpualert.conf sets something"; exit 1
fi
# The plugin (where Slurm's headers were found) ships with its plugstack line commented out.
if [ -e "$build/spank/gpualert.so" ]; then
  plug=$prefix/etc/slurm/plugstack.conf.d/gpualert.conf
  grep -qE '^#optional /.*/gpualert\.so ' "$plug" || { echo "FAIL: no commented plugstack line in $plug"; exit 1; }
  if grep -qE '^[[:space:]]*(optional|required)' "$plug"; then echo "FAIL: the plugin ships enabled"; exit 1; fi
fi
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
