#!/usr/bin/python3
"""REAL scheduler-ended jobs on a real Slurm 22.05 cluster: timeout, cancelled, preempted, node_fail.

    /usr/bin/python3 corpus/generate/slurm_scenarios.py              # all (cluster up ... down), ~12 min
    /usr/bin/python3 corpus/generate/slurm_scenarios.py --only timeout,preempted-real-03
    /usr/bin/python3 corpus/generate/slurm_scenarios.py --list
    /usr/bin/python3 corpus/generate/slurm_scenarios.py --keep-cluster   # do not run slurm_cluster.sh down

As root. `slurm_cluster.sh up` brings up the two-node test cluster of tests/slurm (vm, and vm2 in a
network namespace) with preemption partitions, 8 CPUs per node and SlurmdTimeout=10; see that script.
Each scenario writes a batch script and a small real CPU training job (`train.py` + `jobs/trainlib.py`)
into a neutral directory /tmp/gac/jobNNNNNN owned by the cluster's job user (alice), submits it with
`sbatch -o <dir>/slurm-%j.out` as that user, does to it what the scenario says (nothing and wait for the
time limit, scancel, submit a higher-tier job, take the node down or kill it), waits for the job to end,
reads its state and exit codes with `sacct -P`, and stores the output file exactly as slurmstepd wrote it
as logs/<id>.log. The label adds `slurm_state` (sacct State of the run the log ends with) and
`true_exit_code` (the batch step's ExitCode: the exit code, or minus the signal for `0:N`).
A run whose sacct state does not start with the scenario's `expect` is reported and not labelled.
Ids are `<mode>-real-NN` in registration order (no real ids of these classes exist elsewhere).
"""
import argparse
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
JOBS = os.path.join(HERE, "jobs")
CLUSTER = os.path.join(HERE, "slurm_cluster.sh")
LIBSH = os.path.join(REPO, "tests", "slurm", "lib.sh")
USER = "alice"
N1, N2 = "vm", "vm2"          # node names: set from `hostname -s` in main()
NETNS = "/run/netns/gpualert-n2"
PRINT_LOCK = threading.Lock()

# ---------------------------------------------------------------- the training job
TRAIN_PY = r'''
import argparse, os, signal, sys, time, warnings
import torch
import trainlib as T

ap = argparse.ArgumentParser()
ap.add_argument("--fmt", default="plain")
ap.add_argument("--steps", type=int, default=5000)
ap.add_argument("--sleep", type=float, default=0.3)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--log-every", type=int, default=1)
ap.add_argument("--on-term", default="none", choices=["none", "save_exit", "save_continue", "save_reraise"])
ap.add_argument("--usr1", action="store_true", help="Lightning-style auto-requeue handler for SIGUSR1")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--save-every", type=int, default=0)
ap.add_argument("--warn", action="store_true")
ap.add_argument("--quiet-ranks", action="store_true", help="only SLURM_PROCID 0 prints progress")
a = ap.parse_args()

rank = int(os.environ.get("SLURM_PROCID", "0"))
state = {"model": None, "step": 0}


def save(tag="last"):
    os.makedirs("checkpoints", exist_ok=True)
    path = os.path.join("checkpoints", f"{tag}.pt")
    torch.save({"step": state["step"], "model": state["model"].state_dict()}, path)
    return path


def on_term(signum, frame):
    name = signal.Signals(signum).name
    print(f"received {name}, saving checkpoint at step {state['step']}", flush=True)
    if state["model"] is not None and rank == 0:
        path = save()
        print(f"checkpoint saved to {path}", flush=True)
    if a.on_term == "save_exit":
        print("exiting cleanly after signal", flush=True)
        sys.exit(0)
    if a.on_term == "save_reraise":
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def on_usr1(signum, frame):
    print(f"Handling auto-requeue signal: {signum}", flush=True)
    if state["model"] is not None:
        print(f"saved checkpoint {save('hpc_ckpt_1')}", flush=True)
    print("requeue failed: scontrol requeue is not allowed for this job, continuing", flush=True)


if a.on_term != "none":
    signal.signal(signal.SIGTERM, on_term)
if a.usr1:
    signal.signal(signal.SIGUSR1, on_usr1)
if a.warn:
    warnings.warn("The default value of num_workers will change; set it explicitly to silence this warning",
                  UserWarning)

model, start = None, 0
if a.resume and os.path.exists("checkpoints/last.pt"):
    ck = torch.load("checkpoints/last.pt")
    model = T.make_model()
    model.load_state_dict(ck["model"])
    start = ck["step"]
    print(f"Resuming from checkpoint checkpoints/last.pt (step {start})", flush=True)
elif a.resume:
    print("no checkpoint found in checkpoints/, starting from scratch", flush=True)


def on_step(step, loss, m):
    state["model"], state["step"] = m, step


if a.quiet_ranks and rank != 0:
    print(f"rank {rank} on {os.uname().nodename}: joined, training silently", flush=True)
    out = open(os.devnull, "w")
    pr = T.Printer(a.fmt, a.steps, 16, stream=out)
else:
    pr = None
T.train(steps=a.steps, lr=a.lr, fmt=a.fmt, step_sleep=lambda s: a.sleep, on_step=on_step, model=model,
        start_step=start, log_every=a.log_every, save_every=a.save_every, printer=pr)
'''

