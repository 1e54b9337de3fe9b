#!/usr/bin/env bash
# The RPM spec parses with Debian's rpm tools, pins the plugin to the Slurm release
# it is built for, and its %files name what `cmake --install` puts under /usr and
# /etc with the spec's own options (checked against a real install tree).
set -euo pipefail
src=$1 build=$2
spec=$src/packaging/rpm/gpualert.spec
command -v rpmspec >/dev/null || { echo "SKIP: rpmspec not installed (Debian package rpm)"; exit 0; }
parsed=$(rpmspec -P --define 'slurm_release 22.05' --define '_sourcedir /nonexistent' "$spec")
grep -qx 'Requires:       slurm >= 22.05' <<<"$parsed" || { echo "FAIL: no 'slurm >= 22.05'"; exit 1; }
grep -qx 'Requires:       slurm < 22.06' <<<"$parsed" || { echo "FAIL: no 'slurm < 22.06'"; exit 1; }
version=$(sed -nE 's/^project\(gpualert VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")
grep -qx "Version:        $version" <<<"$parsed" || { echo "FAIL: the spec's Version is not $version"; exit 1; }
# Every file the spec lists exists in an install with the spec's layout, and every installed
# file is listed: an install tree from this build's objects, relocated the way the spec's
# CMake options would (lib -> lib64, the plugin under lib64/slurm, /etc outside the prefix).
root=$(mktemp -d /tmp/gpualert-rpmcheck.XXXXXX)
trap 'rm -rf "$root"' EXIT
cmake --install "$build" --prefix "$root/usr" >/dev/null
mv "$root/usr/etc" "$root/etc"
[ -d "$root/usr/lib/slurm-wlm" ] && { mkdir -p "$root/usr/lib64"; mv "$root/usr/lib/slurm-wlm" "$root/usr/lib64/slurm"; }
mkdir -p "$root/var/spool/gpualert"
files=$(awk '/^%files/{on=1; next} /^%(changelog|post|preun|postun)/{on=0} on' <<<"$parsed" \
        | sed -E 's/^%(config\(noreplace\)|dir|attr\([^)]*\)) +//; s/^%(dir|attr\([^)]*\)) +//' | grep '^/' || true)
fail=0
while read -r pattern; do
  # shellcheck disable=SC2086
  matches=$(compgen -G "$root${pattern%/}" || true)
  [ -n "$matches" ] || { echo "FAIL: %files lists $pattern, not installed"; fail=1; }
done <<<"$files"
while read -r f; do
  rel=/${f#"$root"/}
  covered=0
  while read -r pattern; do
    p=${pattern%/}
    # shellcheck disable=SC2053
    if [[ $rel == $p || $rel == $p/* ]]; then covered=1; break; fi
  done <<<"$files"
  [ $covered = 1 ] || { echo "FAIL: installed but not in %files: $rel"; fail=1; }
done < <(find "$root" -type f -o -type l)
[ $fail = 0 ] || exit 1
echo "rpm spec: parses, pins Slurm 22.05, %files match the install ($(wc -l <<<"$files") entries)"
