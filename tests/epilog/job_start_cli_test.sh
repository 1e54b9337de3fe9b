#!/usr/bin/env bash
# gpualert-epilog --job-start, as slurm.conf's Prolog= would run it (as root, with the
# environment Slurm gives a prolog): the record names the job's GPUs by address, a
# malformed environment or an unusable spool is a line on stderr, and the exit status
# is always 0 (a failing Prolog= would drain the node).
set -euo pipefail
HELPER=${1:?usage: job_start_cli_test.sh GPUALERT_EPILOG}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the spool must be root's)"; exit 0; }
T=$(mktemp -d /tmp/ga-jobstart-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 0755 "$T"
mkdir -p "$T/gpus/0000:3b:00.0" "$T/gpus/0000:86:00.0"
printf 'Model: \t\t NVIDIA A100\nGPU UUID: \t GPU-aaaa\nBus Location: \t 0000:3b:00.0\nDevice Minor: \t 0\n' >"$T/gpus/0000:3b:00.0/information"
printf 'Model: \t\t NVIDIA A100\nGPU UUID: \t GPU-bbbb\nBus Location: \t 0000:86:00.0\nDevice Minor: \t 1\n' >"$T/gpus/0000:86:00.0/information"
run() { env -i PATH=/usr/bin:/bin "$@" "$HELPER" --job-start --spool "$T/spool" --gpus-dir "$T/gpus"; }

run SLURM_JOB_ID=4242 SLURM_JOB_UID=1234 SLURM_JOB_GID=1234 SLURM_JOB_USER=nobody SLURMD_NODENAME=gpu041 SLURM_JOB_GPUS=1
rec="$T/spool/jobs/4242/job-start.gpu041.json"
[ -f "$rec" ] || { echo "FAIL: no record at $rec"; ls -R "$T/spool"; exit 1; }
/usr/bin/python3 - "$rec" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["job"] == 4242 and r["uid"] == 1234 and r["node"] == "gpu041", r
assert r["gpus_known"] and [g["bus_id"] for g in r["gpus"]] == ["0000:86:00"], r
assert r["gpu_list_from"] == "SLURM_JOB_GPUS", r
print("record ok: GPUs", [g["bus_id"] for g in r["gpus"]], "notes", r["notes"], "took %.1f ms" % r["took_ms"])
PY
[ "$(stat -c %U:%a "$T/spool/jobs/4242")" = "root:711" ] || { echo "FAIL: job directory not root 0711"; exit 1; }

# No job id: a clear line, exit 0, nothing written.
out=$(run SLURMD_NODENAME=gpu041 2>&1) || { echo "FAIL: exit status $? without a job id"; exit 1; }
grep -q "no job id" <<<"$out" || { echo "FAIL: no clear line without a job id: $out"; exit 1; }
# A spool that is a symbolic link: refused, exit 0.
ln -s /etc "$T/evil"
out=$(env -i SLURM_JOB_ID=1 SLURM_JOB_UID=1 SLURMD_NODENAME=n "$HELPER" --job-start --spool "$T/evil" 2>&1) \
  || { echo "FAIL: exit status $? on a linked spool"; exit 1; }
grep -q "no record" <<<"$out" || { echo "FAIL: $out"; exit 1; }
[ ! -e /etc/jobs ] || { echo "FAIL: wrote under /etc"; exit 1; }
echo "PASS"
