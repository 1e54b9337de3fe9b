#!/bin/sh
# check_man.sh PAGE...: checks generated man pages (roff) the way a reader's
# man(1) will format them. A page fails when man exits non-zero or says
# anything at all on stderr (groff's warnings: an unknown request, a line it
# cannot break, a bad escape...), or when it has no NAME or no SYNOPSIS
# section. Exit 0: every page is clean; 1: at least one is not (each problem
# is printed with its page); 2: usage.
set -u

if [ $# -eq 0 ]; then
  echo "usage: check_man.sh PAGE..." >&2
  exit 2
fi
if ! command -v man >/dev/null 2>&1; then
  echo "check_man.sh: man is not installed (Debian: apt install man-db)" >&2
  exit 1
fi

# The same formatting everywhere: no preprocessors chosen by the page, a UTF-8
# locale, a fixed width, no options or pager from the caller's environment.
MANROFFSEQ=''
LC_ALL=C.UTF-8
MANWIDTH=80
MANOPT=''
MANPAGER=cat
PAGER=cat
export MANROFFSEQ LC_ALL MANWIDTH MANOPT MANPAGER PAGER

err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
trap 'exit 2' HUP INT TERM

status=0
for page in "$@"; do
  if [ ! -r "$page" ]; then
    echo "$page: FAIL: no such page (was it generated?)"
    status=1
    continue
  fi
  bad=0
  rc=0
  man --warnings -l "$page" >/dev/null 2>"$err" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "$page: FAIL: man exited with status $rc"
    bad=1
  fi
  if [ -s "$err" ]; then
    echo "$page: FAIL: man printed on stderr:"
    sed "s|^|$page: |" "$err"
    bad=1
  fi
  for section in NAME SYNOPSIS; do
    if ! grep -Eq "^\.SH \"?$section\"?[[:space:]]*\$" "$page"; then
      echo "$page: FAIL: no $section section"
      bad=1
    fi
  done
  if [ "$bad" -eq 0 ]; then
    echo "$page: ok"
  else
    status=1
  fi
done
exit "$status"
