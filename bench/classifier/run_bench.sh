#!/usr/bin/env bash
# Classifier speed in one run, as ratios: gpualert classify against the read floor
# (wc -l), grep -E with one combined pattern, the GPUAlert reference approach (fifteen
# case-insensitive Python regexes over the whole text) and our own reference path
# (every line read with RE2). Two inputs: realistic training output and a hostile mix.
# Usage: bench/classifier/run_bench.sh [BUILD_DIR] [MIB]   (prints a Markdown table)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
mib=${2:-1024}
bin=$build/bin
for b in gpualert classify-speed; do
  [ -x "$bin/$b" ] || { echo "missing $bin/$b: build first" >&2; exit 1; }
done
scratch=$(mktemp -d /tmp/gpualert-cbench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export GPUALERT_CACHE_DIR=$scratch/cache

python3 "$here/realistic_log.py" $((mib << 20)) > "$scratch/realistic.log" 2>> "$scratch/realistic.log" || true
"$bin/classify-speed" "$mib" --keep "$scratch/hostile.log" > /dev/null
"$bin/gpualert" classify "$scratch/realistic.log" > /dev/null  # fills the matcher's cache

# seconds (wall, to the millisecond) and peak KiB of one command; its output goes to a
# file (GNU grep stops at the first match when its output is /dev/null)
measure() {
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$scratch/t" "$@" > "$scratch/out" 2>&1 || true
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" -v k="$(cat "$scratch/t")" 'BEGIN { printf "%.3f %d\n", e - s, k }'
}
combined='out of memory|Traceback|Error|NCCL WARN|Killed|Segmentation fault|nan'

echo "| input | tool | seconds | MiB/s | peak RSS MiB | vs grep -E | vs Python reference |"
echo "|---|---|---|---|---|---|---|"
for input in realistic hostile; do
  f=$scratch/$input.log
  size=$(stat -c %s "$f")
  declare -A secs=() rss=()
  read -r secs[floor] rss[floor] < <(measure wc -l "$f")
  read -r secs[grep] rss[grep] < <(measure grep -acE "$combined" "$f")
  read -r secs[python] rss[python] < <(measure python3 "$here/reference_regexes.py" "$f")
  read -r secs[gpualert] rss[gpualert] < <(measure "$bin/gpualert" classify "$f")
  read -r secs[reference] rss[reference] < <(measure "$bin/gpualert" classify --reference "$f")
  for tool in floor grep python gpualert reference; do
    awk -v inp="$input" -v t="$tool" -v s="${secs[$tool]}" -v k="${rss[$tool]}" -v b="$size" \
        -v g="${secs[grep]}" -v p="${secs[python]}" 'BEGIN {
      # one branch per line: mawk (Debian'\''s default awk) cannot continue a ?: over lines
      if (t == "floor") name = "wc -l (read floor)";
      else if (t == "grep") name = "grep -acE (7 alternatives)";
      else if (t == "python") name = "Python, 15 regexes over the text";
      else if (t == "gpualert") name = "gpualert classify";
      else name = "gpualert classify --reference";
      s = s < 0.001 ? 0.001 : s;
      printf "| %s (%.0f MiB) | %s | %.3f | %.0f | %.0f | %.2fx | %.2fx |\n", inp, b / 1048576, name, s,
             b / 1048576 / s, k / 1024, g / s, p / s }'
  done
done
