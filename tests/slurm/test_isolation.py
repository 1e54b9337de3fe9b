"""The Slurm side is invisible to the job and safe for every user (issue 10).

On the same real cluster as test_plugin_e2e (its fixture is reused): the flag
given only on srun lines inside a script or an allocation, a job's output seen
exactly as without the plugin (one file for both streams, a terminal), and one
user unable to reach another's logs or mail: a reused job id, file modes,
recipients, forged job names, a flood of output and a sparse log.
"""
import collections
import email
import glob
import email.policy
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import time
import unittest

from test_plugin_e2e import (HELPER, PYTHON, SPOOL, USER, as_user, job_id, job_script, messages_for, sacct,
                             setUpModule, sh, state, tearDownModule)

OTHER = "bob"
# Runs of each ending with and without the plugin (the closing note's figures used 30).
RUNS = int(os.environ.get("GPUALERT_TRANSPARENCY_RUNS", "3"))
__all__ = ["setUpModule", "tearDownModule"]

# Records the descriptors a tool started by the helper inherits, then runs the real tool.
SHIM = """#!%s
import os, sys
if open("/proc/%%d/comm" %% os.getppid()).read().strip() == "gpualert-epilog":
    seen = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            seen.append("%%s %%s" %% (fd, os.readlink("/proc/self/fd/" + fd)))
        except OSError:
            pass  # the listing's own descriptor, closed by now
    with open("%s/%s.%%d" %% os.getpid(), "w") as f:
        f.write("\\n".join(seen) + "\\n")
os.execv("/usr/bin/%s", sys.argv)
"""


def as_other(cmd, timeout=300, check=False):
    return as_user(cmd, timeout=timeout, check=check, user=OTHER)


def final_record(jid):
    """(State, ExitCode, DerivedExitCode) from accounting once the job has ended."""
    sacct(jid)
    out = sh(["sacct", "-j", str(jid), "-X", "-n", "-P", "-o", "State,ExitCode,DerivedExitCode"]).stdout.decode()
    state_, code, derived = out.strip().splitlines()[0].split("|")
    return state_.split(" ")[0], code, derived


def state_and_exit(records):
    """How many runs ended with each (State, ExitCode), DerivedExitCode left out."""
    out = collections.Counter()
    for (state_, code, _), n in records.items():
        out[(state_, code)] += n
    return out


def body(m):
    return m.get_body(("plain",)).get_content().replace("\r\n", "\n")


def attachment(m, name):
    for p in m.walk():
        if p.get_filename() == name:
            return p.get_payload(decode=True).decode(errors="replace")
    return ""


def spool_state(jid):
    """What the node's spool says of JID's message, for a failure's text."""
    out = [sh("df -k %s; ls -la %s %s" % (SPOOL, job_dir(jid), os.path.join(SPOOL, "outbox", "*")), check=False)
           .stdout.decode(errors="replace")[-3000:]]
    for path in (os.path.join(SPOOL, "admin.log"), os.path.join(job_dir(jid), "helper.log")):
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                out.append("== %s\n%s" % (path, f.read()[-3000:]))
    out.append(sh("journalctl -q --no-pager GPUALERT_JOB_ID=%d 2>/dev/null | tail -20" % jid, check=False)
               .stdout.decode(errors="replace"))
    return "\n".join(out)


def job_dir(jid):
    return os.path.join(SPOOL, "jobs", str(jid))


