#!/usr/bin/env bash
# End to end for `gpualert run`: from starting `gpualert run -- false` to the
# wrapper's exit, which comes only after a real SMTP server on loopback has
# accepted the message. Prints the median of N runs and how many arrived.
# Usage: bench/wrapper/e2e_latency.sh [BUILD_DIR] [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
n=${2:-20}
scratch=$(mktemp -d /tmp/gpualert-e2e.XXXXXX)
export GPUALERT_STATE_DIR=$scratch/state GPUALERT_SYSTEM_CONFIG=/nonexistent GPUALERT_CONFIG=/nonexistent
/usr/bin/python3 "$root/tests/support/smtp_server.py" --port 0 --maildir "$scratch/mail" --lifetime 600 \
  > "$scratch/server.out" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$scratch"' EXIT
for _ in $(seq 50); do grep -q '^PORT ' "$scratch/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/^PORT /{print $2}' "$scratch/server.out")
for _ in $(seq "$n"); do
  s=$(date +%s%N)
  "$build/bin/gpualert" run --quiet --smtp "smtp://127.0.0.1:$port" --smtp-tls off --to a@example.org -- false || true
  e=$(date +%s%N)
  echo $(( (e - s) / 1000 ))
done | sort -n > "$scratch/us"
arrived=$(ls "$scratch/mail" | grep -c '\.eml$' || true)
awk -v n="$n" -v got="$arrived" '{a[NR]=$1} END{printf "gpualert run end to end: median %.1f ms over %d runs; %d of %d messages accepted\n", a[int((NR+1)/2)]/1000, NR, got, n}' "$scratch/us"
