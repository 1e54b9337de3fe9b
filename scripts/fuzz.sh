#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS
# (default 60) from its seed corpus under fuzz/corpus/. Fails on any crash, leak,
# timeout or out-of-memory; the input that caused it is left in the work dir.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(classify config option_value mime outbox_record sacct_json)
build=$root/build-fuzz
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUALERT_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null
work=$(mktemp -d /tmp/gpualert-fuzz.XXXXXX)
# The outbox target writes and fsyncs a spool per input: on a disk busy with other
# work one unlink once took past the 10 s limit. In memory it measures the code only.
[ -w /dev/shm ] && export TMPDIR=/dev/shm
status=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  log=$work/$t.log
  # The seeds are read, never written: new inputs go to the work dir.
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$build/bin/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$work/$t-" "$work/$t" "$root/fuzz/corpus/$t" > "$log" 2>&1; then
    runs=$(awk '/stat::number_of_executed_units/{print $2}' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "fuzz_$t: ${runs:-?} inputs in ${secs} s, ${cov:-cov: ?}, no failure"
  else
    echo "fuzz_$t: FAILED (the input is in $work; log $log)"
    tail -40 "$log"
    status=1
  fi
done
[ $status -eq 0 ] && rm -rf "$work"
exit $status
