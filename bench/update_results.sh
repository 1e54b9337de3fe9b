#!/usr/bin/env bash
# Replaces one section of bench/RESULTS.md (between "<!-- NAME:begin -->" and
# "<!-- NAME:end -->", appended if absent) with the text on stdin, leaving the
# other benchmarks' sections as they are.
# Usage: bench/update_results.sh NAME < section.md
set -euo pipefail
name=$1
file=$(cd "$(dirname "$0")" && pwd)/RESULTS.md
new=$(mktemp)
trap 'rm -f "$new"' EXIT
cat > "$new"
[ -f "$file" ] || echo "# Benchmark results" > "$file"
python3 - "$file" "$name" "$new" <<'PY'
import sys
path, name, new = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().rstrip("\n")
text = open(path).read()
begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
block = begin + "\n" + new + "\n" + end
if begin in text and end in text:
    a = text.index(begin)
    b = text.index(end) + len(end)
    text = text[:a] + block + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
PY
