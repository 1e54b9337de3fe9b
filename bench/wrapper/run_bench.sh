#!/usr/bin/env bash
# Wrapper overhead and capture throughput, measured in one run on this machine.
# Usage: bench/wrapper/run_bench.sh [BUILD_DIR] [RUNS] [MIB]   (updates its section of bench/RESULTS.md;
# GPUALERT_BENCH_WRITE=0 only prints, as CTest's short run does; GPUALERT_BENCH_ROUNDS capture rounds, 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
runs=${2:-40}
mib=${3:-1024}
rounds=${GPUALERT_BENCH_ROUNDS:-5}
write=${GPUALERT_BENCH_WRITE:-1}
bin=$build/bin
for b in gpualert gpualert-core spawn_timer floor_wrapper fast_writer stamp; do
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

echo "== capture throughput ($mib MiB, $rounds rounds)" >&2
# Each path runs once per round, interleaved, from a clean page cache (sync,
# and where we may, drop the caches): the previous path's gigabyte of dirty or
# just-freed pages must not be dealt with on the next one's time (without it,
# whichever path runs right after another big write is up to 2x slower).
# Figures are medians over the rounds.
t() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f", e-s}'; }
writer_s() { awk '/writer_seconds/{print $2}' "$1"; }
: > "$scratch/capture.tsv"
capture() {  # NAME DEST COMMAND...: one timed run, its writer time and wall time appended
  local name=$1 dest=$2; shift 2
  sync
  [ -w /proc/sys/vm/drop_caches ] && echo 3 > /proc/sys/vm/drop_caches
  local wall; wall=$(t sh -c "{ $*; } > '$dest' 2>'$scratch/w.err'")
  printf '%s\t%s\t%s\n' "$name" "$(writer_s "$scratch/w.err")" "$wall" >> "$scratch/capture.tsv"
}
spank_driver=$bin/spank_tee_driver
for r in $(seq "$rounds"); do
  capture direct "$scratch/o" "'$bin/fast_writer' $mib"; rm -f "$scratch/o"
  capture pipe_file "$scratch/o" "'$bin/fast_writer' $mib | cat"; rm -f "$scratch/o"
  capture pipe_null /dev/null "'$bin/fast_writer' $mib | cat"
  capture gpualert_file "$scratch/o" "'$bin/gpualert' run --quiet --run-dir '$scratch/run' -- '$bin/fast_writer' $mib"
  logsize=$(stat -c %s "$scratch/run/output.log"); outsize=$(stat -c %s "$scratch/o"); rm -rf "$scratch/run" "$scratch/o"
  capture gpualert_null /dev/null "'$bin/gpualert' run --quiet --run-dir '$scratch/run' -- '$bin/fast_writer' $mib"
  rm -rf "$scratch/run"
  if [ -x "$spank_driver" ]; then
    mkdir -p "$scratch/tee"
    capture spank_file "$scratch/o" "'$spank_driver' '$scratch/tee' '$bin/fast_writer' $mib"
    for _ in $(seq 50); do [ "$(stat -c %s "$scratch/o")" -ge $((mib << 20)) ] && break; sleep 0.1; done
    teeout=$(stat -c %s "$scratch/o"); rm -f "$scratch/o"
    capture spank_null /dev/null "'$spank_driver' '$scratch/tee' '$bin/fast_writer' $mib"
    sleep 0.5; samplesize=$(stat -c %s "$scratch/tee/task.live" 2>/dev/null || echo -); rm -rf "$scratch/tee"; mkdir -p "$scratch/tee"
    capture spank_null_nosample /dev/null "GPUALERT_BENCH_NO_SAMPLE=1 '$spank_driver' '$scratch/tee' '$bin/fast_writer' $mib"
    sleep 0.5; rm -rf "$scratch/tee"
  fi
done
cat "$scratch/capture.tsv" >&2
med() { awk -v k="$1" -v c="$2" '$1==k{print $c}' "$scratch/capture.tsv" | sort -n |
        awk '{a[NR]=$1} END{if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else printf "%.3f", (a[NR/2]+a[NR/2+1])/2}'; }
best() { awk -v k="$1" -v c="$2" '$1==k{print $c}' "$scratch/capture.tsv" | sort -n | head -1; }

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
  echo "*writer* is the writer's own time for its writes (how much the tee slowed it), the median of $rounds"
  echo "interleaved rounds, each from a clean page cache (sync, drop_caches); *vs pipe hop* compares it with the same writer through"
  echo "\`| cat\` to the same destination (above 1.00 is faster). *wall* includes everything (for gpualert:"
  echo "classifying the $mib MiB log after the writer ended). The SPANK tee is the plugin's task tee run alone"
  echo "(\`spank_tee_driver\`: no cluster), keeping its 8 MiB head and 8 MiB tail in the task log."
  echo
  echo "| path | destination | writer s | writer MB/s | vs pipe hop | best writer s | wall s |"
  echo "|---|---|---|---|---|---|---|"
  row() {  # LABEL DEST KEY PIPEKEY
    local w; w=$(med "$3" 2)
    [ "$w" = - ] && return
    awk -v l="$1" -v d="$2" -v w="$w" -v p="$(med "$4" 2)" -v wall="$(med "$3" 3)" -v m="$mib" -v b="$(best "$3" 2)" \
      'BEGIN{printf "| %s | %s | %.3f | %.0f | %s | %.3f | %.3f |\n", l, d, w, m*1.048576/w, (p=="-"||l ~ /pipe hop/) ? "1.00" : sprintf("%.2f", p/w), b, wall}'
  }
  row "straight (no tee)" "a file" direct pipe_file
  row "one pipe hop (cat)" "a file" pipe_file pipe_file
  row "\`gpualert run\` (+ the durable log)" "a file" gpualert_file pipe_file
  row "SPANK task tee (+ the task log)" "a file" spank_file pipe_file
  row "one pipe hop (cat)" "/dev/null" pipe_null pipe_null
  row "\`gpualert run\` (+ the durable log)" "/dev/null" gpualert_null pipe_null
  row "SPANK task tee (+ the task log)" "/dev/null" spank_null pipe_null
  row "SPANK task tee without the live sample" "/dev/null" spank_null_nosample pipe_null
  echo
  awk -v a="$(med spank_null 2)" -v b="$(med spank_null_nosample 2)" 'BEGIN{ if (a != "-" && b != "-" && a > 0)
    printf "The live sample (the newest lines, appended every 2 s, for the live watcher): the writer time with it over without it is %.2f (1.00 = no cost; rounds vary by about 20%%).\n", a/b }'
  echo "The sample held ${samplesize:--} bytes after the run (at most 1 MiB)."
  echo "Bytes: gpualert's output $outsize, the SPANK tee's ${teeout:--} (each must be $((mib << 20)), the input); durable log $logsize (the output plus the writer's one stderr line)."
} > "$scratch/section.md"
[ "$write" = 0 ] || "$root/bench/update_results.sh" wrapper < "$scratch/section.md"
cat "$scratch/section.md"