SCENARIOS = []
_counts = {}


def sc(mode, name, script, expect, sbatch=(), action=None, group=None, notes=None, train_py=TRAIN_PY,
       files=None, node=None, capture_when="end"):
    """Register one scenario.

    script: the sbatch script body (dedented); `#SBATCH` lines in it are real.
    expect: sacct State prefix the captured run must have (e.g. "TIMEOUT", "CANCELLED", "PREEMPTED").
    action: callable(job) run after submission (scancel etc.); group: node_fail event group.
    capture_when: "end" (the job left the queue) or "requeued" (the run was requeued: capture then,
    then cancel the pending remainder).
    """
    _counts[mode] = _counts.get(mode, 0) + 1
    sid = f"{mode}-real-{_counts[mode]:02d}"
    SCENARIOS.append(dict(id=sid, mode=mode, name=name, script=script, expect=expect, sbatch=list(sbatch),
                          action=action, group=group, notes=notes, train_py=train_py, files=files or {},
                          node=node, capture_when=capture_when))
    return sid


def say(*a):
    with PRINT_LOCK:
        print(*a, flush=True)


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


def as_user(cmd):
    return ["runuser", "-u", USER, "--"] + cmd


# ---------------------------------------------------------------- job handling
class Job:
    def __init__(self, s):
        self.s = s
        self.id = s["id"]
        self.dir = capture.job_dir(s["id"])
        self.jobid = None
        self.out = None
        self.extra = []       # notes added by actions

    def setup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        shutil.copy(os.path.join(JOBS, "trainlib.py"), os.path.join(self.dir, "trainlib.py"))
        with open(os.path.join(self.dir, "train.py"), "w") as f:
            f.write(self.s["train_py"].lstrip("\n"))
        for name, text in self.s["files"].items():
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(textwrap.dedent(text).lstrip("\n"))
        body = textwrap.dedent(self.s["script"]).lstrip("\n").replace("{N1}", N1).replace("{N2}", N2)
        with open(os.path.join(self.dir, "job.sh"), "w") as f:
            f.write(body)
        pw = pwd.getpwnam(USER)
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        for n in os.listdir(self.dir):
            os.chown(os.path.join(self.dir, n), pw.pw_uid, pw.pw_gid)

    def submit(self):
        args = [a.replace("{N1}", N1).replace("{N2}", N2) for a in self.s["sbatch"]]
        r = sh(as_user(["sbatch", "--parsable", "-D", self.dir, "-o", os.path.join(self.dir, "slurm-%j.out"),
                        *args, os.path.join(self.dir, "job.sh")]), cwd=self.dir)
        self.jobid = r.stdout.strip().split(";")[0]
        self.out = os.path.join(self.dir, f"slurm-{self.jobid}.out")
        return self.jobid

    def text(self):
        try:
            with open(self.out, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def lines(self):
        return self.text().replace(b"\r", b"\n").count(b"\n")

    def wait_lines(self, n, timeout=120, pattern=None):
        end = time.time() + timeout
        while time.time() < end:
            t = self.text()
            if (pattern is None and t.replace(b"\r", b"\n").count(b"\n") >= n) or \
               (pattern is not None and len(re.findall(pattern.encode(), t)) >= n):
                return True
            time.sleep(0.5)
        raise RuntimeError(f"{self.id}: job {self.jobid} did not print {n} lines{' of ' + pattern if pattern else ''}")

    def squeue_state(self):
        r = sh(["squeue", "-h", "-j", self.jobid, "-o", "%T"], check=False)
        return r.stdout.strip() if r.returncode == 0 else ""

    def wait_running(self, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            if self.squeue_state() == "RUNNING":
                return
            time.sleep(0.3)
        raise RuntimeError(f"{self.id}: job {self.jobid} not RUNNING after {timeout}s ({self.squeue_state()})")

    def sacct_rows(self):
        r = sh(["sacct", "-j", self.jobid, "-D", "-n", "-P", "-o",
                "JobID,JobName,Partition,State,ExitCode,DerivedExitCode,Start,End,Elapsed,NodeList"], check=False)
        rows = []
        for line in r.stdout.splitlines():
            f = line.split("|")
            if len(f) == 10:
                rows.append(dict(zip(["JobID", "JobName", "Partition", "State", "ExitCode", "DerivedExitCode",
                                      "Start", "End", "Elapsed", "NodeList"], f)))
        return rows

    def run_rows(self):
        """The job rows and batch rows of the last run that really started."""
        rows = self.sacct_rows()
        runs, cur = [], None
        for r in rows:
            if r["JobID"] == self.jobid:
                cur = {"job": r, "steps": []}
                runs.append(cur)
            elif cur is not None:
                cur["steps"].append(r)
        started = [x for x in runs if x["job"]["Start"] not in ("None", "Unknown", "")]
        return started[-1] if started else None, rows


FINAL_BUSY = ("RUNNING", "PENDING", "COMPLETING", "REQUEUED", "SUSPENDED", "CONFIGURING", "RESIZING",
              "REQUEUE_HOLD", "REQUEUE_FED", "SIGNALING", "STAGE_OUT", "STOPPED")


def wait_end(job, timeout=400):
    """Wait until the job left the queue and sacct has its final state and batch step."""
    end = time.time() + timeout
    while time.time() < end:
        if job.squeue_state() == "":
            run, _ = job.run_rows()
            if run and run["job"]["State"].split()[0] not in FINAL_BUSY and \
               all(st["State"].split()[0] not in FINAL_BUSY for st in run["steps"]):
                return
        time.sleep(1)
    raise RuntimeError(f"{job.id}: job {job.jobid} did not end within {timeout}s")


def wait_requeued(job, timeout=200):
    """Wait until the running instance ended and the job was requeued (pending again)."""
    end = time.time() + timeout
    while time.time() < end:
        st = job.squeue_state()
        if st in ("PENDING", "REQUEUED", "REQUEUE_HOLD", ""):
            rows = job.sacct_rows()
            jr = [r for r in rows if r["JobID"] == job.jobid and r["Start"] not in ("None", "Unknown")]
            done = [r for r in jr if r["State"].split()[0] not in ("RUNNING", "COMPLETING")]
            br = [r for r in rows if r["JobID"] == job.jobid + ".batch"]
            if done and br and br[-1]["State"] not in ("RUNNING", "COMPLETING"):
                return st
        time.sleep(1)
    raise RuntimeError(f"{job.id}: job {job.jobid} was not requeued within {timeout}s")


def exit_of(ec):
    a, _, b = ec.partition(":")
    a, b = int(a or 0), int(b or 0)
    return -b if b else a


def finish(job):
    """Record sacct, store the log and label. Returns (ok, summary)."""
    run, rows = job.run_rows()
    s = job.s
    if run is None:
        return False, "no started run in sacct"
    state = run["job"]["State"]
    batch = [r for r in run["steps"] if r["JobID"].endswith(".batch")]
    ec_src = batch[-1]["ExitCode"] if batch and batch[-1]["ExitCode"] else run["job"]["ExitCode"]
    rc = exit_of(ec_src)
    data = job.text()
    table = "; ".join(f"{r['JobID']} {r['State']} {r['ExitCode']}" for r in [run["job"]] + run["steps"])
    ok = state.startswith(s["expect"])
    summary = f"jobid={job.jobid} state={state!r} batch_ec={ec_src} rc={rc} bytes={len(data)} sacct: {table}"
    if not ok:
        return False, summary
    capture.write_log(job.id, data)
    notes = " ".join(x if x.endswith(".") else x + "." for x in [s["notes"], *job.extra,
                                 f"sacct -D: {table}" + ("" if batch and batch[-1]["ExitCode"] else
                                                        " (the batch step has no ExitCode in sacct; true_exit_code is the job row's)")]
                     if x)
    r = capture.label(job.id, s["mode"], "real", rc, f"slurm_scenarios.py:{s['name']}", notes)
    r["slurm_state"] = state
    capture.upsert_labels([r])
    return True, summary


def run_scenario(s, start_evt=None):
    job = Job(s)
    try:
        job.setup()
        job.submit()
        say(f"  {job.id:22s} submitted job {job.jobid} ({s['name']})")
        if s["action"]:
            s["action"](job)
        if start_evt is not None:
            start_evt.wait()
        if s["capture_when"] == "requeued":
            wait_requeued(job)
            # the requeued remainder is pending (BeginTime): capture, then end it so the node is free again
            time.sleep(1)
            ok, summ = finish(job)
            sh(["scancel", job.jobid], check=False)
            return job, ok, summ
        wait_end(job)
        time.sleep(0.5)
        ok, summ = finish(job)
        return job, ok, summ
    except Exception as e:  # report, keep going
        if job.jobid:
            sh(["scancel", job.jobid], check=False)
        return job, False, f"error: {e}"


# ---------------------------------------------------------------- actions
def cancel_after(n_lines, by="user", step=False, pattern=None, extra_args=()):
    def act(job):
        job.wait_running()
        job.wait_lines(n_lines, pattern=pattern)
        target = job.jobid + (".0" if step else "")
        cmd = ["scancel", *extra_args, target]
        sh(as_user(cmd) if by == "user" else cmd)
        job.extra.append(f"`scancel {' '.join(extra_args) + ' ' if extra_args else ''}{target}` run by "
                         f"{'the job user ' + USER if by == 'user' else 'root (operator)'} after the job printed "
                         f"{n_lines}+ {'matching ' if pattern else ''}lines.")
    return act


def preempt_after(n_lines, node, hold=15, again=False):
    """Once the low-tier job printed n_lines, submit a high-tier job needing the whole node."""
    def high(job, tag):
        r = sh(as_user(["sbatch", "--parsable", "-p", "high", "-w", node, "-c", "8", "--mem=200M", "-t", "5",
                        "-J", "eval-priority", "-D", "/tmp", "-o", "/dev/null", "--wrap", f"sleep {hold}"]))
        hid = r.stdout.strip()
        job.extra.append(f"high-tier job {hid} (partition high, PriorityTier=10, -c 8 on {node}) submitted {tag}.")
        return hid

    def act(job):
        job.wait_running()
        job.wait_lines(n_lines)
        high(job, f"after {n_lines}+ lines")
        if again:
            # REQUEUE: let the requeued job run again, then preempt the second run too
            wait_requeued(job)
            job.wait_running(timeout=240)
            mark = job.text().count(b"\n")
            job.wait_lines(mark + n_lines)
            high(job, "again after the requeued job restarted and printed progress")
    return act


# ---------------------------------------------------------------- scenarios
HDR = "#!/bin/bash\n"


def py(args, srun=False, unbuffered=True):
    u = " -u" if unbuffered else ""
    return f"{'srun ' if srun else ''}/usr/bin/python3{u} train.py {args}"


def register():
    T1 = "#SBATCH --time=1\n#SBATCH --cpus-per-task=1\n#SBATCH --mem=600M\n"
    # ------------------------------------------------------------ timeout (--time=1, printing to the end)
    tmo = dict(expect="TIMEOUT", sbatch=[])
    sc("timeout", "hf_python", HDR + "#SBATCH --job-name=ft-bert-base\n" + T1 + f"""
        echo "job $SLURM_JOB_ID on $(hostname), started $(date)"
        {py('--fmt hf --sleep 0.4')}
        """, **tmo, notes="HF-Trainer dict lines until Slurm kills the job at --time=1")
    sc("timeout", "keras_python", HDR + "#SBATCH --job-name=keras-mlp\n" + T1 + f"""
        {py('--fmt keras --sleep 0.25')}
        """, **tmo, notes="Keras progress lines with carriage returns")
    sc("timeout", "plain_steps", HDR + "#SBATCH --job-name=train\n" + T1 + f"""
        {py('--fmt plain --sleep 0.3')}
        """, **tmo)
    sc("timeout", "logging_ts", HDR + "#SBATCH --job-name=pretrain-small\n" + T1 + f"""
        module_msg="loading env"; echo "$module_msg"
        {py('--fmt logging --sleep 0.5 --warn')}
        """, **tmo, notes="python logging lines with timestamps; a UserWarning on stderr at start")
    sc("timeout", "tqdm_stderr", HDR + "#SBATCH --job-name=tqdm-run\n" + T1 + f"""
        {py('--fmt tqdm --sleep 0.3')}
        """, **tmo, notes="tqdm bar on stderr (carriage returns), merged into the output file")
    sc("timeout", "megatron_srun", HDR + "#SBATCH --job-name=gpt-125m\n" + T1 + """
        echo "MASTER_ADDR=$(hostname) NNODES=$SLURM_JOB_NUM_NODES"
        srun --label /usr/bin/python3 -u train.py --fmt megatron --sleep 0.4
        """, **tmo, notes="training in an srun step (--label): slurmstepd reports both the STEP and the JOB; srun prints its own abort lines")
    sc("timeout", "sigterm_save_exit", HDR + "#SBATCH --job-name=ckpt-on-term\n" + T1 + f"""
        {py('--fmt plain2 --sleep 0.3 --on-term save_exit')}
        echo "train.py exited with $?"
        """, **tmo, notes="train.py traps SIGTERM, saves a checkpoint and exits 0 within KillWait; the batch script is killed by the same SIGTERM")
    sc("timeout", "bash_trap_steps", HDR + "#SBATCH --job-name=pipeline\n" + T1 + """
        trap 'echo "[job.sh] caught SIGTERM at $(date +%T), forwarding to trainer pid $PID" >&2; kill -TERM $PID; wait $PID; echo "[job.sh] trainer exited $?"; exit 143' TERM
        echo "[job.sh] step 1: preprocessing"
        srun -n1 /usr/bin/python3 -c 'import time; [print(f"tokenized shard {i}/4", flush=True) or time.sleep(0.5) for i in range(1, 5)]'
        echo "[job.sh] step 2: training"
        /usr/bin/python3 -u train.py --fmt hf --sleep 0.4 --on-term save_continue &
        PID=$!
        wait $PID
        """, **tmo, notes="multi-step batch script: an srun preprocessing step, then training in the background with a bash SIGTERM trap that forwards the signal; the trainer saves and keeps going until SIGKILL")
    sc("timeout", "lightning_usr1", HDR + "#SBATCH --job-name=lit-classifier\n" + T1 + "#SBATCH --signal=USR1@30\n" + f"""
        srun {py('--fmt lightning --sleep 0.25 --usr1')}
        """, **tmo, notes="Lightning-style: --signal=USR1@30 delivers SIGUSR1 before the limit (Slurm's signal timer is coarse); the handler saves and continues; then the time limit")
    sc("timeout", "ds_buffered", HDR + "#SBATCH --job-name=ds-stage2\n" + T1 + f"""
        echo "[launcher] world size 1, deepspeed-style logging"
        {py('--fmt ds --sleep 0.05', unbuffered=False)}
        """, **tmo, notes="block-buffered stdout (no -u, file output): progress reaches the file in 8 KiB chunks until the kill, the last buffer is lost")
    sc("timeout", "sigterm_reraise_logging", HDR + "#SBATCH --job-name=resnet-cpu\n" + T1 + """
        set -x
        export OMP_NUM_THREADS=1
        /usr/bin/python3 -u train.py --fmt logging --sleep 0.4 --on-term save_reraise
        """, **tmo, notes="bash -x trace on stderr; train.py saves on SIGTERM then re-raises it (dies by SIGTERM)")
    sc("timeout", "plain_two_tasks", HDR + "#SBATCH --job-name=dp2\n#SBATCH --ntasks=2\n#SBATCH --time=1\n#SBATCH --cpus-per-task=1\n#SBATCH --mem-per-cpu=600M\n" + """
        srun /usr/bin/python3 -u train.py --fmt plain --sleep 0.5 --quiet-ranks
        """, **tmo, notes="two tasks in one srun step, rank 0 prints")

    # ------------------------------------------------------------ cancelled (scancel of a running job)
    C = "#SBATCH --cpus-per-task=1\n#SBATCH --mem=600M\n#SBATCH --time=30\n"
    sc("cancelled", "user_hf", HDR + "#SBATCH --job-name=ft-llama-lora\n" + C + f"""
        {py('--fmt hf --sleep 0.3')}
        """, expect="CANCELLED", action=cancel_after(30))
    sc("cancelled", "operator_plain", HDR + "#SBATCH --job-name=train\n" + C + f"""
        {py('--fmt plain --sleep 0.3')}
        """, expect="CANCELLED", action=cancel_after(25, by="root"))
    sc("cancelled", "user_keras_srun", HDR + "#SBATCH --job-name=keras-cnn\n" + C + f"""
        srun {py('--fmt keras --sleep 0.2')}
        """, expect="CANCELLED", action=cancel_after(40))
    sc("cancelled", "sigterm_save_exit", HDR + "#SBATCH --job-name=mlp-ckpt\n" + C + f"""
        {py('--fmt plain2 --sleep 0.3 --on-term save_exit')}
        echo "trainer exit status $?"
        """, expect="CANCELLED", action=cancel_after(20), notes="train.py traps SIGTERM, saves a checkpoint and exits 0")
    sc("cancelled", "bash_trap", HDR + "#SBATCH --job-name=sweep-7\n" + C + """
        trap 'echo "job.sh: got SIGTERM, cleaning up scratch" >&2; kill -TERM $PID 2>/dev/null; wait $PID; exit 143' TERM
        echo "job.sh: staging data"; sleep 1
        /usr/bin/python3 -u train.py --fmt logging --sleep 0.3 &
        PID=$!; wait $PID
        """, expect="CANCELLED", action=cancel_after(15))
    sc("cancelled", "step_scancel", HDR + "#SBATCH --job-name=two-phase\n" + C + """
        echo "phase 1: train"
        srun /usr/bin/python3 -u train.py --fmt hf --sleep 0.3
        rc=$?
        echo "srun exited with $rc"
        if [ $rc -ne 0 ]; then echo "training step failed, skipping evaluation" >&2; exit $rc; fi
        echo "phase 2: eval"
        """, expect="FAILED", action=cancel_after(20, step=True),
       notes="only the srun step was cancelled (`scancel JOB.0` by the user); the batch script saw srun fail and exited with its status, so sacct says FAILED for the job; the log's cause is the cancellation")
    sc("cancelled", "two_nodes", HDR + "#SBATCH --job-name=ddp-2n\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n" + C + """
        echo "nodes: $SLURM_JOB_NODELIST"
        srun /usr/bin/python3 -u train.py --fmt megatron --sleep 0.4 --quiet-ranks
        """, expect="CANCELLED", action=cancel_after(20),
       notes="two-node job (one task per node) cancelled by its user")
    sc("cancelled", "tqdm", HDR + "#SBATCH --job-name=tqdm-ft\n" + C + f"""
        {py('--fmt tqdm --sleep 0.2')}
        """, expect="CANCELLED", action=cancel_after(1, pattern=r"\|\s*4\d/"), notes="tqdm bar on stderr")
    sc("cancelled", "by_name_lightning", HDR + "#SBATCH --job-name=lit-sweep-3\n" + C + f"""
        {py('--fmt lightning --sleep 0.2 --on-term save_continue')}
        """, expect="CANCELLED", action=cancel_after(25),
       notes="the trainer catches SIGTERM, saves and keeps going; slurmstepd SIGKILLs it KillWait=5 s later")
    sc("cancelled", "buffered_ds", HDR + "#SBATCH --job-name=ds-run\n" + C + f"""
        echo "starting at $(date)"
        {py('--fmt ds --sleep 0.05', unbuffered=False)}
        """, expect="CANCELLED", action=cancel_after(60), notes="block-buffered stdout: the tail of the progress is lost at the kill")
    sc("cancelled", "operator_signal_full", HDR + "#SBATCH --job-name=eval-loop\n" + C + f"""
        {py('--fmt plain --sleep 0.3 --warn')}
        """, expect="CANCELLED", action=cancel_after(20, by="root", extra_args=("--full",)),
       notes="`scancel --full` by root; a UserWarning on stderr at start")

    # ------------------------------------------------------------ preempted
    P = "#SBATCH --cpus-per-task=8\n#SBATCH --mem=600M\n#SBATCH --time=30\n"
    for i, (part, name, fmt, extra, srun, again) in enumerate([
        ("lowcan", "cancel_plain", "plain", "", False, False),
        ("lowcan", "cancel_hf_srun", "hf", "", True, False),
        ("lowcan", "cancel_keras_trap", "keras", "--on-term save_exit", False, False),
        ("lowgrace", "grace_save_continue", "logging", "--on-term save_continue", False, False),
        # (a first version saved and exited 0 on the grace SIGTERM: srun, the batch script and the job then
        #  ended COMPLETED, so it was not labelled; preempted-real-05 is missing from the corpus until rerun)
        ("lowgrace", "grace_srun_save_continue", "megatron", "--on-term save_continue", True, False),
        ("lowgrace", "grace_plain", "plain2", "", False, False),
        ("lowreq", "requeue_tqdm", "tqdm", "", False, False),
        ("lowreq", "requeue_hf_trap", "hf", "--on-term save_exit --save-every 20 --resume", False, False),
        ("lowreq", "requeue_twice_resume", "plain", "--on-term save_exit --resume", False, True),
        ("lowcan", "cancel_lightning", "lightning", "", True, False),
    ]):
        node = "{N1}" if i % 2 == 0 else "{N2}"
        body = HDR + f"#SBATCH --job-name=low-{fmt}\n#SBATCH --partition={part}\n" + P + \
            'echo "run on $(hostname) restart_count=${SLURM_RESTART_COUNT:-0} $(date +%T)"\n' + \
            py(f"--fmt {fmt} --sleep 0.3 {extra}".strip(), srun=srun) + "\n"
        pn = {"lowcan": "PreemptMode=CANCEL", "lowgrace": "PreemptMode=CANCEL, GraceTime=20",
              "lowreq": "PreemptMode=REQUEUE"}[part]
        note = f"partition {part} ({pn}, PriorityTier=1) on one node, preempted by a PriorityTier=10 job needing the node"
        if part == "lowreq":
            note += ("; the job was requeued: the log is the output file after the preemption"
                     + (", the requeued job ran again (resumed from its checkpoint) and was preempted a second time; Slurm truncated the output file when the requeued job restarted (no --open-mode=append), so the log holds only the second run" if again else "")
                     + "; the pending requeued remainder was then cancelled (the sacct state is that of the preempted run)")
        sc("preempted", name, body, expect="PREEMPTED", sbatch=["-w", node], node=node,
           action=preempt_after(15 if fmt != "tqdm" else 8, N1 if node == "{N1}" else N2, again=again),
           capture_when="requeued" if part == "lowreq" else "end", notes=note)

    # ------------------------------------------------------------ node_fail
    F = "#SBATCH --cpus-per-task=1\n#SBATCH --mem=600M\n#SBATCH --time=30\n"
    down = "`scontrol update nodename=vm2 state=down reason='ECC errors reported by BMC, node taken out'` (operator) while the job ran on it"
    for name, fmt, extra, srun, req in [
        ("down_hf", "hf", "", False, False),
        ("down_keras_srun", "keras", "", True, False),
        ("down_trap_logging", "logging", "--on-term save_exit", False, False),
        ("down_requeue_plain", "plain", "", False, True),
    ]:
        sc("node_fail", name, HDR + f"#SBATCH --job-name=nf-{fmt}\n" + F +
           'echo "host $(hostname) job $SLURM_JOB_ID"\n' + py(f"--fmt {fmt} --sleep 0.3 {extra}".strip(), srun=srun) + "\n",
           expect="NODE_FAIL", sbatch=["-w", "{N2}"] + ([] if req else ["--no-requeue"]), group="down",
           capture_when="requeued" if req else "end",
           notes=down + ("; requeue allowed (JobRequeue=1): the job went back to pending and that remainder was cancelled" if req else " (--no-requeue)"))
    kill = "the node's slurmd was SIGKILLed (SlurmdTimeout=10) so the node went DOWN (not responding)"
    for name, fmt, extra, srun, what, nodes in [
        ("poweroff_plain", "plain", "", False, "power", 1),
        ("poweroff_megatron_srun", "megatron", "", True, "power", 1),
        ("slurmd_crash_hf", "hf", "", False, "slurmd", 1),
        ("two_node_poweroff", "plain", "--quiet-ranks", True, "power", 2),
        ("two_node_trap", "logging", "--quiet-ranks --on-term save_exit", True, "power", 2),
        ("two_node_slurmd_crash", "hf", "--quiet-ranks", True, "slurmd", 2),
    ]:
        if nodes == 2:
            hdr = f"#SBATCH --job-name=ddp-{fmt}\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n" + F
            sb = ["-w", "{N1},{N2}", "--no-requeue"]
        else:
            hdr = f"#SBATCH --job-name=run-{fmt}\n" + F
            sb = ["-w", "{N2}", "--no-requeue"]
        if what == "power":
            n = (f"{kill}, and at the same moment every process of this job on that node (its slurmstepds and the training processes) was SIGKILLed, like a power loss"
                 + ("; the batch script ran on the surviving first node" if nodes == 2 else "; nothing was left to write the end of the log"))
        else:
            n = f"{kill}; the job's own processes on the node kept running until Slurm cleaned them up after the node came back"
        sc("node_fail", name, HDR + hdr + 'echo "nodes $SLURM_JOB_NODELIST, batch host $(hostname)"\n' +
           py(f"--fmt {fmt} --sleep 0.3 {extra}".strip(), srun=srun) + "\n",
           expect="NODE_FAIL", sbatch=sb, group="kill:" + what, notes=n)


# ---------------------------------------------------------------- node failure events
def netns_inode():
    try:
        return os.stat(NETNS).st_ino
    except OSError:
        return None


def procs():
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            out[int(p)] = (ppid, cmd)
        except (OSError, ValueError):
            pass
    return out


def in_vm2_netns(pid, ino):
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino == ino
    except OSError:
        return False


def job_pids_on_vm2(jobids):
    """slurmstepd processes of these jobs inside vm2's network namespace, plus all their descendants."""
    ino = netns_inode()
    ps = procs()
    roots = [p for p, (pp, cmd) in ps.items()
             if cmd.startswith("slurmstepd:") and any(f"[{j}." in cmd for j in jobids) and in_vm2_netns(p, ino)]
    kids = {}
    for p, (pp, _) in ps.items():
        kids.setdefault(pp, []).append(p)
    todo, seen = list(roots), set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo.extend(kids.get(p, []))
    return sorted(seen)


def slurmd_pid(node):
    try:
        return int(open(f"/run/slurmd.{node}.pid").read().strip())
    except (OSError, ValueError):
        return None


def restart_vm2():
    sh(["bash", "-c", f'. "{LIBSH}"; start_slurmd "{N2}"'])


def node_state(node):
    r = sh(["scontrol", "-o", "show", "node", node], check=False)
    m = re.search(r" State=(\S+)", r.stdout)
    return m.group(1) if m else "?"


def wait_node_idle(node, timeout=90):
    end = time.time() + timeout
    while time.time() < end:
        st = node_state(node)
        if st.startswith("IDLE") and "DRAIN" not in st and "DOWN" not in st:
            return
        time.sleep(1)
    raise RuntimeError(f"node {node} not idle: {node_state(node)}")


def start_group(scens, lines=12):
    """Submits every scenario's job, then waits until each runs and has printed LINES lines."""
    jobs = []
    for s in scens:
        j = Job(s)
        j.setup()
        j.submit()
        say(f"  {j.id:22s} submitted job {j.jobid} ({s['name']})")
        jobs.append(j)
    for j in jobs:
        j.wait_running()
        j.wait_lines(lines)
    return jobs


def collect(j, wait, settle=0.5, cancel_after=False):
    """Waits for job J's ending (WAIT), then stores its log; a failure is reported, not raised."""
    try:
        wait()
        time.sleep(settle)
        ok, summ = finish(j)
        if cancel_after:
            sh(["scancel", j.jobid], check=False)
        return j, ok, summ
    except Exception as e:
        sh(["scancel", j.jobid], check=False)
        return j, False, f"error: {e}"


def run_group_down(scens):
    results = []
    # submit all, wait until all are running and printing, then take the node down
    jobs = start_group(scens)
    sh(["scontrol", "update", f"nodename={N2}", "state=down", "reason=ECC errors reported by BMC, node taken out"])
    say(f"  node {N2} set DOWN by scontrol")
    for j in jobs:
        if j.s["capture_when"] == "requeued":
            results.append(collect(j, lambda j=j: wait_requeued(j), settle=1, cancel_after=True))
        else:
            results.append(collect(j, lambda j=j: wait_end(j)))
    sh(["scontrol", "update", f"nodename={N2}", "state=resume"])
    wait_node_idle(N2)
    return results


def run_group_kill(scens):
    """Kill vm2's slurmd (+ the 'power' jobs' processes there) under running jobs."""
    jobs = start_group(scens)
    time.sleep(2)
    power = [j.jobid for j in jobs if j.s["group"] == "kill:power"]
    pids = job_pids_on_vm2(power)
    sp = slurmd_pid(N2)
    if sp is None:
        raise RuntimeError("no slurmd pid for " + N2)
    for p in [sp] + pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.unlink(f"/run/slurmd.{N2}.pid") if os.path.exists(f"/run/slurmd.{N2}.pid") else None
    say(f"  SIGKILLed slurmd {N2} (pid {sp}) and {len(pids)} job processes of jobs {power} on {N2}")
    t0 = time.time()
    # NODE_FAIL arrives after SlurmdTimeout + a ping cycle
    end = time.time() + 180
    while time.time() < end:
        if all(not j.squeue_state() or j.squeue_state() in ("PENDING",) for j in jobs):
            break
        time.sleep(1)
    say(f"  jobs left the queue {time.time() - t0:.0f}s after the kill; node {N2} is {node_state(N2)}")
    # bring the node back; slurmd then reaps the stale steps of the surviving processes
    restart_vm2()
    wait_node_idle(N2, timeout=120)
    survivors = job_pids_on_vm2([j.jobid for j in jobs])
    end = time.time() + 60
    while survivors and time.time() < end:
        time.sleep(1)
        survivors = job_pids_on_vm2([j.jobid for j in jobs])
    if survivors:
        say(f"  WARNING: job processes still on {N2} after the restart, killing them: {survivors}")
        for p in survivors:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return [collect(j, lambda j=j: wait_end(j, timeout=60)) for j in jobs]


# ---------------------------------------------------------------- main
def report(results, show):
    bad = []
    for job, ok, summ in results:
        say(f"{'ok  ' if ok else 'FAIL'} {job.id:22s} {summ}")
        if show or not ok:
            say(textwrap.indent(job.text().decode(errors="replace")[-2500:], "    | "))
        if not ok:
            bad.append(job.id)
        shutil.rmtree(job.dir, ignore_errors=True)
    return bad


def run_parallel(scens):
    out = []
    ths = []
    for s in scens:
        def w(s=s):
            out.append(run_scenario(s))
        t = threading.Thread(target=w)
        t.start()
        ths.append(t)
        time.sleep(0.3)
    for t in ths:
        t.join()
    return out


def run_preempt(scens):
    """Preemption scenarios: one at a time per node, the two nodes in parallel."""
    by = {}
    for s in scens:
        by.setdefault(s["node"], []).append(s)
    out = []

    def lane(lst):
        for s in lst:
            out.append(run_scenario(s))
            time.sleep(2)
    ths = [threading.Thread(target=lane, args=(lst,)) for lst in by.values()]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    return out


def main():
    global N1, N2
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated modes or ids (prefix match)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--keep-cluster", action="store_true", help="leave the cluster up at the end")
    ap.add_argument("--no-up", action="store_true", help="the cluster is already up (slurm_cluster.sh up)")
    a = ap.parse_args()
    N1 = subprocess.run(["hostname", "-s"], capture_output=True, text=True).stdout.strip()
    N2 = N1 + "2"
    register()
    todo = capture.select(SCENARIOS, a.only)
    if a.list:
        for s in todo:
            print(s["id"], s["name"])
        return 0
    if os.geteuid() != 0:
        sys.exit("run as root")
    if not a.no_up:
        subprocess.run([CLUSTER, "up"], check=True)
    bad = []
    try:
        par = [s for s in todo if s["mode"] in ("timeout", "cancelled")]
        if par:
            say(f"== timeout/cancelled: {len(par)} jobs in parallel")
            bad += report(run_parallel(par), a.show)
        pre = [s for s in todo if s["mode"] == "preempted"]
        if pre:
            say(f"== preempted: {len(pre)} jobs")
            bad += report(run_preempt(pre), a.show)
        down = [s for s in todo if s["group"] == "down"]
        if down:
            say(f"== node_fail (scontrol down): {len(down)} jobs")
            bad += report(run_group_down(down), a.show)
        kill = [s for s in todo if (s["group"] or "").startswith("kill:")]
        if kill:
            say(f"== node_fail (slurmd killed): {len(kill)} jobs")
            bad += report(run_group_kill(kill), a.show)
    finally:
        if not a.keep_cluster:
            subprocess.run([CLUSTER, "down"], check=False)
    if bad:
        say("not labelled: " + " ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
