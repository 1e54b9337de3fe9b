#!/usr/bin/env bash
# Wrapper overhead and capture throughput, measured in one run on this machine.
# Usage: bench/wrapper/run_bench.sh [BUILD_DIR] [RUNS]   (writes bench/RESULTS.md)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
runs=${2:-40}
gpualert=$build/cli/gpualert
timer=$build/bench/wrapper/spawn_timer
floor=$build/bench/wrapper/floor_wrapper
writer=$build/bench/wrapper/fast_writer
for b in "$gpualert" "$timer" "$floor" "$writer"; do [ -x "$b" ] || { echo "missing $b: build first" >&2; exit 1; }; done

scratch=$(mktemp -d /tmp/gpualert-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export GPUALERT_STATE_DIR=$scratch/state GPUALERT_SYSTEM_CONFIG=/nonexistent GPUALERT_CONFIG=/nonexistent
py=/usr/bin/python3

echo "== overhead ($runs runs each, interleaved)" >&2
"$timer" "$runs" -- \
  bare /bin/true \; \
  floor "$floor" /bin/true \; \
  gpualert "$gpualert" run --quiet -- /bin/true \; \
  python_bare "$py" -c pass \; \
  python_gpualert "$gpualert" run --quiet -- "$py" -c pass > "$scratch/overhead.tsv"
cat "$scratch/overhead.tsv" >&2

# Where the wrapper's time goes: the pre-launch part alone (log made, child run,
# exit mirrored) is what delays the job; the rest is diagnosis and delivery after it.
median() { awk -v k="$1" '$1==k{print $2}' "$scratch/overhead.tsv"; }
bare=$(median bare); floor_ms=$(median floor); wrap=$(median gpualert)
pyb=$(median python_bare); pyw=$(median python_gpualert)

echo "== capture throughput (1 GiB)" >&2
t() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f", e-s}'; }
direct=$(t sh -c "'$writer' 1024 > '$scratch/direct.out'")
rm -f "$scratch/direct.out"
viapipe=$(t sh -c "'$writer' 1024 | cat > '$scratch/pipe.out'")
rm -f "$scratch/pipe.out"
wrapped=$(t sh -c "'$gpualert' run --quiet --run-dir '$scratch/run' -- '$writer' 1024 > '$scratch/wrapped.out'")
logsize=$(stat -c %s "$scratch/run/output.log"); outsize=$(stat -c %s "$scratch/wrapped.out")
rm -rf "$scratch/run" "$scratch/wrapped.out"
mbps() { awk -v s="$1" 'BEGIN{printf "%.0f", 1024/s}'; }

cpu=$(awk -F: '/model name/{print $2; exit}' /proc/cpuinfo | sed 's/^ *//')
{
  echo "# Benchmark results"
  echo
  echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)."
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ). Command: \`bench/wrapper/run_bench.sh $build $runs\`."
  echo
  echo "## Wrapper overhead (median of $runs interleaved runs, milliseconds; quartiles in brackets)"
  echo
  echo "| variant | median ms | q1-q3 ms | over bare | ratio to bare |"
  echo "|---|---|---|---|---|"
  while IFS=$'\t' read -r name med q1 q3; do
    base=$bare; case $name in python_*) base=$pyb;; esac
    awk -v n="$name" -v m="$med" -v a="$q1" -v b="$q3" -v base="$base" \
      'BEGIN{printf "| %s | %.2f | %.2f-%.2f | %+.2f | %.2fx |\n", n, m, a, b, m-base, m/base}'
  done < "$scratch/overhead.tsv"
  echo
  awk -v w="$wrap" -v f="$floor_ms" -v b="$bare" 'BEGIN{printf "gpualert adds %.2f ms over bare /bin/true; the fork/exec/wait floor adds %.2f ms (gpualert costs %.1fx the floor'"'"'s overhead). This includes writing run.json, the log, verdict.json and the outbox message (each fsynced) and the diagnosis.\n", w-b, f-b, (w-b)/(f-b>0?f-b:1)}'
  echo
  echo "## Capture throughput (1 GiB written by a fast writer)"
  echo
  echo "| path | seconds | MB/s |"
  echo "|---|---|---|"
  echo "| straight to a file | $direct | $(mbps "$direct") |"
  echo "| through \`| cat >\` (one pipe hop) | $viapipe | $(mbps "$viapipe") |"
  echo "| through \`gpualert run\` (to a file and the durable log) | $wrapped | $(mbps "$wrapped") |"
  echo
  echo "Bytes: wrapper output $outsize, durable log $logsize (both must be 1073741824)."
} > "$root/bench/RESULTS.md"
cat "$root/bench/RESULTS.md"