class FlagWhereUsersPutIt(unittest.TestCase):
    def test_srun_flag_inside_a_batch_script(self):
        script = job_script("inner.sh", "#!/bin/bash\n"
                            "srun --gpualert=alice@example.org %s -c 'import sys; print(\"inner step\"); sys.exit(3)'\n"
                            "srun --gpualert=alice@example.org,ally@example.org true\n" % PYTHON)
        jid = job_id(as_user("sbatch --parsable %s" % script, check=True).stdout.decode())
        sacct(jid)
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1, "srun --gpualert in a script: exactly one message for the job")
        to = [a.strip() for a in str(msgs[0]["To"]).split(",")]
        self.assertEqual(sorted(to), ["alice@example.org", "ally@example.org"], "each asking step's recipients, once")
        self.assertIn("exit 3", body(msgs[0]))

    def test_srun_flag_inside_salloc(self):
        p = as_user("salloc -N1 bash -c 'for i in 1 2 3; do srun --gpualert=alice@example.org echo step $i; done'",
                    check=True, timeout=120)
        jid = job_id(p.stderr.decode().replace("allocation", " "))
        sacct(jid)
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1, "three asking steps in one allocation: one message")

    def test_each_array_task_is_a_job_with_its_own_message(self):
        array = job_id(as_user("sbatch --parsable --array=1-2 --gpualert=alice@example.org "
                               "--wrap 'echo task $SLURM_ARRAY_TASK_ID; exit 3'", check=True).stdout.decode())
        raw = []
        for _ in range(120):
            out = sh(["sacct", "-j", str(array), "-X", "-n", "-P", "-o", "JobIDRaw,State"]).stdout.decode().split()
            if len(out) == 2 and all(l.split("|")[1] == "FAILED" for l in out):
                raw = [int(l.split("|")[0]) for l in out]
                break
            time.sleep(1)
        self.assertEqual(len(raw), 2, "the array's two tasks never failed")
        for jid in raw:
            msgs = messages_for(jid)
            self.assertEqual(len(msgs), 1, "array task %d: %d messages" % (jid, len(msgs)))
            self.assertIn("FAILED", msgs[0]["Subject"])

    def test_zz_a_failing_array_gets_its_first_failure_then_one_digest(self):
        # Runs last in this class (zz): from here on a sender serves the spool.
        n = int(os.environ.get("GPUALERT_ARRAY_TASKS", "12"))
        sender = [os.path.join(os.path.dirname(HELPER), "gpualert"), "sender", "--once", "--config", state["conf"],
                  "--outbox", os.path.join(SPOOL, "outbox")]
        env = dict(os.environ, GPUALERT_SYSTEM_CONFIG="/nonexistent", GPUALERT_DIGEST_QUIET="2",
                   GPUALERT_DELIVERY_LOG="stderr")
        sh(sender, env=env)  # a sender runs here: the helpers may hold failures for a digest
        # Later tests expect each job's own message: no sender serves the spool after this one.
        self.addCleanup(lambda: os.path.exists(mark) and os.unlink(mark))
        mark = os.path.join(SPOOL, "outbox", "sender.pass")
        before = set(os.listdir(state["maildir"]))
        array = job_id(as_user("sbatch --parsable --array=1-%d --gpualert=alice@example.org "
                               "--wrap 'echo task $SLURM_ARRAY_TASK_ID; exit 3'" % n, check=True).stdout.decode())
        raw = []
        for _ in range(600):
            out = sh(["sacct", "-j", str(array), "-X", "-n", "-P", "-o", "JobIDRaw,State"]).stdout.decode().split()
            if len(out) == n and all(l.split("|")[1] == "FAILED" for l in out):
                raw = [int(l.split("|")[0]) for l in out]
                break
            time.sleep(1)
        self.assertEqual(len(raw), n, "the array's tasks never all failed")
        # Every task's helper has stored its message (sent at once, or held).
        def read(path, mode="r"):
            with open(path, mode) as fh:
                return fh.read()

        def stored():
            return sum(1 for sub in ("pending", "sent") for f in os.listdir(os.path.join(SPOOL, "outbox", sub))
                       if f.endswith(".json") and '"array": "%d"' % array in read(os.path.join(SPOOL, "outbox", sub, f)))
        for _ in range(300):
            if stored() >= n:
                break
            time.sleep(1)
        self.assertEqual(stored(), n)
        time.sleep(3)  # the burst is quiet
        r = sh(sender, env=env)
        new = [m for m in (email.message_from_bytes(read(os.path.join(state["maildir"], f), "rb"),
                                                     policy=email.policy.default)
                           for f in sorted(set(os.listdir(state["maildir"])) - before) if f.endswith(".eml"))
               if m["X-Gpualert-Array"] and m["X-Gpualert-Array"].split("_")[0] == str(array)]
        digests = [m for m in new if m["X-Gpualert-Digest"]]
        singles = [m for m in new if not m["X-Gpualert-Digest"]]
        self.assertEqual(len(singles), 1, "the array's first failure goes at once: %s" % r.stderr.decode()[-2000:])
        self.assertEqual(len(digests), 1, [m["Subject"] for m in new])
        self.assertEqual(digests[0]["X-Gpualert-Digest"], str(n - 1))
        body = digests[0].get_body(("plain",)).get_content()
        listed = {int(w.split("_")[1]) for w in body.split() if w.startswith("%d_" % array)}
        first = int(singles[0]["X-Gpualert-Array"].split("_")[1])
        self.assertEqual(listed | {first}, set(range(1, n + 1)), body)
        self.assertIn("array %d: %d more tasks ended badly" % (array, n - 1), digests[0]["Subject"])

    def test_a_job_that_did_not_ask_gets_nothing(self):
        jid = job_id(as_user("sbatch --parsable --wrap 'srun true; exit 4'", check=True).stdout.decode())
        sacct(jid)
        self.assertEqual(messages_for(jid, want=0, wait=20), [])


