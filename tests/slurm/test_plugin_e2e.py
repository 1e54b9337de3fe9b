"""gpualert.so and gpualert-epilog against a real Slurm cluster on loopback.

Stands the cluster up with cluster_up.sh (plugin in plugstack.conf before
slurmd starts), runs real jobs as the unprivileged user alice with and without
--gpualert, and checks: Slurm records the same state and exit code either way;
alice's own output files are byte-identical; the task log exists in the spool;
exactly one message per job reaches a real SMTP server with the right class.
"""
import email
import email.policy
import glob
import json
import os
import pwd
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SO = os.environ.get("GPUALERT_SPANK_SO", "")
HELPER = os.environ.get("GPUALERT_EPILOG_BIN", "")
SMTP_SERVER = os.environ.get("SMTP_SERVER", "")
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
SPOOL = "/var/spool/gpualert-test"
# The node's GPUs as the driver would list them in /proc (there is no GPU here): a tree
# the plugin is pointed at (plugstack gpus_dir=), with fresh PCI addresses on every run
# so that the Xid records earlier runs left in the ring buffer name none of them.
GPUS_DIR = "/run/gpualert-test-gpus"
USER = "alice"
SLOW = os.environ.get("GPUALERT_SLURM_SLOW", "1") == "1"  # the TIMEOUT and hang cases take ~90 s each

state = {}


def sh(cmd, check=True, timeout=300, env=None):
    p = subprocess.run(cmd, shell=isinstance(cmd, str), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=env)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s %s" % (cmd, p.returncode, p.stdout.decode()[-2000:],
                                                       p.stderr.decode()[-2000:]))
    return p


def as_user(cmd, timeout=300, check=False, user=USER):
    """Runs a shell command as USER (alice) in that user's work directory; returns the CompletedProcess."""
    work = state["work"] if user == USER else os.path.join(state["tmp"], "work-" + user)
    if not os.path.isdir(work):
        os.makedirs(work)
        pw = pwd.getpwnam(user)
        os.chown(work, pw.pw_uid, pw.pw_gid)
    full = ["runuser", "-u", user, "--", "bash", "-lc", "cd %s && %s" % (work, cmd)]
    return sh(full, check=check, timeout=timeout)


