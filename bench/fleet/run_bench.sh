#!/usr/bin/env bash
# `gpualert report` at fleet scale, in one run, as ratios: a generated `sacct --json`
# of N jobs (Slurm 22.05's shape, two steps each, verdict tokens in SystemComment)
# read by gpualert report against the read floor (cat) and Python's json.load of the
# same file (what a site script would do). The target: 100,000 jobs in under 10 s.
# Usage: bench/fleet/run_bench.sh [BUILD_DIR] [JOBS]   (prints a Markdown table)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
jobs=${2:-100000}
bin=$build/bin
[ -x "$bin/gpualert" ] || { echo "missing $bin/gpualert: build first" >&2; exit 1; }
scratch=$(mktemp -d /tmp/gpualert-fbench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

python3 -c "import sys; sys.path.insert(0, '$root/tests/support'); import sacct_json_gen as g; g.write('$scratch/sacct.json', $jobs)"
size=$(stat -c %s "$scratch/sacct.json")

measure() {  # seconds and peak KiB of one command
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$scratch/t" "$@" > "$scratch/out" 2> "$scratch/err" || { cat "$scratch/err" >&2; exit 1; }
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" -v k="$(cat "$scratch/t")" 'BEGIN { printf "%.3f %d\n", e - s, k }'
}
read -r t_cat k_cat < <(measure cat "$scratch/sacct.json")
read -r t_py k_py < <(measure python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(len(d['jobs']))" "$scratch/sacct.json")
read -r t_ga k_ga < <(measure "$bin/gpualert" report --input "$scratch/sacct.json" --json)
# The report must have read every job: a benchmark of a reader that skipped them proves nothing.
python3 -c "import json, sys; r = json.load(open(sys.argv[1])); assert r['jobs'] == $jobs, r['jobs']" "$scratch/out"

mib=$(awk -v b="$size" 'BEGIN { printf "%.0f", b / 1048576 }')
echo "| input | tool | seconds | peak RSS MiB | vs Python json.load | vs the 10 s target |"
echo "|---|---|---|---|---|---|"
row() {
  awk -v n="$1" -v t="$2" -v k="$3" -v py="$t_py" -v inp="$jobs jobs, $mib MiB" \
    'BEGIN { printf "| %s | %s | %.3f | %.0f | %.2fx | %.2fx |\n", inp, n, t, k / 1024, py / t, 10 / t }'
}
row "cat (read floor)" "$t_cat" "$k_cat"
row "Python json.load" "$t_py" "$k_py"
row "gpualert report --json" "$t_ga" "$k_ga"