class InvisibleToTheJob(unittest.TestCase):
    def run_pair(self, args, wrap, out_file):
        seen = []
        for flag in ("", "--gpualert=alice@example.org"):
            path = os.path.join(state["work"], out_file)
            if os.path.exists(path):
                os.unlink(path)
            jid = job_id(as_user("sbatch --parsable %s %s --wrap '%s'" % (flag, args, wrap), check=True).stdout.decode())
            sacct(jid)
            with open(path, "rb") as fh:
                seen.append(fh.read())
        return seen

    def test_one_output_file_for_both_streams_keeps_the_order(self):
        wrap = "for i in $(seq 1 300); do echo out $i; echo err $i >&2; done"
        without, with_plugin = self.run_pair("-o both.txt", wrap, "both.txt")
        expected = "".join("out %d\nerr %d\n" % (i, i) for i in range(1, 301)).encode()
        self.assertEqual(without, expected)
        moved = sum(1 for a, b in zip(without.splitlines(), with_plugin.splitlines()) if a != b)
        self.assertEqual(moved, 0, "%d of 600 lines reordered by the plugin" % moved)
        self.assertEqual(with_plugin, expected)

    def test_slurm_records_the_same_ending_with_and_without_the_plugin(self):
        # State and ExitCode must match run for run. DerivedExitCode has a race of
        # Slurm's own: now and then a job whose step failed records 0:0 (seen without
        # the plugin too: 1 of 30 "exit 3" runs); the plugin must never give a third value.
        endings = {
            "exit 0": "srun true",
            "exit 3": "srun bash -c \"exit 3\"",
            "srun task killed by SIGKILL": "srun bash -c \"kill -9 \\$\\$\"",
            "batch script killed by SIGKILL": "kill -9 $$",
        }
        problems = []
        for ending, wrap in endings.items():
            seen = {"": collections.Counter(), "--gpualert=alice@example.org": collections.Counter()}
            for _ in range(RUNS):
                for flag in seen:
                    jid = job_id(as_user("sbatch --parsable -o /dev/null %s --wrap '%s'" % (flag, wrap),
                                         check=True).stdout.decode())
                    seen[flag][final_record(jid)] += 1
            without, with_plugin = seen.values()
            print("\n  %s: %d runs each; without %s; with %s" % (ending, RUNS, dict(without), dict(with_plugin)),
                  flush=True)
            if state_and_exit(without) != state_and_exit(with_plugin):
                problems.append("%s: state/exit code %s without, %s with" % (ending, dict(without), dict(with_plugin)))
            usual = without.most_common(1)[0][0][2]
            odd = {k[2] for k in with_plugin} - {usual, "0:0"}
            if odd:
                problems.append("%s: DerivedExitCode %s with the plugin, %s without" % (ending, odd, usual))
        self.assertEqual(problems, [], "Slurm's record of these endings changes with --gpualert")

    def test_the_plugin_never_writes_into_the_jobs_output(self):
        # The plugin cannot capture this job (its spool directory is blocked by a
        # file); what it has to say goes to the admin, not into out.txt.
        jid = job_id(as_user("sbatch --parsable --hold -o out.txt --gpualert=alice@example.org --wrap 'srun echo hello'",
                             check=True).stdout.decode())
        os.makedirs(os.path.join(SPOOL, "jobs"), exist_ok=True)
        with open(job_dir(jid), "w") as f:
            f.write("in the way\n")
        try:
            sh(["scontrol", "release", str(jid)])
            sacct(jid)
        finally:
            os.unlink(job_dir(jid))
        with open(os.path.join(state["work"], "out.txt")) as f:
            self.assertEqual(f.read(), "hello\n")
        with open(os.path.join(SPOOL, "admin.log")) as f:
            self.assertIn("job directory for %d unusable" % jid, f.read())

    def test_a_terminal_stays_a_terminal(self):
        cmd = ("srun --pty --gpualert=alice@example.org bash -c "
               "'test -t 0 && echo IN-TTY; test -t 1 && echo OUT-TTY; test -t 2 && echo ERR-TTY'")
        p = as_user("script -qec \"%s\" /dev/null" % cmd, timeout=120)
        out = p.stdout.decode(errors="replace")
        for want in ("IN-TTY", "OUT-TTY", "ERR-TTY"):
            self.assertIn(want, out, "the task's %s is no longer a terminal with --gpualert" % want)


    def test_the_tee_ends_with_the_step_when_a_daemon_keeps_its_pipe(self):
        # A setsid daemon inherits the task's stdout (the tee's pipe) and outlives the job.
        wrap = ("setsid sh -c \"while sleep 0.2; do echo daemon tick; done\" & sleep 1; echo script done")
        jid = job_id(as_user("sbatch --parsable -o /dev/null --gpualert=alice@example.org --wrap '%s'" % wrap,
                             check=True).stdout.decode())
        try:
            self.assertEqual(sacct(jid), ("COMPLETED", "0:0"))
            self.assertEqual(len(messages_for(jid)), 1)
            logs = [os.path.join(job_dir(jid), n) for n in os.listdir(job_dir(jid)) if n.startswith("batch.")
                    and n.endswith(".log")]
            self.assertTrue(logs)
            size = os.path.getsize(logs[0])
            time.sleep(3)
            self.assertEqual(os.path.getsize(logs[0]), size, "the job's log still grows after the job ended")
            tees = sh("pgrep -u %s -x gpualert-tee" % USER, check=False).stdout.decode().split()
            self.assertEqual(tees, [], "a tee outlived its step")
        finally:
            sh("pkill -u %s -f 'while sleep 0.2'" % USER, check=False)


