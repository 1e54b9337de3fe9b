"""A site installs gpualert from its Debian package and follows doc/admin.md.

Takes the packages test_package_build.py built from a clean copy of the source,
runs hardening-check, installs them into this
machine's root, and then does what the admin guide says: the plugin ships off;
set the relay, `gpualert config check`, enable the plugstack line, restart slurmd,
and jobs that fail in different ways mail their verdicts to a real SMTP server on
loopback. A partitions= rollout watches only its partitions; a broken config is
caught by config check; an upgrade keeps the admin's files and the spool; purge
leaves only what the admin chose to keep."""
import email
import email.policy
import glob
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

SRC = os.environ.get("GPUALERT_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
SLURM_TESTS = os.path.join(SRC, "tests", "slurm")
SMTP_SERVER = os.path.join(SRC, "tests", "support", "smtp_server.py")
PACKAGE_OUT = os.environ.get("GPUALERT_PACKAGE_OUT", "/nonexistent")
USER = "alice"
CONF = "/etc/gpualert/gpualert.conf"
PLUGSTACK_D = "/etc/slurm/plugstack.conf.d/gpualert.conf"
SPOOL = "/var/spool/gpualert"
state = {}


def sh(cmd, check=True, timeout=600, env=None, cwd=None):
    p = subprocess.run(cmd, shell=isinstance(cmd, str), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=env, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (cmd, p.returncode, p.stdout.decode()[-3000:],
                                                         p.stderr.decode()[-3000:]))
    return p


def as_user(cmd, check=False, timeout=300):
    return sh(["runuser", "-u", USER, "--", "bash", "-lc", "cd %s && %s" % (state["work"], cmd)], check=check,
              timeout=timeout)


def job_id(text):
    return int(re.search(r"\d+", text).group(0))


def restart_slurmd():
    env = dict(os.environ, GPUALERT_PLUGSTACK_LINE="@keep", PROBE="0")
    sh([os.path.join(SLURM_TESTS, "restart_slurmd.sh")], env=env, timeout=300)


def sacct_state(job):
    for _ in range(240):
        # A job id the test cluster reused has older records too: the newest line is this job's.
        out = sh(["sacct", "-j", str(job), "-X", "-n", "-P", "-o", "State"], check=False).stdout.decode().strip()
        st = out.splitlines()[-1].split()[0] if out else ""
        if st and st not in ("PENDING", "RUNNING", "COMPLETING", "CONFIGURING"):
            return st
        time.sleep(0.5)
    return None


def messages_for(job, want=1, wait=90):
    deadline = time.time() + wait
    while True:
        got = []
        for f in sorted(glob.glob(os.path.join(state["maildir"], "*.eml"))):
            with open(f, "rb") as fh:
                m = email.message_from_bytes(fh.read(), policy=email.policy.default)
            if m["X-Gpualert-Job"] == str(job):
                got.append(m)
        if len(got) >= want or time.time() > deadline:
            time.sleep(2 if want else 0)
            return got
        time.sleep(0.5)


def diagnostics(job):
    """What the node knows about JOB's message, for a failure's text."""
    out = [sh("sacct -j %d -X -n -P -o JobID,JobName,State,ExitCode,User" % job, check=False).stdout.decode()]
    for path in [os.path.join(SPOOL, "admin.log")] + glob.glob(os.path.join(SPOOL, "jobs", str(job), "*")):
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                out.append("== %s\n%s" % (path, f.read()[-3000:]))
    out.append(sh("ls -lR %s | tail -40" % SPOOL, check=False).stdout.decode())
    return "\n".join(out)


def set_plugstack(line):
    """The admin's edit of the shipped file: the commented line, uncommented (and its arguments)."""
    with open(PLUGSTACK_D) as f:
        text = f.read()
    text = re.sub(r"(?m)^#?optional (\S+/gpualert\.so).*$", lambda m: line.replace("@SO@", m.group(1)), text)
    with open(PLUGSTACK_D, "w") as f:
        f.write(text)


def setUpModule():
    if os.geteuid() != 0:
        raise unittest.SkipTest("needs root: installs packages and stands up Slurm")
    # The packages package.build made (test_package_build.py), from a clean copy of the source.
    debs = {os.path.basename(d).split("_")[0]: d for d in glob.glob(os.path.join(PACKAGE_OUT, "*.deb"))}
    if sorted(debs) != ["gpualert", "gpualert-slurm"]:
        raise AssertionError("package.build left no packages in %s: %r" % (PACKAGE_OUT, debs))
    state["debs"] = [debs["gpualert"], debs["gpualert-slurm"]]
    state["tmp"] = tempfile.mkdtemp(prefix="gpualert-pkg-")
    os.chmod(state["tmp"], 0o755)


def tearDownModule():
    if "smtp" in state:
        state["smtp"].send_signal(signal.SIGTERM)
        state["smtp"].wait(timeout=10)
    sh("apt-get purge -y -qq gpualert gpualert-slurm", check=False, env=dict(os.environ, GPUALERT_PURGE_SPOOL="yes",
                                                                            DEBIAN_FRONTEND="noninteractive"))
    sh([os.path.join(SLURM_TESTS, "cluster_down.sh")], check=False)
    shutil.rmtree(state.get("tmp", "/nonexistent"), ignore_errors=True)


class DebianPackage(unittest.TestCase):
    maxDiff = None

    def test_2_installs_off_and_config_check_says_so(self):
        # A node with Slurm running and no gpualert: the cluster from the Slurm suite's scripts.
        env = dict(os.environ, GPUALERT_PLUGSTACK_LINE="", NODES="1")
        up = sh([os.path.join(SLURM_TESTS, "cluster_up.sh")], env=env, timeout=900, check=False)
        self.assertEqual(up.returncode, 0, up.stderr.decode()[-3000:])
        sh(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + state["debs"],
           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), timeout=600)
        with open(PLUGSTACK_D) as f:
            shipped = f.read()
        self.assertRegex(shipped, r"(?m)^#optional /usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert\.so ")
        self.assertNotRegex(shipped, r"(?m)^optional")
        for unit in ("gpualert-sender.service", "gpualert-sender.timer"):
            self.assertTrue(os.path.exists("/lib/systemd/system/" + unit), unit)
            self.assertFalse(glob.glob("/etc/systemd/system/*/" + unit), unit + " was enabled")
        st = os.stat(SPOOL)
        self.assertEqual((st.st_uid, oct(st.st_mode & 0o777)), (0, "0o755"))
        for prog in ("/usr/bin/gpualert", "/usr/libexec/gpualert/gpualert-core", "/usr/libexec/gpualert/gpualert-send",
                     "/usr/libexec/gpualert/gpualert-epilog", "/usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert.so"):
            # Control-flow protection is not asked of us (and the static libstdc++ the
            # launcher links lacks CET notes); the rest must all be there.
            hc = sh(["hardening-check", "--nocfprotection", prog], check=False)
            self.assertEqual(hc.returncode, 0, hc.stdout.decode() + hc.stderr.decode())
        exported = sh(["nm", "-D", "--defined-only", "/usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert.so"]).stdout.decode()
        names = sorted(l.split()[-1] for l in exported.splitlines() if l.strip())
        self.assertTrue(all(n.startswith("slurm_spank_") or n in ("plugin_name", "plugin_type", "plugin_version",
                                                                  "spank_plugin_version") for n in names), names)
        for page in ("gpualert", "gpualert.conf", "gpualert-spank"):
            self.assertEqual(sh(["man", "-w", page], check=False).returncode, 0, "no man page " + page)
        c = sh(["gpualert", "config", "check", "--no-relay"], check=False)
        self.assertIn("no line loads gpualert.so", c.stdout.decode())

    def test_3_the_admin_guide_one_node_to_a_delivered_verdict(self):
        self.assertTrue(os.path.exists("/usr/bin/gpualert"), "not installed")
        state["maildir"] = os.path.join(state["tmp"], "maildir")
        srv = subprocess.Popen([PYTHON, SMTP_SERVER, "--port", "0", "--maildir", state["maildir"], "--lifetime", "1500"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        state["smtp"] = srv
        port = srv.stdout.readline().decode().split()[1]
        # Step 1: the relay and the addresses, in the packaged config file.
        with open(CONF, "a") as f:
            f.write("\n# site settings\nsmtp_url = smtp://127.0.0.1:%s\nfrom = gpualert@cluster.test\n"
                    "admin_to = hpc-admins@cluster.test\nkernel_events = no\n" % port)
        # Step 2: enable the plugin's line, check, restart slurmd.
        set_plugstack("optional @SO@ spool=%s conf=%s" % (SPOOL, CONF))
        c = sh(["gpualert", "config", "check", "--plugstack", "/etc/slurm/plugstack.conf"], check=False)
        self.assertEqual(c.returncode, 0, c.stdout.decode() + c.stderr.decode())
        self.assertIn("enabled; jobs are watched when they ask", c.stdout.decode())
        restart_slurmd()
        pw = pwd.getpwnam(USER)
        state["work"] = os.path.join(state["tmp"], "work")
        os.makedirs(state["work"])
        os.chown(state["work"], pw.pw_uid, pw.pw_gid)
        # Step 3: jobs that fail in different ways; each mails its verdict.
        r = as_user("srun --gpualert=alice@example.org sh -c 'echo job=$SLURM_JOB_ID; false'", timeout=120)
        self.assertEqual(r.returncode, 1, "srun's exit status must be the job's")
        srun_job = int(re.search(r"job=(\d+)", r.stdout.decode()).group(1))
        jobs = {srun_job: None}
        for cls, wrap in (("traceback", "%s -c 'd = {}; d[\\\"lr\\\"]'" % PYTHON),
                          ("segfault", "%s -c 'import ctypes; ctypes.string_at(0)'" % PYTHON),
                          ("cuda_oom", "echo \\\"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 "
                                       "GiB\\\" >&2; exit 1")):
            p = as_user("sbatch --parsable --gpualert=alice@example.org --wrap \"%s\"" % wrap, check=True)
            jobs[job_id(p.stdout.decode())] = cls
        for jid, cls in jobs.items():
            sacct_state(jid)
            got = messages_for(jid)
            self.assertEqual(len(got), 1, "job %d: %d messages\n%s" % (jid, len(got), diagnostics(jid)))
            if cls:
                self.assertEqual(got[0]["X-Gpualert-Class"], cls, got[0].get_body(("plain",)).get_content()[:2000])
            self.assertEqual(got[0]["To"], "alice@example.org")
        # A job that did not ask gets nothing.
        quiet = job_id(as_user("sbatch --parsable --wrap 'exit 2'", check=True).stdout.decode())
        sacct_state(quiet)
        self.assertEqual(messages_for(quiet, want=0, wait=5), [])

    def test_4_a_rollout_by_partition(self):
        self.assertIn("work", state, "the one-node guide failed")
        # On by default, for partition debug only: a job there is watched without asking.
        set_plugstack("optional @SO@ spool=%s conf=%s default=on partitions=debug" % (SPOOL, CONF))
        restart_slurmd()
        on = job_id(as_user("sbatch --parsable --wrap 'echo step 1 loss 2.0; exit 4'", check=True).stdout.decode())
        sacct_state(on)
        self.assertEqual(len(messages_for(on)), 1, "a job in a rolled-out partition was not watched")
        # The same, for another partition: this one is not.
        set_plugstack("optional @SO@ spool=%s conf=%s default=on partitions=gpu" % (SPOOL, CONF))
        restart_slurmd()
        off = job_id(as_user("sbatch --parsable --wrap 'exit 4'", check=True).stdout.decode())
        sacct_state(off)
        self.assertEqual(messages_for(off, want=0, wait=8), [], "a job outside the rollout was watched")

    def test_5_a_broken_config_is_caught_upgrade_keeps_purge_cleans(self):
        self.assertTrue(os.path.exists("/usr/bin/gpualert"), "not installed")
        with open(CONF) as f:
            good = f.read()
        with open(CONF, "a") as f:
            f.write("smtp_ulr = smtp://typo\n")
        bad = sh(["gpualert", "config", "check", "--no-relay"], check=False)
        self.assertEqual(bad.returncode, 1)
        lines = good.count("\n") + 1
        self.assertIn("%s:%d" % (CONF, lines), bad.stdout.decode())
        with open(CONF, "w") as f:
            f.write(good)
        # Upgrade (the same packages again): the admin's files and the spool stay.
        with open(PLUGSTACK_D) as f:
            plug = f.read()
        os.makedirs(os.path.join(SPOOL, "jobs", "999999"), exist_ok=True)
        sh(["apt-get", "install", "-y", "-qq", "--reinstall"] + state["debs"],
           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), timeout=600)
        with open(CONF) as f:
            self.assertEqual(f.read(), good)
        with open(PLUGSTACK_D) as f:
            self.assertEqual(f.read(), plug)
        self.assertTrue(os.path.isdir(os.path.join(SPOOL, "jobs", "999999")))
        # Off at once: `off` on the line, slurmd restarted; nothing drained, and a job that
        # still says --gpualert is accepted and runs, without a message.
        set_plugstack("optional @SO@ spool=%s conf=%s off" % (SPOOL, CONF))
        restart_slurmd()
        nodes = sh("sinfo -h -o '%T'").stdout.decode().split()
        self.assertTrue(all(n in ("idle", "mixed", "allocated") for n in nodes), nodes)
        asked = job_id(as_user("sbatch --parsable --gpualert --wrap 'exit 5'", check=True).stdout.decode())
        self.assertEqual(sacct_state(asked), "FAILED")
        self.assertEqual(messages_for(asked, want=0, wait=8), [], "a plugin turned off sent mail")
        # Purge: the programs, the plugin and /etc go; the spool holds jobs' logs, so it stays.
        p = sh("apt-get purge -y -qq gpualert gpualert-slurm", env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        self.assertIn("kept", p.stderr.decode() + p.stdout.decode())
        for gone in ("/usr/bin/gpualert", "/usr/libexec/gpualert", "/etc/gpualert", PLUGSTACK_D,
                     "/usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert.so", "/lib/systemd/system/gpualert-sender.service"):
            self.assertFalse(os.path.exists(gone), gone + " left after purge")
        self.assertTrue(os.path.isdir(SPOOL), "the spool with jobs' logs was removed without asking")
        # Installed and purged again with the admin's consent: the spool goes too.
        sh(["apt-get", "install", "-y", "-qq"] + state["debs"], env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        sh("apt-get purge -y -qq gpualert gpualert-slurm",
           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive", GPUALERT_PURGE_SPOOL="yes"))
        self.assertFalse(os.path.exists(SPOOL))
        left = sh("dpkg -l 'gpualert*' 2>/dev/null | grep -E '^(ii|rc)' || true").stdout.decode()
        self.assertEqual(left.strip(), "", left)
