#!/usr/bin/env bash
# Wrapper overhead and capture throughput, measured in one run on this machine.
# Usage: bench/wrapper/run_bench.sh [BUILD_DIR] [RUNS] [MIB]   (updates its section of bench/RESULTS.md;
# GPUALERT_BENCH_WRITE=0 only prints, as CTest's short run does)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
runs=${2:-40}
mib=${3:-1024}
write=${GPUALERT_BENCH_WRITE:-1}
bin=$build/bin
for b in gpualert gpualert-send spawn_timer floor_wrapper fast_writer stamp; do
  [ -x "$bin/$b" ] || { echo "missing $bin/$b: build first" >&2; exit 1; }
done

scratch=$(mktemp -d /tmp/gpualert-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export GPUALERT_STATE_DIR=$scratch/state GPUALERT_SYSTEM_CONFIG=/nonexistent GPUALERT_CONFIG=/nonexistent
py=/usr/bin/python3

echo "== overhead ($runs runs each, interleaved)" >&2
"$bin/spawn_timer" "$runs" -- \
  bare "$bin/stamp" \; \
  floor "$bin/floor_wrapper" "$bin/stamp" \; \
  gpualert "$bin/gpualert" run --quiet -- "$bin/stamp" \; \
  python_bare "$py" -c pass \; \
  python_gpualert "$bin/gpualert" run --quiet -- "$py" -c pass > "$scratch/overhead.tsv"
cat "$scratch/overhead.tsv" >&2
col() { awk -v k="$1" -v c="$2" '$1==k{print $c}' "$scratch/overhead.tsv"; }

echo "== capture throughput ($mib MiB)" >&2
t() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f", e-s}'; }
direct=$(t sh -c "'$bin/fast_writer' $mib > '$scratch/direct.out' 2>'$scratch/direct.err'")
direct_w=$(awk '/writer_seconds/{print $2}' "$scratch/direct.err"); rm -f "$scratch/direct.out"
viapipe=$(t sh -c "'$bin/fast_writer' $mib 2>'$scratch/pipe.err' | cat > '$scratch/pipe.out'")
pipe_w=$(awk '/writer_seconds/{print $2}' "$scratch/pipe.err"); rm -f "$scratch/pipe.out"
wrapped=$(t sh -c "'$bin/gpualert' run --quiet --run-dir '$scratch/run' -- '$bin/fast_writer' $mib > '$scratch/wrapped.out' 2>'$scratch/wrapped.err'")
wrapped_w=$(awk '/writer_seconds/{print $2}' "$scratch/wrapped.err")
logsize=$(stat -c %s "$scratch/run/output.log"); outsize=$(stat -c %s "$scratch/wrapped.out")
rm -rf "$scratch/run" "$scratch/wrapped.out"
mbps() { awk -v s="$1" -v m="$mib" 'BEGIN{printf "%.0f", m/s}'; }

cpu=$(awk -F: '/model name/{print $2; exit}' /proc/cpuinfo | sed 's/^ *//')
{
  echo "## Wrapper: machine and command"
  echo
  echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)."
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ). Command: \`bench/wrapper/run_bench.sh BUILD_DIR $runs\` (RelWithDebInfo build)."
  echo
  echo "## Wrapper overhead (median of $runs interleaved runs, milliseconds)"
  echo
  echo "*launch* is the time from spawning the command until the real program (\`stamp\`) is running: the delay a"
  echo "wrapper adds before the job starts. *total* is until the wrapper has exited."
  echo
  echo "| variant | total ms (q1-q3) | total over bare | launch ms | launch over bare |"
  echo "|---|---|---|---|---|"
  while IFS=$'\t' read -r name med q1 q3 launch; do
    base=$(col bare 2); lbase=$(col bare 5); case $name in python_*) base=$(col python_bare 2); lbase=-;; esac
    awk -v n="$name" -v m="$med" -v a="$q1" -v b="$q3" -v base="$base" -v l="$launch" -v lb="$lbase" \
      'BEGIN{lo = (l=="-"||lb=="-") ? "-" : sprintf("%+.2f", l-lb);
             printf "| %s | %.2f (%.2f-%.2f) | %+.2f | %s | %s |\n", n, m, a, b, m-base, l, lo}'
  done < "$scratch/overhead.tsv"
  echo
  awk -v w="$(col gpualert 2)" -v f="$(col floor 2)" -v b="$(col bare 2)" \
      -v wl="$(col gpualert 5)" -v fl="$(col floor 5)" -v bl="$(col bare 5)" 'BEGIN{
    printf "Before the job starts, gpualert adds %.2f ms (the fork/exec/wait floor adds %.2f ms): loading the launcher, parsing\n", wl-bl, fl-bl;
    printf "its arguments, reading the settings, creating the run directory and the log (run.json is written and everything\n";
    printf "fsynced while the child execs). In all it adds %.2f ms per job (floor: %.2f ms); the rest is after the job has\n", w-b, f-b;
    printf "ended: starting gpualert-core, classifying the log, writing verdict.json and the message to the outbox (fsynced),\n";
    printf "and the summary.\n"}'
  echo
  echo "## Capture throughput ($mib MiB written by a fast writer in 64 KiB writes)"
  echo
  echo "*writer* is the writer's own time for its writes (how much the tee slowed it); *wall* includes everything"
  echo "(for gpualert: classifying the $mib MiB log after the writer ended)."
  echo
  echo "| path | writer s | writer MB/s | wall s |"
  echo "|---|---|---|---|"
  echo "| straight to a file | $direct_w | $(mbps "$direct_w") | $direct |"
  echo "| through \`\\| cat >\` (one pipe hop) | $pipe_w | $(mbps "$pipe_w") | $viapipe |"
  echo "| through \`gpualert run\` (to a file and the durable log) | $wrapped_w | $(mbps "$wrapped_w") | $wrapped |"
  echo
  echo "Bytes: wrapper output $outsize (must be $((mib << 20)), the input); durable log $logsize (the output plus the writer's one stderr line)."
} > "$scratch/section.md"
[ "$write" = 0 ] || "$root/bench/update_results.sh" wrapper < "$scratch/section.md"
cat "$scratch/section.md"
