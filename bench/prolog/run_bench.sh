#!/usr/bin/env bash
# The job prolog's cost against its 100 ms budget: bench/prolog/run_bench.sh BUILD_DIR [RUNS]
set -euo pipefail
BUILD=${1:?usage: run_bench.sh BUILD_DIR [RUNS]}
RUNS=${2:-11}
BIN="$BUILD/bin/prolog-bench"
[ -x "$BIN" ] || { echo "missing $BIN (build the prolog_bench target)" >&2; exit 1; }
"$BIN" "$RUNS"