class NoUserTouchesAnother(unittest.TestCase):
    def test_a_reused_job_id_never_mixes_users(self):
        jb = job_id(as_other("sbatch --parsable --gpualert=bob@example.org --wrap 'echo BOB-PRIVATE-LINE; exit 2'",
                             check=True).stdout.decode())
        sacct(jb)
        self.assertEqual(len(messages_for(jb)), 1)
        # Alice's next job is held while bob's directory is put where hers will be,
        # with bob's "notified" marker, as a job id reused after a state reset leaves it.
        ja = job_id(as_user("sbatch --parsable --hold --gpualert=alice@example.org --wrap 'echo alice here; exit 1'",
                            check=True).stdout.decode())
        shutil.rmtree(job_dir(ja), ignore_errors=True)
        os.rename(job_dir(jb), job_dir(ja))
        sh(["scontrol", "release", str(ja)])
        sacct(ja)
        msgs = messages_for(ja)
        self.assertEqual(len(msgs), 1, "a stale directory silenced the new job's mail")
        text = body(msgs[0]) + attachment(msgs[0], "output.log")
        self.assertNotIn("BOB-PRIVATE-LINE", text, "another user's line in alice's mail")
        self.assertIn("alice here", text)
        with open(os.path.join(SPOOL, "admin.log")) as f:
            self.assertIn("jobs/%d held an earlier job's files" % ja, f.read())

    def test_one_users_opt_out_silences_only_that_user(self):
        home = pwd.getpwnam(OTHER).pw_dir
        conf_dir = os.path.join(home, ".config", "gpualert")
        conf = os.path.join(conf_dir, "gpualert.conf")
        root_only = os.path.join(state["tmp"], "root-only.conf")
        try:
            self.assertEqual(as_other("mkdir -p %s && printf 'notify = none\\nsmtp_url = smtp://evil.test\\n' > %s"
                                      % (conf_dir, conf)).returncode, 0)
            jb = job_id(as_other("sbatch --parsable --gpualert=bob@example.org --wrap 'echo bob; exit 2'",
                                 check=True).stdout.decode())
            ja = job_id(as_user("sbatch --parsable --gpualert=alice@example.org --wrap 'echo alice; exit 2'",
                                check=True).stdout.decode())
            sacct(jb)
            sacct(ja)
            self.assertEqual(len(messages_for(ja)), 1, "alice is told")
            self.assertEqual(messages_for(jb, want=0, wait=5), [], "bob opted out")
            with open(glob.glob(os.path.join(job_dir(jb), "helper-*.log"))[0]) as f:
                log = f.read()
            self.assertIn("not sent: notify = none and the run was FAILED", log)
            self.assertIn("smtp_url is the site's to set, not a user's; ignored", log)
            self.assertTrue(os.path.exists(os.path.join(job_dir(jb), "verdict.json")), "the verdict is kept")
            # A file bob cannot read himself does not count, even where it says notify = none:
            # root never reads a path a user chose.
            with open(root_only, "w") as f:
                f.write("notify = none\n")
            os.chmod(root_only, 0o600)
            self.assertEqual(as_other("rm %s && ln -s %s %s" % (conf, root_only, conf)).returncode, 0)
            jb2 = job_id(as_other("sbatch --parsable --gpualert=bob@example.org --wrap 'exit 2'",
                                  check=True).stdout.decode())
            sacct(jb2)
            self.assertEqual(len(messages_for(jb2)), 1, "a root-only file read as root would have silenced bob")
            with open(glob.glob(os.path.join(job_dir(jb2), "helper-*.log"))[0]) as f:
                self.assertIn("not read: Permission denied", f.read())
        finally:
            shutil.rmtree(os.path.join(home, ".config"), ignore_errors=True)

    def test_a_jobs_files_are_its_users_and_roots_only(self):
        jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org --wrap 'echo ALICE-SECRET; exit 1'",
                             check=True).stdout.decode())
        sacct(jid)
        self.assertEqual(len(messages_for(jid)), 1)
        d = job_dir(jid)
        st = os.stat(d)
        self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)), (0, 0o711))
        alice = pwd.getpwnam(USER).pw_uid
        for name in os.listdir(d):
            fst = os.lstat(os.path.join(d, name))
            self.assertTrue(stat.S_ISREG(fst.st_mode), name)
            self.assertEqual(stat.S_IMODE(fst.st_mode) & 0o077, 0, "%s is readable beyond its owner" % name)
            self.assertIn(fst.st_uid, (0, alice), name)
        for name in ("verdict.json", "combined.log"):
            self.assertEqual(as_user("cat %s/%s" % (d, name)).returncode, 0, "alice cannot read her " + name)
            self.assertNotEqual(as_other("cat %s/%s" % (d, name)).returncode, 0, "bob can read alice's " + name)
        self.assertNotEqual(as_other("ls %s" % d).returncode, 0, "bob can list alice's job directory")

    def test_recipients_are_held_to_the_site_rule_at_submit(self):
        before = sh("squeue -h -t all | wc -l").stdout
        many = ",".join("x%d@example.org" % i for i in range(60))
        for bad in ("root", "bob", many):
            p = as_user("sbatch --parsable '--gpualert=%s' --wrap true" % bad)
            self.assertNotEqual(p.returncode, 0, "sbatch accepted --gpualert=%s" % bad[:40])
            self.assertIn(b"--gpualert", p.stderr)
            p = as_user("srun '--gpualert=%s' true" % bad)
            self.assertNotEqual(p.returncode, 0, "srun accepted --gpualert=%s" % bad[:40])
        self.assertEqual(sh("squeue -h -t all | wc -l").stdout, before, "a refused job was queued")
        self.assertEqual(as_user("srun --gpualert=%s true" % USER).returncode, 0, "the user's own name is refused")
        # Slurm's own --mail-user is held to the same rule when --gpualert names no one.
        jid = job_id(as_user("sbatch --parsable --mail-user=root --mail-type=FAIL --gpualert --wrap 'exit 1'",
                             check=True).stdout.decode())
        sacct(jid)
        msgs = messages_for(jid)
        self.assertEqual(len(msgs), 1)
        self.assertNotIn("root", str(msgs[0]["To"]), "--mail-user=root received the job's log")

    def test_a_forged_job_name_changes_nothing(self):
        for name in ("x Restarts=9", "a|COMPLETED|0:0|0:0|00:00:01|UNLIMITED|vm|debug|root|2026|2026|/"):
            jid = job_id(as_user("sbatch --parsable -J '%s' --gpualert=alice@example.org --wrap 'echo hi; exit 3'" % name,
                                 check=True).stdout.decode())
            self.assertEqual(sacct(jid), ("FAILED", "3:0"))
            msgs = messages_for(jid)
            self.assertEqual(len(msgs), 1, "job named %r: no message" % name)
            self.assertIn("FAILED", msgs[0]["Subject"], name)
            self.assertNotIn("user: root", body(msgs[0]), name)

    def test_one_users_flood_of_a_small_spool_leaves_the_next_job_its_log_and_mail(self):
        # The spool on a 40 MB tmpfs (as in the issue): bob's three jobs print 60 MB
        # each, more than the spool holds; alice's job afterwards still gets her log
        # and her message, and bob his, each saying what was left out.
        sh(["mount", "-t", "tmpfs", "-o", "size=40m,mode=0755", "tmpfs", SPOOL])
        try:
            flood = ("yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c 60M; "
                     "echo; echo ValueError: bob flooded the spool; exit 1")
            bobs = [job_id(as_other("sbatch --parsable -o /dev/null --gpualert=bob@example.org --wrap '%s'" % flood,
                                    check=True).stdout.decode()) for _ in range(3)]
            for jid in bobs:
                sacct(jid)
            jid = job_id(as_user("sbatch --parsable -o /dev/null --gpualert=alice@example.org --wrap "
                                 "'echo step 1 loss 2.5; echo ModuleNotFoundError: No module named alice_pkg >&2; exit 1'",
                                 check=True).stdout.decode())
            self.assertEqual(sacct(jid), ("FAILED", "1:0"))
            msgs = messages_for(jid)
            self.assertEqual(len(msgs), 1, "alice got no message after bob filled the spool")
            self.assertEqual(msgs[0]["X-Gpualert-Class"], "missing_module", body(msgs[0])[:2000])
            self.assertIn("alice_pkg", body(msgs[0]))
            for b in bobs:
                bm = messages_for(b, wait=120)
                self.assertEqual(len(bm), 1, "bob's job %d got no message\n%s" % (b, spool_state(b)))
                text = body(bm[0])
                self.assertTrue("were not kept" in text or "over the cap" in text,
                                "bob's message does not say what was left out: %s" % text[-1500:])
                self.assertTrue("bob flooded the spool" in text, "bob's own last line is lost: %s" % text[-1500:])
            df = os.statvfs(SPOOL)
            print("\n  40 MB spool after 3 x 60 MB from bob and alice's job: %.1f MB free" %
                  (df.f_bavail * df.f_frsize / 1e6), flush=True)
        finally:
            sh(["umount", "-l", SPOOL], check=False)

    def test_an_output_file_slurm_cannot_open_is_named_not_called_a_signal(self):
        # slurmstepd reports its own launch error as "signal 53": the message must say why.
        for out, cls, words in (("/etc/shadow", "permission", "/etc/shadow cannot be opened for writing"),
                                ("/nonexistent-dir/x.out", "file_not_found", "/nonexistent-dir does not exist")):
            jid = job_id(as_user("sbatch --parsable -o %s --gpualert=alice@example.org --wrap 'echo hi'" % out,
                                 check=True).stdout.decode())
            self.assertEqual(sacct(jid)[0], "FAILED")
            msgs = messages_for(jid)
            self.assertEqual(len(msgs), 1, out)
            self.assertEqual(msgs[0]["X-Gpualert-Class"], cls, body(msgs[0])[:2000])
            self.assertIn(words, body(msgs[0]))
            self.assertNotIn("signal_kill", msgs[0]["Subject"])

    def test_a_kernel_record_planted_from_userspace_is_not_evidence(self):
        # With a journal running, the job writes an Xid "from the kernel" through syslog
        # and the journal's own protocol; only the kernel transport counts. A real kernel
        # record from before the job (a journald started later stamps it as new) is old news.
        with open("/dev/kmsg", "w") as k:
            k.write("NVRM: Xid (PCI:0000:3b:00): 79, pid=4243, name=python, GPU has fallen off the bus. "
                    "(written by a test, before the job)\n")
        time.sleep(7)  # outside the 5 s the decider allows before a run's start
        started = None
        if sh("pgrep -x systemd-journal", check=False).returncode != 0:
            os.makedirs("/run/systemd/journal", exist_ok=True)
            if os.path.exists("/run/systemd/journal/socket"):
                os.unlink("/run/systemd/journal/socket")
            started = subprocess.Popen(["/lib/systemd/systemd-journald"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            for _ in range(50):
                if os.path.exists("/run/systemd/journal/socket"):
                    break
                time.sleep(0.1)
        try:
            xid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=$$, name=python, GPU has fallen off the bus."
            wrap = ("printf \"MESSAGE=%s\\nSYSLOG_IDENTIFIER=kernel\\nPRIORITY=3\\n\" | logger --journald; "
                    "echo \"%s\" | systemd-cat -t kernel -p err; sleep 1; "
                    "echo RuntimeError: my own bug >&2; exit 1") % (xid, xid)
            jid = job_id(as_user("sbatch --parsable -o /dev/null --gpualert=alice@example.org --wrap '%s'" % wrap,
                                 check=True).stdout.decode())
            self.assertEqual(sacct(jid), ("FAILED", "1:0"))
            msgs = messages_for(jid)
            self.assertEqual(len(msgs), 1)
            journal = sh(["journalctl", "--no-pager", "-q", "-g", "Xid .*79"], check=False).stdout.decode()
            self.assertIn("fallen off the bus", journal, "the planted records never reached the journal")
            self.assertNotEqual(msgs[0]["X-Gpualert-Class"], "gpu_hardware", body(msgs[0])[:2000])
            self.assertNotEqual(msgs[0]["X-Gpualert-Attribution"], "infra")
            self.assertNotIn("Xid", body(msgs[0]))
        finally:
            if started:
                started.terminate()
                started.wait(timeout=10)

    def test_the_helper_gives_its_tools_no_descriptor(self):
        # The helper finds sacct and scontrol on its own PATH, /usr/local/bin first: a
        # shim there records what a tool inherits from the helper, then runs the real one.
        shims = {}
        record = tempfile.mkdtemp(prefix="ga-fds-")
        os.chmod(record, 0o755)
        try:
            for tool in ("sacct", "scontrol"):
                path = "/usr/local/bin/" + tool
                if os.path.exists(path):
                    self.skipTest("%s exists already" % path)
                with open(path, "w") as f:
                    f.write(SHIM % (PYTHON, record, tool, tool))
                os.chmod(path, 0o755)
                shims[tool] = path
            jid = job_id(as_user("sbatch --parsable --gpualert=alice@example.org --wrap 'exit 2'",
                                 check=True).stdout.decode())
            self.assertEqual(sacct(jid), ("FAILED", "2:0"))
            self.assertEqual(len(messages_for(jid)), 1)
            seen = sorted(os.listdir(record))
            self.assertTrue(any(n.startswith("sacct.") for n in seen), "the shim never ran: %r" % seen)
            for n in seen:
                with open(os.path.join(record, n)) as f:
                    extra = [line for line in f.read().splitlines() if line.split(" ")[0] not in ("0", "1", "2")]
                self.assertEqual(extra, [], "%s inherited descriptors from the helper" % n)
        finally:
            for path in shims.values():
                os.unlink(path)
            shutil.rmtree(record, ignore_errors=True)

    def test_a_flood_costs_only_its_own_job(self):
        # 60 MB of output, then the line that matters; then the task makes its own
        # log a 3 GiB sparse file (found through the tee's open descriptor).
        wrap = ("yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789 | head -c 60M; "
                "echo; echo RuntimeError: the final error line; "
                "for l in /proc/[0-9]*/fd/*; do t=$(readlink $l); case $t in */jobs/$SLURM_JOB_ID/*.log) "
                "truncate -s 3G $t;; esac; done 2>/dev/null; exit 1")
        jid = job_id(as_user("sbatch --parsable -o /dev/null --gpualert=alice@example.org --wrap '%s'" % wrap,
                             check=True).stdout.decode())
        sacct(jid)
        msgs = messages_for(jid, wait=120)
        self.assertEqual(len(msgs), 1)
        used = sum(os.stat(os.path.join(job_dir(jid), n)).st_blocks * 512 for n in os.listdir(job_dir(jid)))
        self.assertLess(used, 48 << 20, "the job's spool directory holds %d bytes" % used)
        self.assertIn("the final error line", body(msgs[0]) + attachment(msgs[0], "output.log"))
        print("\n  job %d: 60 MB printed, spool holds %.1f MB for it" % (jid, used / 1e6), flush=True)


if __name__ == "__main__":
    unittest.main()
