#!/usr/bin/python3
"""Registry and runner of the REAL corpus scenarios.

Each scenario writes a small job (script files) into a neutral working
directory under /tmp/gac/, really runs it on this machine with
capture.run(), and stores the merged stdout+stderr as logs/<id>.log and its
true exit status in labels.jsonl (source "real").

    /usr/bin/python3 corpus/generate/real_scenarios.py            # all
    /usr/bin/python3 corpus/generate/real_scenarios.py -j 2       # 2 at a time
    /usr/bin/python3 corpus/generate/real_scenarios.py --only segfault --list

Ids are `<mode>-real-NN`, numbered in registration order, so regeneration
gives the same ids, modes and exit codes (logs differ in pids and times).
If a run's exit code differs from the scenario's `expect`, the run is
reported as a failure and its label is not written.
"""
import argparse
import os
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
JOBS = os.path.join(HERE, "jobs")
PY = "/usr/bin/python3"
USER = "corpususer"

SCENARIOS = []
_counts = {}


class Ctx:
    def __init__(self, sid):
        self.id = sid
        self.dir = capture.job_dir(sid)
        self.port = capture.job_port(sid)

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def write(self, name, text, mode=None):
        p = self.path(name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(textwrap.dedent(text).lstrip("\n"))
        if mode is not None:
            os.chmod(p, mode)
        return p

    def cc(self, name, src, flags=(), cxx=False):
        """Compile a small C/C++ program or library in the job dir."""
        ext = ".cpp" if cxx else ".c"
        srcp = self.write(name + ext, src)
        comp = "g++" if cxx else "gcc"
        out = self.path(name)
        subprocess.run([comp, "-O0", "-o", out, srcp, *flags], check=True, cwd=self.dir)
        return out


def sc(mode, name, code=None, cmd=None, script="train.py", files=None, expect=None, notes=None,
       env=None, kill_after=None, kill_signal=15, setup=None, post=None, user=False, hard_timeout=240,
       unbuffered=False):
    """Register one real scenario. Returns its id."""
    _counts[mode] = _counts.get(mode, 0) + 1
    sid = f"{mode}-real-{_counts[mode]:02d}"
    SCENARIOS.append(dict(id=sid, mode=mode, name=name, code=code, cmd=cmd, script=script, files=files or {},
                          expect=expect, notes=notes, env=env or {}, kill_after=kill_after,
                          kill_signal=kill_signal, setup=setup, post=post, user=user,
                          hard_timeout=hard_timeout, unbuffered=unbuffered, module=None))
    return sid


def base_env(ctx, extra):
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": ctx.dir,
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MASTER_PORT_HINT": str(ctx.port),
    }
    env.update({k: v.replace("{PORT}", str(ctx.port)).replace("{DIR}", ctx.dir) for k, v in extra.items()})
    return env


def ensure_user():
    if subprocess.run(["id", USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "-M", "-s", "/bin/bash", USER], check=True)


TORCHRUN = "/tmp/gac/bin/torchrun"


def install_torchrun():
    os.makedirs(os.path.dirname(TORCHRUN), exist_ok=True)
    shutil.copy(os.path.join(JOBS, "torchrun"), TORCHRUN)
    os.chmod(TORCHRUN, 0o755)


def torchrun(ctx, nproc=2, script="train.py", extra=()):
    return [PY, TORCHRUN, f"--nproc_per_node={nproc}", "--master_addr=127.0.0.1",
            f"--master_port={ctx.port}", *extra, script]


def run_one(s):
    try:
        return _run_one(s)
    except Exception as e:  # report, keep going
        import traceback
        return s["id"], -999, 0.0, False, traceback.format_exc().encode()


def _run_one(s):
    ctx = Ctx(s["id"])
    shutil.rmtree(ctx.dir, ignore_errors=True)
    os.makedirs(ctx.dir)
    shutil.copy(os.path.join(JOBS, "trainlib.py"), ctx.path("trainlib.py"))
    for name, text in s["files"].items():
        ctx.write(name, text)
    if s["code"] is not None:
        ctx.write(s["script"], s["code"])
    if s["setup"]:
        s["setup"](ctx)
    cmd = s["cmd"](ctx) if callable(s["cmd"]) else (s["cmd"] or [PY, s["script"]])
    if s["unbuffered"]:
        s["env"] = dict(s["env"], PYTHONUNBUFFERED="1")
    if s["user"]:
        ensure_user()
        for root, dirs, fs in os.walk(ctx.dir):
            for n in dirs + fs:
                p = os.path.join(root, n)
                if os.stat(p).st_uid == 0 and not n.startswith("ro_"):
                    os.chown(p, *_uid())
        os.chown(ctx.dir, *_uid())
        cmd = ["runuser", "-u", USER, "--"] + cmd
    out, rc, el = capture.run(cmd, cwd=ctx.dir, env=base_env(ctx, s["env"]), kill_after=s["kill_after"],
                              kill_signal=s["kill_signal"], hard_timeout=s["hard_timeout"])
    if s["post"]:
        out = s["post"](out, rc, ctx)
    ok = s["expect"] is None or rc == s["expect"]
    if ok:
        capture.write_log(s["id"], out)
        capture.upsert_labels([capture.label(s["id"], s["mode"], "real", rc,
                                             f"real_scenarios.py:{s['module']}:{s['name']}", s["notes"])])
    shutil.rmtree(ctx.dir, ignore_errors=True)
    return s["id"], rc, el, ok, out


def _uid():
    import pwd
    pw = pwd.getpwnam(USER)
    return pw.pw_uid, pw.pw_gid


def load():
    import scen_asset
    import scen_code
    import scen_learning
    import scen_sys
    import scen_torch
    for mod in (scen_code, scen_sys, scen_torch, scen_asset, scen_learning):
        start = len(SCENARIOS)
        mod.register(sys.modules[__name__])
        for s in SCENARIOS[start:]:
            s["module"] = mod.__name__


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--only", help="comma-separated modes or ids (prefix match)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--show", action="store_true", help="print each log after running")
    a = ap.parse_args()
    load()
    install_torchrun()
    todo = capture.select(SCENARIOS, a.only)
    if a.list:
        for s in todo:
            print(s["id"], s["name"])
        return 0
    bad = []
    with ThreadPoolExecutor(max_workers=a.j) as ex:
        for sid, rc, el, ok, out in ex.map(run_one, todo):
            print(f"{'ok  ' if ok else 'FAIL'} {sid:32s} rc={rc:<4} {el:5.1f}s {len(out):7d}B", flush=True)
            if a.show or not ok:
                print(textwrap.indent(out.decode(errors='replace')[-3000:], "    | "))
            if not ok:
                bad.append(sid)
    if bad:
        print("unexpected exit codes:", " ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