def job_script(name, text):
    """An executable batch script in alice's work directory; returns its path."""
    path = os.path.join(state["work"], name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def sacct(job):
    """(State, ExitCode) once the job has a final state."""
    final = None
    for _ in range(240):
        out = sh(["sacct", "-j", str(job), "-X", "-n", "-P", "-o", "State,ExitCode"], check=False).stdout.decode()
        line = out.strip().splitlines()[0] if out.strip() else ""
        st = line.split("|")[0].split(" ")[0] if line else ""
        if st and st not in ("PENDING", "RUNNING", "COMPLETING", "REQUEUED", "CONFIGURING"):
            final = (st, line.split("|")[1])
            break
        time.sleep(0.5)
    return final


def read_messages(job, live=False):
    """The messages whose X-Gpualert-Job header names JOB; live alerts only with LIVE."""
    out = []
    for f in sorted(glob.glob(os.path.join(state["maildir"], "*.eml"))):
        with open(f, "rb") as fh:
            m = email.message_from_bytes(fh.read(), policy=email.policy.default)
        if m["X-Gpualert-Job"] == str(job) and (live or not m["X-Gpualert-Live"]):
            out.append(m)
    return out


def messages_for(job, want=1, wait=90, live=False):
    """Messages for JOB (the live alerts too with LIVE): waits for WANT, then a
    little longer so that a duplicate would be seen too."""
    deadline = time.time() + wait
    while time.time() < deadline and len(read_messages(job, live)) < want:
        time.sleep(0.5)
    time.sleep(2)
    return read_messages(job, live)


def job_id(submit_output):
    for word in submit_output.split():
        if word.isdigit():
            return int(word)
    raise RuntimeError("no job id in %r" % submit_output)


def kernel_named_buses():
    """The PCI buses the ring buffer's records already name (earlier runs' Xids, and test_14's
    0000:3b:00): the fake GPUs must not be any of them, or an old record would be their fault."""
    named = {0x3b}
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return named
    try:
        while True:
            try:
                rec = os.read(fd, 16384).decode("utf-8", "replace")
            except BlockingIOError:
                break
            except OSError:  # EPIPE: records overwritten while reading
                continue
            if not rec:
                break
            for m in re.finditer(r"PCI:0000:([0-9a-fA-F]{2}):00", rec):
                named.add(int(m.group(1), 16))
    finally:
        os.close(fd)
    return named


def setUpModule():
    if os.geteuid() != 0:
        raise unittest.SkipTest("needs root to stand up Slurm")
    for path in (SO, HELPER, SMTP_SERVER):
        if not path or not os.path.exists(path):
            raise unittest.SkipTest("missing %r (build the plugin first)" % path)
    state["tmp"] = tempfile.mkdtemp(prefix="gpualert-slurm-")
    os.chmod(state["tmp"], 0o755)
    state["maildir"] = os.path.join(state["tmp"], "maildir")
    srv = subprocess.Popen([PYTHON, SMTP_SERVER, "--port", "0", "--maildir", state["maildir"], "--lifetime", "3000"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = srv.stdout.readline().decode()
    assert line.startswith("PORT "), line
    state["smtp"] = srv
    conf = os.path.join(state["tmp"], "site.conf")
    with open(conf, "w") as f:
        # kernel_events = yes: the helper reads this node's journal and kernel ring buffer
        # for the job's window (no other test runs beside this suite; test_14 writes an Xid).
        # hang_after = 20: a one-minute time limit can then show a hang (the default 300 s
        # of silence would need a six-minute job).
        f.write("smtp_url = smtp://127.0.0.1:%s\nsend_timeout = 10\nfrom = gpualert@cluster.test\n"
                "kernel_events = yes\nhang_after = 20\n" % line.split()[1])
    shutil.rmtree(SPOOL, ignore_errors=True)
    # srun/sbatch load the plugin as alice: it must sit where she can read it
    # (a build tree under /root is not). The helper needs gpualert-send beside it.
    inst = "/opt/gpualert-test"
    shutil.rmtree(inst, ignore_errors=True)
    os.makedirs(inst + "/lib")
    os.makedirs(inst + "/bin")
    for d in (inst, inst + "/lib", inst + "/bin"):
        os.chmod(d, 0o755)
    shutil.copy2(SO, inst + "/lib/gpualert.so")
    shutil.copy2(HELPER, inst + "/bin/gpualert-epilog")
    shutil.copy2(os.path.join(os.path.dirname(HELPER), "gpualert-send"), inst + "/bin/gpualert-send")
    shutil.rmtree(GPUS_DIR, ignore_errors=True)
    buses = random.sample([b for b in range(0x10, 0xf0) if b not in kernel_named_buses()], 4)
    state["buses"] = ["0000:%02x:00" % b for b in buses]
    for minor, bus in enumerate(state["buses"]):
        os.makedirs(os.path.join(GPUS_DIR, bus + ".0"))
        with open(os.path.join(GPUS_DIR, bus + ".0", "information"), "w") as f:
            f.write("Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-%08x-test\nBus Location: \t %s.0\n"
                    "Device Minor: \t %d\n" % (random.getrandbits(32), bus, minor))
    plug = "optional %s/lib/gpualert.so spool=%s conf=%s helper=%s/bin/gpualert-epilog gpus_dir=%s" % (
        inst, SPOOL, conf, inst, GPUS_DIR)
    state["plug"] = plug
    state["conf"] = conf
    env = dict(os.environ, GPUALERT_PLUGSTACK_LINE=plug, NODES="1")
    t0 = time.time()
    up = sh([os.path.join(HERE, "cluster_up.sh")], env=env, timeout=600, check=False)
    if up.returncode != 0:
        raise RuntimeError("cluster_up.sh failed:\n%s\n%s" % (up.stdout.decode()[-3000:], up.stderr.decode()[-3000:]))
    state["bringup_s"] = time.time() - t0
    time.sleep(6)  # kernel records other tests just left (Xid, OOM) must fall outside the first job's window
    pw = pwd.getpwnam(USER)
    state["work"] = os.path.join(state["tmp"], "work")
    os.makedirs(state["work"])
    os.chown(state["work"], pw.pw_uid, pw.pw_gid)


def wait_running(jid):
    for _ in range(60):
        if sh(["squeue", "-j", str(jid), "-h", "-o", "%T"], check=False).stdout.strip() == b"RUNNING":
            return
        time.sleep(0.5)


def tearDownModule():
    if "smtp" in state:
        state["smtp"].send_signal(signal.SIGTERM)
        state["smtp"].wait(timeout=10)
    if os.environ.get("GPUALERT_KEEP_CLUSTER") != "1":
        sh([os.path.join(HERE, "cluster_down.sh")], check=False)
    shutil.rmtree(state.get("tmp", "/nonexistent"), ignore_errors=True)


class PluginOnRealSlurm(unittest.TestCase):
    maxDiff = None

    def pair(self, args, script, expect_class, files=()):
        """Runs the same job without and with --gpualert; compares Slurm's view and the user's files."""
        results = []
        for flag in ("", "--gpualert=alice@example.org"):
            for f in files:
                p = os.path.join(state["work"], f)
                if os.path.exists(p):
                    os.unlink(p)
            p = as_user("sbatch --parsable %s %s %s" % (flag, args, script), timeout=60, check=True)
            jid = job_id(p.stdout.decode())
            acct = sacct(jid)
            outputs = {}
            for f in files:
                path = os.path.join(state["work"], f.replace("%j", str(jid)))
                with open(path, "rb") as fh:
                    outputs[f] = fh.read()
            results.append((jid, acct, outputs))
        (j0, a0, o0), (j1, a1, o1) = results
        self.assertIsNotNone(a1, "job %d never reached a final state" % j1)
        self.assertEqual(a0, a1, "Slurm's record differs with --gpualert")
        self.assertEqual(o0, o1, "the user's output files differ with --gpualert")
        msgs = messages_for(j1)
        self.assertEqual(len(msgs), 1, "expected exactly one message for job %d, got %d" % (j1, len(msgs)))
        self.assertEqual(messages_for(j0, want=0, wait=1), [], "a job without --gpualert was notified")
        m = msgs[0]
        self.assertEqual(m["X-Gpualert-Class"], expect_class, m.get_body(("plain",)).get_content()[:3000])
        logs = glob.glob(os.path.join(SPOOL, "jobs", str(j1), "*.log"))
        self.assertTrue(logs, "no task log in the spool for job %d" % j1)
        return j1, a1, m

    def test_01_success(self):
        self.pair("-o out.txt -e err.txt",
                  "--wrap 'for i in 1 2 3 4 5 6; do echo step $i loss 0.$((9-i)); echo warn $i >&2; done'",
                  "healthy", files=("out.txt", "err.txt"))

    def test_02_exit_3(self):
        _, acct, _ = self.pair("", "--wrap 'echo working; exit 3'", "unknown")
        self.assertEqual(acct, ("FAILED", "3:0"))

    def test_03_python_traceback(self):
        _, _, m = self.pair("", "--wrap \"%s -c 'd={}; d[\\\"lr\\\"]'\"" % PYTHON, "traceback")
        self.assertIn("KeyError", m.get_body(("plain",)).get_content())

    def test_04_segfault(self):
        self.pair("", "--wrap \"%s -c 'import ctypes; ctypes.string_at(0)'\"" % PYTHON, "segfault")

    def test_05_sigkill(self):
        # SIGKILL alone would be a suspected OOM kill; the node's kernel log was read and
        # holds no OOM record for the job, so the plain signal is the verdict.
        _, _, m = self.pair("", "--wrap 'kill -KILL $$'", "signal_kill")
        self.assertIn("no OOM", m.get_body(("plain",)).get_content().replace("\r\n", "\n"))

    def test_06_memory_hog(self):
        hog = "%s -c 'import time; x = bytearray(700 * 1024 * 1024); time.sleep(30)'" % PYTHON
        self.pair("--mem=100M", "--wrap \"srun %s\"" % hog, "oom_killer")

    def test_07_missing_binary(self):
        j, acct, m = self.pair("", "--wrap 'srun no-such-binary-xyz'", "missing_module")
        logs = "".join(open(f, errors="replace").read() for f in glob.glob(os.path.join(SPOOL, "jobs", str(j), "*.log")))
        self.assertIn("no-such-binary-xyz", logs)

    def test_08_scancel(self):
        jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org --wrap 'echo started; sleep 300'",
                             check=True).stdout.decode())
        time.sleep(4)
        sh(["scancel", str(jid)])
        self.assertEqual(sacct(jid)[0], "CANCELLED")
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1)
        self.assertEqual(msgs[0]["X-Gpualert-Class"], "cancelled")

    @unittest.skipUnless(SLOW, "GPUALERT_SLURM_SLOW=0")
    def test_09_timeout(self):
        jid = job_id(as_user("sbatch --parsable --time=1 --gpualert=alice@example.org "
                             "--wrap 'for i in $(seq 1 300); do echo step $i loss 1.0; sleep 1; done'",
                             check=True).stdout.decode())
        self.assertEqual(sacct(jid)[0], "TIMEOUT")
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1)
        self.assertEqual(msgs[0]["X-Gpualert-Class"], "timeout")

    def test_10_batch_three_steps_second_fails(self):
        script = job_script("three.sh", "#!/bin/bash\n#SBATCH --gpualert=alice@example.org\nsrun echo first\n"
                            "srun %s -c 'import sys; print(\"second\"); sys.exit(5)'\nsrun echo third\n" % PYTHON)
        jid = job_id(as_user("sbatch --parsable %s" % script, check=True).stdout.decode())
        acct = sacct(jid)
        self.assertIsNotNone(acct)
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1, "one message per job, not one per step")
        body = msgs[0].get_body(("plain",)).get_content()
        self.assertIn("step 1 on vm: task 0: exit 5", body)
        self.assertIn("[gpualert] FAILED", msgs[0]["Subject"], "a failed step makes the job's verdict a failure")

    def test_11_bad_option_value_is_refused_before_queueing(self):
        before = sh("squeue -h -t all -u %s | wc -l" % USER).stdout
        for bad in ("../../etc", "evil@example.org$(reboot)"):
            p = as_user("sbatch --parsable '--gpualert=%s' --wrap true" % bad)
            self.assertNotEqual(p.returncode, 0, "sbatch accepted --gpualert=%s" % bad)
            self.assertIn(b"--gpualert", p.stderr)
        self.assertEqual(sh("squeue -h -t all -u %s | wc -l" % USER).stdout, before, "a job was queued")

    def test_12_requeued_job_is_reported_once_by_its_last_run(self):
        # SLURM_RESTART_COUNT is unset on a job's first run and 1 after one requeue.
        # The second run starts its training over (loss back at a fresh model's value, no
        # checkpoint loaded): after a requeue that is work lost, reported as such.
        script = ("echo run ${SLURM_RESTART_COUNT:-0}; if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then sleep 300; fi; "
                  "for i in 1 2 3 4 5 6 7 8; do echo step $i loss $((16 / i)).0; done")
        jid = job_id(as_user("sbatch --parsable --requeue --gpualert=alice@example.org --wrap '%s'" % script,
                             check=True).stdout.decode())
        wait_running(jid)
        time.sleep(2)
        sh(["scontrol", "requeue", str(jid)])
        for _ in range(90):  # a requeued job waits two minutes by default; let it start now
            st = sh(["squeue", "-j", str(jid), "-h", "-o", "%T"], check=False).stdout.strip()
            if st == b"PENDING":
                sh(["scontrol", "update", "jobid=%d" % jid, "starttime=now"], check=False)
            elif st in (b"RUNNING", b"COMPLETED", b""):
                break
            time.sleep(1)
        self.assertEqual(sacct(jid)[0], "COMPLETED")
        msgs = messages_for(jid, wait=150)
        self.assertEqual(len(msgs), 1, "one message for the requeued job, from its last run")
        body = msgs[0].get_body(("plain",)).get_content()
        self.assertIn("restarts: 1", body)
        atts = {p.get_filename(): p.get_payload(decode=True) for p in msgs[0].walk() if p.get_filename()}
        log = atts.get("output.log", b"").decode(errors="replace")
        self.assertIn("run 1", log, "the log is the last run's")
        self.assertNotIn("run 0", log, "the first run's log is not mixed in")
        self.assertEqual(msgs[0]["X-Gpualert-Class"], "resume_from_scratch", body[:2000])
        self.assertIn("requeued the job 1 time", body.replace("\r\n", "\n"))

    @unittest.skipUnless(SLOW, "GPUALERT_SLURM_SLOW=0")
    def test_13_silent_until_time_limit_is_a_hang(self):
        # Progress with step times in the first second, then silence until Slurm kills the
        # job at its limit: a hang, with the timeout only as a secondary finding. The site
        # sets hang_after = 20 s; the printed step times (20 x 0.05 s) do not raise it.
        # The shell outlives the SIGTERM that ends its child at the limit (trap), so it
        # prints "... Terminated" last, as a shell often does: that notice is not output.
        script = ('trap : TERM; for i in 1 2 3 4 5; do echo "step $i/100 loss 2.$((9-i)) (0.05 s/step)"; sleep 0.05; done; '
                  'sleep 900')
        jid = job_id(as_user("sbatch --parsable --time=1 --gpualert=alice@example.org --wrap '%s'" % script,
                             check=True).stdout.decode())
        self.assertEqual(sacct(jid)[0], "TIMEOUT")
        msgs = messages_for(jid, wait=150)
        self.assertEqual(len(msgs), 1)
        body = msgs[0].get_body(("plain",)).get_content().replace("\r\n", "\n")  # the body keeps its CRLFs
        self.assertEqual(msgs[0]["X-Gpualert-Class"], "hang", body[:3000])
        silent = re.search(r"no output for the last ([\d.]+) s of the run", body)
        self.assertIsNotNone(silent, body[:3000])
        self.assertGreaterEqual(float(silent.group(1)), 20.0, body[:3000])
        also = body.split("\nAlso noticed\n", 1)
        self.assertEqual(len(also), 2, "no secondary findings in:\n" + body[:3000])
        self.assertRegex(also[1].split("\n\n", 1)[0], r"(?m)^  - timeout: .*how the hung job ended", body[:3000])
        print("\n  job %d: class hang, silent %s s before the end" % (jid, silent.group(1)), flush=True)

    def test_14_xid_during_the_job_is_the_cluster(self):
        # The GPU driver's record, written into this node's kernel ring buffer while the job
        # runs (as the driver would), is read by the helper: the verdict blames the node.
        jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org --wrap "
                             "'echo step 1 loss 2.31; sleep 6; echo RuntimeError: CUDA error: unspecified launch failure >&2; exit 1'",
                             check=True).stdout.decode())
        wait_running(jid)
        # jobstats' record, there before the helper writes (jobstats itself writes after the end),
        # and another writer's note in SystemComment, the field the helper adds to.
        sh(["scontrol", "update", "jobid=%d" % jid, "AdminComment=JS1:H4sIAAAAAAAAA6tWSs7PS8tM"])
        sh(["sacctmgr", "-i", "modify", "job", "where", "jobid=%d" % jid, "set", "SystemComment=bb:staged-3-files"])
        time.sleep(1)
        with open("/dev/kmsg", "w") as k:
            k.write("NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n")
        self.assertEqual(sacct(jid), ("FAILED", "1:0"))
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1)
        body = msgs[0].get_body(("plain",)).get_content().replace("\r\n", "\n")
        self.assertEqual(msgs[0]["X-Gpualert-Class"], "gpu_hardware", body[:3000])
        self.assertEqual(msgs[0]["X-Gpualert-Attribution"], "infra")
        self.assertIn("Xid 79", body)
        self.assertIn("GPU has fallen off the bus", body)
        # The verdict in Slurm's accounting, beside jobstats' record, which also survives a
        # later write of its own (as jobstats' slurmctld epilog would make it).
        comments = lambda: sh(["sacct", "-j", str(jid), "-X", "-n", "-P", "-o", "AdminComment,SystemComment"]
                              ).stdout.decode().strip().splitlines()[-1]
        deadline = time.time() + 30
        while "gpualert1:" not in comments() and time.time() < deadline:
            time.sleep(0.5)
        admin, system = comments().split("|", 1)
        print("\n  sacct -o AdminComment,SystemComment: %s | %s" % (admin, system), flush=True)
        self.assertEqual(admin, "JS1:H4sIAAAAAAAAA6tWSs7PS8tM")
        self.assertRegex(system,
                         r"^bb:staged-3-files gpualert1:class=gpu_hardware;attr=infra;conf=0\.\d\d;node=\S+;bad=0000:3b:00;v=")
        # (sacctmgr of Slurm 22.05 lower-cases what it writes, whoever asks.)
        sh(["sacctmgr", "-i", "modify", "job", "where", "jobid=%d" % jid, "set", "AdminComment=JS1:later"])
        self.assertEqual(comments(), "js1:later|" + system)
        # `gpualert show`: the owner sees the verdict and where the log is; another user does not.
        gpualert = os.path.join(os.path.dirname(HELPER), "gpualert")
        shown = as_user("%s show --spool %s %d" % (gpualert, SPOOL, jid))
        out = shown.stdout.decode()
        self.assertEqual(shown.returncode, 0, shown.stderr.decode() + out)
        self.assertIn("verdict: gpu_hardware (whose move: infra", out)
        self.assertIn("faulted GPU 0000:3b:00", out)
        self.assertIn("/jobs/%d/combined.log" % jid, out)
        self.assertIn("GPU has fallen off the bus", out)
        # `gpualert report` over the last hour, from the real sacct: this job's GPU fault on its GPU.
        rep = sh([gpualert, "report", "--since", "now-1hours", "--json"], check=False)
        self.assertEqual(rep.returncode, 0, rep.stderr.decode())
        r = json.loads(rep.stdout)
        self.assertGreaterEqual(r["with_verdict"], 1, r)
        faults = [f for f in r["faults"] if f["gpu"] == "0000:3b:00" and jid in f["job_ids"]]
        self.assertTrue(faults, r["faults"])
        refused = as_user("%s show --spool %s %d" % (gpualert, SPOOL, jid), user="nobody")
        self.assertEqual(refused.returncode, 1, refused.stdout.decode())
        # Refused by gpualert, or not even shown by Slurm (PrivateData): never the verdict.
        self.assertRegex(refused.stderr, rb"is not yours|has no job")
        self.assertNotIn(b"gpu_hardware", refused.stdout)
        time.sleep(6)  # the record stays in the ring buffer: keep it out of the next job's window

    def test_15_timeout_and_cancel_when_the_relay_fails(self):
        # Slurm's own endings (timeout, cancel) crossed with relay faults: the site's relay
        # is down, then answers 451, 550 or never answers RCPT (one scripted server, a fault per
        # recipient, so that jobs running together each meet their own). Slurm's record is
        # untouched, nothing arrives while the fault lasts, and once it clears one sender
        # pass delivers every message once; the 550s are in failed/ with the reply and the
        # admins were told once each.
        with open(state["conf"]) as f:
            good_conf = f.read()
        outbox = os.path.join(SPOOL, "outbox")
        faulty_dir = os.path.join(state["tmp"], "faulty-maildir")
        faulty = subprocess.Popen([PYTHON, SMTP_SERVER, "--port", "0", "--maildir", faulty_dir, "--lifetime", "900",
                                   "--tempfail-rcpt-prefix", "temp-", "--reject-rcpt-prefix", "perm-",
                                   "--hang-rcpt-prefix", "hang-"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        line = faulty.stdout.readline().decode()
        assert line.startswith("PORT "), line
        sock = __import__("socket").socket()
        sock.bind(("127.0.0.1", 0))
        down_port = sock.getsockname()[1]
        sock.close()

        def use_relay(url):
            with open(state["conf"], "w") as f:
                f.write(re.sub(r"(?m)^smtp_url = .*$", "smtp_url = " + url, good_conf) +
                           "retry_base = 1\nadmin_to = admin@cluster.test\n")

        def submit(rcpt, ending):
            if ending == "timeout":  # progress to the end: a timeout, not a hang
                cmd = ("sbatch --parsable --time=1 --gpualert=%s "
                       "--wrap 'for i in $(seq 1 300); do echo step $i loss 1.0; sleep 1; done'" % rcpt)
            else:
                cmd = "sbatch --parsable --gpualert=%s --wrap 'echo step 1 loss 2.0; sleep 300'" % rcpt
            return job_id(as_user(cmd, check=True).stdout.decode())

        def cancel(jid):
            wait_running(jid)
            time.sleep(2)
            sh(["scancel", str(jid)])

        def records():
            out = {}
            for sub in ("pending", "failed"):
                for f in glob.glob(os.path.join(outbox, sub, "*.json")):
                    try:
                        with open(f) as fh:
                            rec = json.load(fh)
                    except (OSError, ValueError):  # moved by the sender meanwhile
                        continue
                    out[str(rec.get("job", ""))] = (sub, rec)
            return out

        def wait_stored(jobs):
            # The helper has made its one attempt: the record is in failed/, or pending with an attempt.
            for _ in range(120):
                r = records()
                if all(str(j) in r and (r[str(j)][0] == "failed" or r[str(j)][1].get("attempts", 0) >= 1)
                       for j in jobs):
                    return r
                time.sleep(0.5)
            self.fail("no attempt recorded for some of %s: %s" % (jobs, sorted(records())))

        cells = {}  # job id -> (ending, fault)
        try:
            use_relay("smtp://127.0.0.1:%d" % down_port)
            phase = []
            if SLOW:
                phase.append((submit("down-t@example.org", "timeout"), "timeout", "down"))
            j = submit("down-c@example.org", "cancel")
            cancel(j)
            phase.append((j, "cancel", "down"))
            for j, e, f in phase:
                self.assertEqual(sacct(j)[0], "TIMEOUT" if e == "timeout" else "CANCELLED")
            wait_stored([j for j, _, _ in phase])
            cells.update({j: (e, f) for j, e, f in phase})

            use_relay("smtp://127.0.0.1:%s" % line.split()[1])
            phase = []
            if SLOW:
                phase += [(submit("temp-t@example.org", "timeout"), "timeout", "451"),
                          (submit("perm-t@example.org", "timeout"), "timeout", "550"),
                          (submit("hang-t@example.org", "timeout"), "timeout", "hang")]
                for j, e, f in phase:
                    self.assertEqual(sacct(j)[0], "TIMEOUT")
            for rcpt, fault in (("temp-c@example.org", "451"), ("perm-c@example.org", "550"),
                                ("hang-c@example.org", "hang")):
                j = submit(rcpt, "cancel")
                cancel(j)
                self.assertEqual(sacct(j)[0], "CANCELLED")
                phase.append((j, "cancel", fault))
            stored = wait_stored([j for j, _, _ in phase])
            cells.update({j: (e, f) for j, e, f in phase})
            for j in cells:
                self.assertEqual(read_messages(j), [], "job %d was delivered while its relay failed" % j)
        finally:
            with open(state["conf"], "w") as f:
                f.write(good_conf)
            faulty.send_signal(signal.SIGTERM)
            faulty.wait(timeout=10)
            faulty.stdout.close()

        time.sleep(2.5)  # every deferred message is due again (retry_base 1 s, doubled once, +-20 %)
        send = os.path.join(os.path.dirname(HELPER), "gpualert-send")
        url = re.search(r"(?m)^smtp_url = (.*)$", good_conf).group(1)
        for _ in range(2):  # the second pass must add nothing
            sh([send, "--once", "--outbox", outbox, "--smtp", url, "--admin", "admin@cluster.test"], check=False)
        os.unlink(os.path.join(outbox, "sender.pass"))  # the later tests run as if no sender served this spool
        stored = records()
        notices = []
        for f in sorted(glob.glob(os.path.join(faulty_dir, "*.eml"))):
            with open(f, "rb") as fh:
                m = email.message_from_bytes(fh.read(), policy=email.policy.default)
            if m["To"] == "admin@cluster.test":
                notices.append(m["X-Gpualert-Job"])
        table = []
        for j, (ending, fault) in sorted(cells.items()):
            got = messages_for(j, want=0 if fault == "550" else 1, wait=20)
            if fault == "550":
                where, rec = stored.get(str(j), ("missing", {}))
                self.assertEqual(got, [], "job %d: refused for good, yet delivered" % j)
                self.assertEqual(where, "failed", "job %d" % j)
                self.assertIn("550", rec.get("reason", ""), rec)
                self.assertEqual(notices.count(str(j)), 1, "job %d: notices for jobs %r" % (j, notices))
                outcome = "failed/ + 1 notice"
            else:
                self.assertEqual(len(got), 1, "job %d (%s, relay %s): %d messages" % (j, ending, fault, len(got)))
                self.assertEqual(got[0]["X-Gpualert-Class"], "timeout" if ending == "timeout" else "cancelled")
                outcome = "delivered once"
            table.append("  %-8s %-7s relay %-5s %s" % (j, ending, fault, outcome))
        print("\n" + "\n".join(table), flush=True)

    def job_start(self, jid):
        """The job-start record the plugin's job_prolog left for JID (waits for it)."""
        deadline = time.time() + 30
        while time.time() < deadline:
            found = glob.glob(os.path.join(SPOOL, "jobs", str(jid), "job-start.*.json"))
            if found:
                with open(found[0]) as f:
                    return json.load(f)
            time.sleep(0.3)
        self.fail("no job-start record for job %d" % jid)

    def test_16_a_neighbours_gpu_fault_is_not_your_verdict(self):
        # Two jobs side by side on the node's gres GPUs; the driver's record names the
        # first job's GPU. Only that job is blamed on the cluster; the other's verdict stands
        # and names the neighbour's fault as secondary.
        script = "'echo step 1 loss 2.31; sleep 8; echo stopping; exit 1'"
        a, b = (job_id(as_user("sbatch --parsable -c1 --gres=gpu:1 --gpualert=alice@example.org --wrap " + script,
                               check=True).stdout.decode()) for _ in range(2))
        wait_running(a)
        wait_running(b)
        ra, rb = self.job_start(a), self.job_start(b)
        for r in (ra, rb):
            self.assertTrue(r["gpus_known"], r)
            self.assertEqual(r["gpu_list_from"], "SLURM_JOB_GPUS", r)
            self.assertEqual(len(r["gpus"]), 1, r)
            self.assertIn(r["gpus"][0]["bus_id"], state["buses"], r)
            self.assertIn("kmsg_seq", r)
        bus_a, bus_b = ra["gpus"][0]["bus_id"], rb["gpus"][0]["bus_id"]
        state["bus_16"] = bus_a
        self.assertNotEqual(bus_a, bus_b)
        print("\n  job-start records: job %d %s (/dev/nvidia%d), job %d %s (/dev/nvidia%d); taken in %.1f and %.1f ms"
              % (a, bus_a, ra["gpus"][0]["minor"], b, bus_b, rb["gpus"][0]["minor"], ra["took_ms"], rb["took_ms"]),
              flush=True)
        time.sleep(1)
        # A user's syslog line dressed as the driver's, naming the other job's GPU: not the
        # kernel's word (the helper reads only the journal's kernel transport and /dev/kmsg,
        # which users cannot write), so it changes nothing.
        as_user("logger -p kern.err 'kernel: NVRM: Xid (PCI:%s): 79, pid=1, GPU has fallen off the bus.'" % bus_b)
        self.assertNotEqual(as_user("echo 'NVRM: Xid (PCI:%s): 79, pid=1, x' > /dev/kmsg" % bus_b).returncode, 0)
        with open("/dev/kmsg", "w") as k:
            k.write("NVRM: Xid (PCI:%s): 79, pid=4242, name=python, GPU has fallen off the bus.\n" % bus_a)
        self.assertEqual(sacct(a), ("FAILED", "1:0"))
        self.assertEqual(sacct(b), ("FAILED", "1:0"))
        ma, mb = messages_for(a), messages_for(b)
        self.assertEqual((len(ma), len(mb)), (1, 1))
        text = lambda m: m.get_body(("plain",)).get_content().replace("\r\n", "\n")
        self.assertEqual(ma[0]["X-Gpualert-Class"], "gpu_hardware", text(ma[0])[:3000])
        self.assertEqual(ma[0]["X-Gpualert-Attribution"], "infra")
        self.assertIn(bus_a, text(ma[0]))
        self.assertNotEqual(mb[0]["X-Gpualert-Class"], "gpu_hardware", text(mb[0])[:3000])
        self.assertNotEqual(mb[0]["X-Gpualert-Attribution"], "infra", text(mb[0])[:3000])
        self.assertIn("not this job's: GPU " + bus_a, text(mb[0]))
        # The fleet store names the faulted GPU for job A only.
        system = lambda j: sh(["sacct", "-j", str(j), "-X", "-n", "-P", "-o", "SystemComment"]).stdout.decode().strip()
        deadline = time.time() + 30
        while not ("gpualert1:" in system(a) and "gpualert1:" in system(b)) and time.time() < deadline:
            time.sleep(0.5)
        self.assertIn("bad=%s;gpus=%s;" % (bus_a, bus_a), system(a))
        self.assertNotIn("bad=", system(b))
        self.assertIn("gpus=%s;" % bus_b, system(b))
        print("  sacct SystemComment: job %d %s; job %d %s" % (a, system(a), b, system(b)), flush=True)
        print("  side by side: job %d on %s -> %s/%s; job %d on %s -> %s/%s (neighbour's fault secondary)"
              % (a, bus_a, ma[0]["X-Gpualert-Class"], ma[0]["X-Gpualert-Attribution"], b, bus_b,
                 mb[0]["X-Gpualert-Class"], mb[0]["X-Gpualert-Attribution"]), flush=True)

    def test_17_a_gpu_sick_before_eight_jobs_is_one_admin_message(self):
        # The fault is in the ring buffer before the jobs start: each job that holds the GPU
        # and fails is told the node was already sick, and the admins get one message for
        # the eight jobs (one gathering window), with the drain line to copy.
        with open(state["conf"]) as f:
            good_conf = f.read()
        bus = state.get("bus_16", state["buses"][2])  # the GPU test_16 faulted, if it ran: one GPU, one key
        try:
            with open(state["conf"], "a") as f:
                f.write("infra_to = hpc-admins@cluster.test\ninfra_gather = 60\n")
            with open("/dev/kmsg", "w") as k:
                k.write("NVRM: Xid (PCI:%s): 48, pid=4243, name=python, An uncorrectable double bit error (DBE) "
                        "has been detected on GPU in the framebuffer.\n" % bus)
            time.sleep(1)
            jobs = [job_id(as_user("sbatch --parsable -c1 --gres=gpu:4 --gpualert=alice@example.org --wrap "
                                   "'echo step 1 loss 2.31; sleep 1; exit 1'", check=True).stdout.decode())
                    for _ in range(8)]
            for j in jobs:
                self.assertEqual(sacct(j), ("FAILED", "1:0"))
            for j in jobs:
                m = messages_for(j)
                self.assertEqual(len(m), 1, j)
                body = m[0].get_body(("plain",)).get_content().replace("\r\n", "\n")
                self.assertEqual(m[0]["X-Gpualert-Class"], "gpu_hardware", body[:3000])
                self.assertIn("already sick", body)
            deadline = time.time() + 150

            def admin_messages():
                out = []
                for f in sorted(glob.glob(os.path.join(state["maildir"], "*.eml"))):
                    with open(f, "rb") as fh:
                        m = email.message_from_bytes(fh.read(), policy=email.policy.default)
                    if m["To"] == "hpc-admins@cluster.test":
                        out.append(m)
                return out
            while not admin_messages() and time.time() < deadline:
                time.sleep(1)
            time.sleep(5)  # a second message would show up now
            got = admin_messages()
            self.assertEqual(len(got), 1, [m["Subject"] for m in got])
            body = got[0].get_body(("plain",)).get_content().replace("\r\n", "\n")
            self.assertTrue(got[0]["X-Gpualert-Infra"].endswith(":" + bus), got[0]["X-Gpualert-Infra"])
            self.assertIn("ended 8 jobs of 1 user", body)
            for j in jobs:
                self.assertIn(str(j), body)
            self.assertIn("Xid (PCI:%s): 48" % bus, body)
            self.assertRegex(body, r"scontrol update nodename=\S+ state=drain reason=")
            print("\n  admins' message: %s\n%s" % (got[0]["Subject"], "\n".join("    " + l for l in body.splitlines()[:14])),
                  flush=True)
        finally:
            with open(state["conf"], "w") as f:
                f.write(good_conf)

    def test_18_a_job_names_a_mail_address_and_a_chat_channel(self):
        # The site defines the channel in a file only root reads; the job names it, never its URL.
        posts_dir = os.path.join(state["tmp"], "posts")
        hooks = subprocess.Popen([PYTHON, os.path.join(os.path.dirname(SMTP_SERVER), "webhook_server.py"),
                                  "--dir", posts_dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = hooks.stdout.readline().decode()
        self.assertTrue(line.startswith("PORT "), line)
        secret = "/services/T0/B0/job-secret"
        channels = os.path.join(state["tmp"], "channels.conf")
        with open(channels, "w") as f:
            f.write("slack:team-ml http://127.0.0.1:%s%s\n" % (line.split()[1], secret))
        os.chmod(channels, 0o600)
        with open(state["conf"]) as f:
            good_conf = f.read()
        try:
            with open(state["conf"], "a") as f:
                f.write("channels_file = %s\n" % channels)
            p = as_user("sbatch --parsable --gpualert=mailto:alice@example.org,slack:team-ml "
                        "--wrap 'echo step 1 loss 2.0; echo step 2 loss nan; exit 3'", check=True)
            jid = job_id(p.stdout.decode())
            msgs = messages_for(jid)
            deadline = time.time() + 60
            while time.time() < deadline and not glob.glob(os.path.join(posts_dir, "*.json")):
                time.sleep(0.5)
            time.sleep(2)
        finally:
            with open(state["conf"], "w") as f:
                f.write(good_conf)
            hooks.send_signal(signal.SIGTERM)
            hooks.wait(timeout=10)
            hooks.stdout.close()
            hooks.stderr.close()
        self.assertEqual(len(msgs), 1)
        self.assertEqual(msgs[0]["To"], "alice@example.org")
        posts = sorted(glob.glob(os.path.join(posts_dir, "*.json")))
        self.assertEqual(len(posts), 1, "one post for the job")
        with open(posts[0]) as f:
            post = json.load(f)
        self.assertEqual(post["path"], secret)
        slack = json.loads(post["body"])
        att = slack["attachments"][0]
        self.assertEqual(att["title"], msgs[0]["X-Gpualert-Class"], "the same verdict in the mail and the post")
        self.assertIn({"title": "Slurm job", "value": str(jid), "short": True}, att["fields"])
        # The URL is nowhere but in the channels file: not in the spool, the job's files or the helper's log.
        for root in (SPOOL, state["work"]):
            for dirpath, _, names in os.walk(root):
                for n in names:
                    path = os.path.join(dirpath, n)
                    if os.path.isfile(path) and not os.path.islink(path):
                        with open(path, "rb") as fh:
                            self.assertNotIn(secret.encode(), fh.read(), path)

    def test_19_live_alerts_while_jobs_run(self):
        # Five real jobs under sbatch --gpualert at once, with short windows: a job that goes
        # silent, one whose loss turns NaN and goes on, one whose loss climbs from its low,
        # one whose pace cannot reach its total within its one-minute limit, and a steady one.
        # The tee's live samples in the spool feed the job's watcher (started by job_prolog);
        # each alert arrives while the job still runs, exactly once; the steady job gets none.
        train = (
            "import sys, time\n"
            "kind = sys.argv[1]\n"
            "if kind == 'stall':\n"
            "    print('step 3/100 | loss 1.0000', flush=True); time.sleep(16)\n"
            "for s in range(1, 61):\n"
            "    if kind == 'nan': loss = 'nan' if s > 12 else '%.4f' % (3.0 / s)\n"
            "    elif kind == 'diverge': loss = '%.4f' % (3.0 / s if s <= 10 else 0.3 * 1.15 ** (s - 10))\n"
            "    else: loss = '%.4f' % (3.0 / s)\n"
            "    total = 3000 if kind == 'slow' else 60\n"
            "    print('step %d/%d | loss %s' % (s, total, loss), flush=True)\n"
            "    time.sleep(0.25)\n")
        script = job_script("live_train.py", train)
        with open(state["conf"]) as f:
            good_conf = f.read()
        kinds = ("stall", "nan", "diverge", "slow", "steady")
        jobs = {}
        try:
            with open(state["conf"], "a") as f:
                f.write("stall_after = 5s\nlive_interval = 1s\n")
            for kind in kinds:
                limit = "--time=1 " if kind == "slow" else ""
                p = as_user("sbatch --parsable --gpualert=alice@example.org %s-o /dev/null --wrap '%s %s %s'"
                            % (limit, PYTHON, script, kind), check=True)
                jobs[kind] = job_id(p.stdout.decode())
            for kind in kinds:
                self.assertEqual(sacct(jobs[kind]), ("COMPLETED", "0:0"), kind)
            got = {kind: messages_for(jobs[kind], want=1 if kind == "steady" else 2, live=True) for kind in kinds}
        finally:
            with open(state["conf"], "w") as f:
                f.write(good_conf)
        expect = {"stall": "stall", "nan": "nan", "diverge": "divergence", "slow": "wont_finish"}
        for kind in kinds:
            jid = jobs[kind]
            live = [m for m in got[kind] if m["X-Gpualert-Live"]]
            final = [m for m in got[kind] if not m["X-Gpualert-Live"]]
            self.assertEqual(len(final), 1, "%s: one final message" % kind)
            want = [expect[kind]] if kind in expect else []
            self.assertEqual([m["X-Gpualert-Live"] for m in live], want, kind)
            if not want:
                continue
            m = live[0]
            self.assertIn("[gpualert] LIVE %s: job %d" % (want[0], jid), m["Subject"])
            body = m.get_body(("plain",)).get_content()
            self.assertIn("scancel %d" % jid, body)
            self.assertIn("live alert:", final[0].get_body(("plain",)).get_content(), kind)
            with open(os.path.join(SPOOL, "jobs", str(jid), "alerts.json")) as f:
                alert = json.load(f)[0]
            true_since = time.mktime(time.strptime(alert["true_since"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
            sent_at = time.mktime(time.strptime(alert["sent_at"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
            end = sh(["sacct", "-j", str(jid), "-X", "-n", "-P", "-o", "End"]).stdout.decode().strip()
            ended = time.mktime(time.strptime(end, "%Y-%m-%dT%H:%M:%S"))
            self.assertLess(sent_at, ended, "%s: the alert went out while the job still ran" % kind)
            print("\n  job %d (%s): live alert latency (condition true -> accepted by the relay, to the second) %.0f s"
                  % (jid, kind, sent_at - true_since), flush=True)
            if kind == "stall":
                self.assertIn("no output for", body)
                self.assertIn("'step 3/100 | loss 1.0000'", body)
                self.assertIn("idle", body)
            if kind == "slow":
                self.assertIn("will not finish within its time limit", body)
                self.assertIn("the limit is 60 s", body)
        # The live picture is the user's to read: the last steps the watcher saw.
        picture = os.path.join(SPOOL, "jobs", str(jobs["slow"]), "progress.json")
        self.assertEqual(os.stat(picture).st_uid, pwd.getpwnam(USER).pw_uid)
        p = as_user("cat %s" % picture)
        self.assertEqual(p.returncode, 0, "alice cannot read her job's progress.json")
        seen = json.loads(p.stdout.decode())
        self.assertEqual(seen["total_steps"], 3000)
        self.assertGreater(seen["step"], 30)
        self.assertIn("wont_finish", seen["alerts"])

    def test_20_a_tee_killed_while_its_job_runs_is_said(self):
        # The tee is the user's own process: killing it loses the job's output from there.
        # The watcher sees its lock on the live sample go free while the step runs.
        with open(state["conf"]) as f:
            good_conf = f.read()
        try:
            with open(state["conf"], "a") as f:
                f.write("live_interval = 1s\n")
            p = as_user("sbatch --parsable --gpualert=alice@example.org -o /dev/null --wrap '%s -c \"import time; "
                        "print(1, flush=True); time.sleep(12)\"'" % PYTHON, check=True)
            jid = job_id(p.stdout.decode())
            wait_running(jid)
            tees = []
            for _ in range(40):
                tees = sh("pgrep -u %s -x gpualert-tee" % USER, check=False).stdout.decode().split()
                if tees:
                    break
                time.sleep(0.25)
            self.assertEqual(len(tees), 1, "the job's one tee")
            time.sleep(3)  # the watcher has seen the tee hold its lock
            sh(["kill", "-9", tees[0]])
            sacct(jid)
            msgs = messages_for(jid, want=2, live=True)
        finally:
            with open(state["conf"], "w") as f:
                f.write(good_conf)
        live = [m for m in msgs if m["X-Gpualert-Live"]]
        self.assertEqual([m["X-Gpualert-Live"] for m in live], ["capture_lost"])
        self.assertIn("gpualert's capture of batch.task0 stopped while its step runs",
                      live[0].get_body(("plain",)).get_content())
        self.assertEqual(len(msgs) - len(live), 1, "and the final message")

    def test_21_a_stalled_job_is_ended_only_where_the_site_allows_and_the_user_asked(self):
        # alice asks in her own file; the site allows it (allow_cancel): her stalled job is
        # cancelled, as her, one grace after its stall alert. Without the site's word it runs on.
        home = pwd.getpwnam(USER).pw_dir
        conf_dir = os.path.join(home, ".config", "gpualert")
        with open(state["conf"]) as f:
            good_conf = f.read()
        wrap = "--wrap '%s -c \"import time; print(1, flush=True); time.sleep(25)\"'" % PYTHON
        try:
            self.assertEqual(as_user("mkdir -p %s && printf 'cancel_after_stall = 2s\\n' > %s/gpualert.conf"
                                     % (conf_dir, conf_dir)).returncode, 0)
            with open(state["conf"], "a") as f:
                f.write("live_interval = 1s\nstall_after = 3s\n")
            kept = job_id(as_user("sbatch --parsable --gpualert=alice@example.org -o /dev/null " + wrap,
                                  check=True).stdout.decode())
            self.assertEqual(sacct(kept), ("COMPLETED", "0:0"), "the site did not allow it: it ran on")
            kept_msgs = messages_for(kept, want=2, live=True)
            with open(state["conf"], "a") as f:
                f.write("allow_cancel = yes\n")
            t0 = time.time()
            jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org -o /dev/null " + wrap,
                                 check=True).stdout.decode())
            acct = sacct(jid)
            took = time.time() - t0
            msgs = messages_for(jid, want=3, live=True)
        finally:
            with open(state["conf"], "w") as f:
                f.write(good_conf)
            shutil.rmtree(os.path.join(home, ".config"), ignore_errors=True)
        self.assertEqual([m["X-Gpualert-Live"] for m in kept_msgs if m["X-Gpualert-Live"]], ["stall"])
        with open(os.path.join(SPOOL, "jobs", str(kept), "live-%s.log" % self.node())) as f:
            self.assertIn("cancel_after_stall not used: the site does not allow it", f.read())
        self.assertEqual(acct[0], "CANCELLED", acct)
        self.assertLess(took, 22, "ended before its sleep was over")
        by = sh(["sacct", "-j", str(jid), "-X", "-n", "-P", "-o", "State"]).stdout.decode()
        self.assertIn("by %d" % pwd.getpwnam(USER).pw_uid, by, "cancelled as alice, not as root")
        self.assertEqual([m["X-Gpualert-Live"] for m in msgs if m["X-Gpualert-Live"]], ["stall", "stall_cancel"])
        final = [m for m in msgs if not m["X-Gpualert-Live"]]
        self.assertEqual(len(final), 1)
        self.assertIn("stall_cancel", final[0].get_body(("plain",)).get_content(), "the verdict says why it ended")

    def node(self):
        return sh(["scontrol", "show", "hostnames", sh(["sinfo", "-h", "-o", "%N"]).stdout.decode().strip()]) \
            .stdout.decode().split()[0]

    def test_98_a_plugin_built_for_another_release_stays_off(self):
        # The same plugin, built as if for Slurm 23.02, under this 22.05: jobs run as
        # without it (the option is still accepted), no message, one clear line each
        # for the user on srun and for the admin in admin.log.
        other = os.environ.get("GPUALERT_SPANK_OTHER_SO", "")
        if not os.path.exists(other):
            self.skipTest("no other-release build of the plugin")
        so = "/opt/gpualert-test/lib/gpualert-other-release.so"
        shutil.copy2(other, so)
        restart = os.path.join(HERE, "restart_slurmd.sh")
        line = re.sub(r"\S+/gpualert\.so", so, state["plug"])
        sh([restart], env=dict(os.environ, GPUALERT_PLUGSTACK_LINE=line, PROBE="0"))
        try:
            p = as_user("srun --gpualert=alice@example.org sh -c 'echo hi; exit 3'", timeout=120)
            self.assertEqual(p.returncode, 3, p.stderr.decode())
            self.assertIn(b"hi", p.stdout)
            self.assertIn(b"built for Slurm 23.02, running under Slurm 22.05", p.stderr)
            jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org --wrap 'exit 3'",
                                 check=True).stdout.decode())
            self.assertEqual(sacct(jid), ("FAILED", "3:0"))
            self.assertEqual(messages_for(jid, want=0, wait=8), [], "a plugin for another release sent mail")
            with open(os.path.join(SPOOL, "admin.log"), errors="replace") as f:
                self.assertIn("built for Slurm 23.02, running under Slurm 22.05", f.read())
        finally:
            sh([restart], env=dict(os.environ, GPUALERT_PLUGSTACK_LINE=state["plug"], PROBE="0"))

    def test_99_two_nodes_one_verdict(self):
        # A second slurmd in its own network namespace; both nodes write to this
        # machine's spool, which is then what a shared spool looks like.
        env = dict(os.environ, GPUALERT_PLUGSTACK_LINE=state["plug"], NODES="2")
        up = sh([os.path.join(HERE, "cluster_up.sh")], env=env, timeout=600, check=False)
        if up.returncode != 0:
            self.fail("two-node bring-up failed: %s" % up.stderr.decode()[-2000:])
        script = job_script("two.sh", "#!/bin/bash\nsrun -N2 -n2 bash -c 'echo rank $SLURM_PROCID on $(hostname); "
                            "[ $SLURM_PROCID = 1 ] && exit 7; exit 0'\n")
        jid = job_id(as_user("sbatch --parsable -N2 --gpualert=alice@example.org %s" % script,
                             check=True).stdout.decode())
        acct = sacct(jid)
        self.assertEqual(acct[0], "FAILED")
        msgs = messages_for(jid, wait=120)
        self.assertEqual(len(msgs), 1, "one message per job, from the first node only")
        body = msgs[0].get_body(("plain",)).get_content()
        self.assertIn("step 0 on vm:", body)
        self.assertIn("step 0 on vm2:", body)
        self.assertIn("exit 7", body)
        atts = {p.get_filename(): p.get_payload(decode=True) for p in msgs[0].walk() if p.get_filename()}
        log = atts.get("output.log", b"").decode(errors="replace")
        self.assertIn("rank 1 on vm2", log, "the second node's output is in the one verdict's log")
        # One live watcher per job: the second node's leaves at once, asking slurmctld nothing.
        for _ in range(40):
            if os.path.exists(os.path.join(SPOOL, "jobs", str(jid), "live-vm2.log")):
                break
            time.sleep(0.25)
        with open(os.path.join(SPOOL, "jobs", str(jid), "live-vm2.log")) as f:
            self.assertIn("not the job's first node (vm): no live watcher here", f.read())
        with open(os.path.join(SPOOL, "jobs", str(jid), "live-vm.log")) as f:
            self.assertIn("live watcher for alice", f.read())

    def test_99z_heterogeneous_job_one_message(self):
        # Two components (one per node: Slurm does not put them on one node), a step
        # across both and a step in the second only: one message, every component's log.
        env = dict(os.environ, GPUALERT_PLUGSTACK_LINE=state["plug"], NODES="2")
        up = sh([os.path.join(HERE, "cluster_up.sh")], env=env, timeout=600, check=False)  # quick when up already
        if up.returncode != 0:
            self.fail("two-node bring-up failed: %s" % up.stderr.decode()[-2000:])
        script = job_script("het.sh", "#!/bin/sh\n#SBATCH -n1\n#SBATCH hetjob\n#SBATCH -n1\n"
                            "srun --het-group=0,1 sh -c 'echo part of the job on $(hostname); exit 2'\n"
                            "srun --het-group=1 sh -c 'echo RuntimeError: only in component 1; exit 3'\nexit 4\n")
        jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org %s" % script, check=True).stdout.decode())
        self.assertEqual(sacct(jid), ("FAILED", "4:0"))
        msgs = messages_for(jid, wait=120)
        self.assertEqual(len(msgs), 1, "one message for the whole heterogeneous job")
        self.assertEqual(messages_for(jid + 1, want=0, wait=1), [], "the second component was notified on its own")
        log = "".join(p.get_payload(decode=True).decode(errors="replace") for p in msgs[0].walk()
                      if p.get_filename() == "output.log")
        # The second component's own task logs (its directory), not only what srun relayed.
        self.assertIn("srun #0, node vm2, task 0 <==\npart of the job on vm2", log)
        self.assertIn("srun #1, node vm2, task 0 <==\nRuntimeError: only in component 1", log)


if __name__ == "__main__":
    unittest.main()
