#!/usr/bin/python3
"""Run one real command, capture its merged stdout+stderr and true exit status.

Used as a library by real_scenarios.py, and as a CLI for one-off captures:

    /usr/bin/python3 corpus/generate/capture.py --id traceback-real-99 \
        --mode traceback --generator manual -- /usr/bin/python3 -c 'raise KeyError(1)'

The exit status recorded is the one the kernel reports for the captured
process: its exit code, or minus the signal number if a signal killed it
(Python's Popen convention). Logs over MAX_LOG bytes keep their head and
tail with a marker line between.
"""
import argparse
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

CORPUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(CORPUS, "logs")
LABELS = os.path.join(CORPUS, "labels.jsonl")
LOCK = "/tmp/gac-labels.lock"
MAX_LOG = 192 * 1024
WORKROOT = "/tmp/gac"


def job_dir(sid):
    """A neutral per-scenario working directory (the label is not in the path)."""
    h = int(hashlib.sha1(sid.encode()).hexdigest()[:8], 16) % 900000 + 100000
    return os.path.join(WORKROOT, f"job{h}")


def job_port(sid):
    h = int(hashlib.sha1(("port" + sid).encode()).hexdigest()[:8], 16)
    return 30000 + h % 20000


def truncate(data: bytes) -> bytes:
    if len(data) <= MAX_LOG:
        return data
    head = data[: MAX_LOG // 2]
    tail = data[-MAX_LOG // 2:]
    head = head[: head.rfind(b"\n") + 1] or head
    nl = tail.find(b"\n")
    tail = tail[nl + 1:] if nl >= 0 else tail
    cut = len(data) - len(head) - len(tail)
    return head + f"[... {cut} bytes of output omitted by the corpus capture ...]\n".encode() + tail


def upsert_labels(records):
    """Insert or replace label records by id; keep the file sorted by id."""
    os.makedirs(os.path.dirname(LOCK), exist_ok=True)
    with open(LOCK, "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        rows = {}
        if os.path.exists(LABELS):
            with open(LABELS) as f:
                for line in f:
                    line = line.strip()
                    if line:
                        r = json.loads(line)
                        rows[r["id"]] = r
        for r in records:
            rows[r["id"]] = r
        tmp = LABELS + ".tmp"
        with open(tmp, "w") as f:
            for k in sorted(rows):
                f.write(json.dumps(rows[k], ensure_ascii=False) + "\n")
        os.replace(tmp, LABELS)


def run(cmd, cwd=None, env=None, kill_after=None, kill_signal=signal.SIGTERM, kill_group=True,
        hard_timeout=300, stdin=subprocess.DEVNULL):
    """Run cmd (argv list) with stdout and stderr merged into one pipe.

    kill_after: seconds after which kill_signal is sent (to the process group
    if kill_group) -- used to emulate a scheduler's time limit or an operator.
    Returns (output bytes, returncode, elapsed seconds).
    """
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=stdin, start_new_session=True)
    chunks = []

    def reader():
        while True:
            b = p.stdout.read1(65536) if hasattr(p.stdout, "read1") else p.stdout.read(65536)
            if not b:
                break
            chunks.append(b)

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    deadline = t0 + hard_timeout
    sent = False
    while p.poll() is None:
        now = time.time()
        if kill_after is not None and not sent and now - t0 >= kill_after:
            try:
                if kill_group:
                    os.killpg(p.pid, kill_signal)
                else:
                    os.kill(p.pid, kill_signal)
            except ProcessLookupError:
                pass
            sent = True
        if now > deadline:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            break
        time.sleep(0.05)
    p.wait()
    th.join(timeout=10)
    # Reap anything left in the group (e.g. orphaned workers) so runs do not leak.
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return b"".join(chunks), p.returncode, time.time() - t0


def select(scenarios, only):
    """The scenarios whose id starts with, or whose mode equals, one of the
    comma-separated keys in ONLY (all of them when ONLY is empty)."""
    if not only:
        return scenarios
    keys = only.split(",")
    return [s for s in scenarios if any(s["id"].startswith(k) or s["mode"] == k for k in keys)]


def write_log(sid, data: bytes):
    os.makedirs(LOGS, exist_ok=True)
    path = os.path.join(LOGS, f"{sid}.log")
    with open(path, "wb") as f:
        f.write(truncate(data))
    return f"logs/{sid}.log"


def label(sid, mode, source, rc, generator, notes=None, gpu=None, driver=None):
    r = {"id": sid, "mode": mode, "source": source, "log_path": f"logs/{sid}.log",
         "true_exit_code": rc, "generator": generator}
    if gpu:
        r["gpu"] = gpu
    if driver:
        r["driver"] = driver
    if notes:
        r["notes"] = notes
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--id", required=True)
    ap.add_argument("--mode", required=True)
    ap.add_argument("--generator", default="capture.py")
    ap.add_argument("--notes")
    ap.add_argument("--kill-after", type=float)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    out, rc, _ = run(cmd, kill_after=a.kill_after)
    write_log(a.id, out)
    upsert_labels([label(a.id, a.mode, "real", rc, a.generator, a.notes)])
    print(f"{a.id}: rc={rc} bytes={len(out)}")


if __name__ == "__main__":
    main()
