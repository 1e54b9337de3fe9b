#!/usr/bin/env bash
# Installs the Debian packages gpualert needs to build and test (idempotent; needs root).
set -euo pipefail
# The last line: building, linting and checking the Debian package, man pages and RPM spec.
pkgs=(cmake g++ make pkg-config
      libre2-dev libhyperscan-dev libcli11-dev nlohmann-json3-dev libsimdjson-dev libcairo2-dev libcurl4-openssl-dev libsystemd-dev zlib1g-dev
      libgtest-dev libgmock-dev libslurm-dev
      python3 python3-aiosmtpd openssl ca-certificates postfix clang libclang-rt-14-dev \
      dpkg-dev debhelper lintian devscripts scdoc man-db rpm chromium fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing packages: ${missing[*]} (run as root or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Postfix is the node MTA the sendmail transport is tested against: local only, not started here.
printf '%s\n' "postfix postfix/main_mailer_type select Local only" \
  "postfix postfix/mailname string gpualert-ci.localdomain" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
