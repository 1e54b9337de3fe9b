#!/usr/bin/env bash
# Runs every test: unit and integration, in a normal build and again under
# AddressSanitizer + UBSan, then each fuzz target for 40 s (GPUALERT_FUZZ_SECONDS): six
# targets at a minute each took six of CI's minutes; longer runs are for by hand.
# Usage: scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
jobs=$(nproc)

echo "== build (RelWithDebInfo)"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$jobs"
echo "== tests (the Slurm suite stands up a real cluster on loopback; it needs root)"
ctest --test-dir "$root/build" -j"$jobs" --output-on-failure --timeout 1500

echo "== build (ASan + UBSan)"
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DGPUALERT_SANITIZE=ON >/dev/null
cmake --build "$root/build-asan" -j"$jobs"
# Not the Slurm suite (slurmstepd cannot load a sanitized plugin), not the benchmarks, and
# not the 128-cell fault matrix (four minutes here; the sender and relay-fault suites it
# repeats at scale do run sanitized).
echo "== tests under ASan + UBSan (not the Slurm suite, the benchmarks or the fault matrix)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" -j"$jobs" --output-on-failure --timeout 1200 -LE 'slurm|bench' -E 'integration\.fault_matrix'

echo "== fuzzing (libFuzzer + ASan + UBSan, ${GPUALERT_FUZZ_SECONDS:-40} s per target)"
"$root/scripts/fuzz.sh" "${GPUALERT_FUZZ_SECONDS:-40}"
