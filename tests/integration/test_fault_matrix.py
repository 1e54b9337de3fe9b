"""The fault matrix: real job endings crossed with relay faults, then the fault clears.

Every cell runs a real job through `gpualert run` against a faulty relay (its own
state directory and recipient), then checks: the wrapper's exit status is the bare
run's; the log holds every byte the job wrote; after the fault clears, `gpualert
sender --once` against a working relay delivers the job's message exactly once, or,
for a permanent refusal, the message is in failed/ with the server's reply and the
admins got one notice. A second pass sends nothing more. Cells run four at a time;
one ending writes 1 GiB (its log is removed once checked).
The matrix with its counts is printed at the end (and goes in the closing note).
Also here: a sender killed (SIGKILL) in the middle of DATA, and spool faults."""
import concurrent.futures
import glob
import json
import os
import signal
import subprocess
import threading
import time

from harness import CHILD, GPUALERT, GpualertCase, SmtpServer, closed_port

PY = "/usr/bin/python3"


def read_json(path):
    with open(path) as f:
        return json.load(f)


def endings(tmp):
    noexec = os.path.join(tmp, "not-executable.sh")
    with open(noexec, "w") as f:
        f.write("#!/bin/sh\necho never\n")
    os.chmod(noexec, 0o644)
    return [
        ("exit_0", [CHILD, "exit", "0"]),
        ("exit_1", [CHILD, "exit", "1"]),
        ("exit_3", [CHILD, "exit", "3"]),
        ("exit_255", [CHILD, "exit", "255"]),
        ("py_traceback", [PY, "-c", "print('step 1 loss 2.0', flush=True)\nraise RuntimeError('boom')"]),
        ("cuda_oom", [PY, "-c", "import sys; sys.stderr.write('torch.OutOfMemoryError: CUDA out of memory. "
                                "Tried to allocate 2.00 GiB\\n'); sys.exit(1)"]),
        ("segfault", [CHILD, "segv"]),
        ("abort", [CHILD, "abort"]),
        ("sigkill", [CHILD, "raise", str(signal.SIGKILL)]),
        ("sigterm", [CHILD, "raise", str(signal.SIGTERM)]),
        ("sigint", [CHILD, "raise", str(signal.SIGINT)]),
        ("missing_binary", ["/nonexistent/bin/train"]),
        ("not_executable", [noexec]),
        ("binary_garbage", [CHILD, "garbage", str(1 << 20)]),
        ("big_output_1GiB", [CHILD, "bytes", str(1 << 30)]),
        ("stderr_flood", [CHILD, "bytes", str(4 << 20), "err"]),
    ]


# (name, server flags or None, url maker, permanent?)
RELAY_FAULTS = [
    ("down", None, lambda srv: "smtp://127.0.0.1:%d" % closed_port(), False),
    ("never_greets", ["--mode", "hang"], lambda srv: srv.url, False),
    ("hangs_mid_data", ["--mode", "greet-hang", "--hang-at", "data"], lambda srv: srv.url, False),
    ("421", ["--mode", "shutdown", "--fail-at", "rcpt"], lambda srv: srv.url, False),
    ("451", ["--mode", "tempfail", "--fail-at", "data"], lambda srv: srv.url, False),
    ("550_rcpt", ["--reject-rcpt-prefix", "cell-"], lambda srv: srv.url, True),
    ("tls_handshake", [], lambda srv: srv.url.replace("smtp://", "smtps://"), False),
    ("unresolvable", None, lambda srv: "smtp://no-such-relay.invalid:25", False),
]


class FaultMatrix(GpualertCase):
    def run_cell(self, ending, command, fault, url, bare):
        cell = "%s.%s" % (ending, fault)
        state = os.path.join(self.tmp, "cells", cell)
        rcpt = "cell-%s-%s@example.org" % (ending.replace("_", "-"), fault.replace("_", "-"))
        env = dict(self.env, GPUALERT_STATE_DIR=state, GPUALERT_TO=rcpt, GPUALERT_ADMIN_TO="admin@example.org",
                   GPUALERT_RETRY_BASE="1", GPUALERT_SEND_TIMEOUT="2")
        rd = os.path.join(state, "run")
        p = subprocess.run([GPUALERT, "run", "--run-dir", rd, "--smtp", url, "--"] + command, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300,
                           cwd=self.tmp)
        problems = []
        bare_rc, want = bare
        if p.returncode != bare_rc:
            problems.append("exit %d, bare %d" % (p.returncode, bare_rc))
        log = os.path.join(rd, "output.log")
        got = os.path.getsize(log) if os.path.exists(log) else -1
        # The log holds every byte (plus gpualert's own notes, e.g. an exec failure said once).
        if got < want:
            problems.append("log %d bytes, the job wrote %d" % (got, want))
        if got > 64 << 20:
            os.unlink(log)  # checked; eight 1 GiB logs would not fit a CI machine's disk
        return cell, state, rcpt, env, problems

    def test_endings_crossed_with_relay_faults(self):
        ends = endings(self.tmp)
        bare = {}  # ending -> (wait status as the shell reports it, bytes written)
        for name, cmd in ends:
            out_path = os.path.join(self.tmp, "bare.out")
            try:
                with open(out_path, "wb") as out:
                    rc = subprocess.run(cmd, stdout=out, stderr=out, timeout=120).returncode
                bare[name] = (rc, os.path.getsize(out_path))
            except OSError as e:  # the missing or non-executable program: what a shell would say
                bare[name] = (127 if "No such" in str(e) else 126, 0)
            os.unlink(out_path)
        table = {}
        failures = []
        with SmtpServer(self.tmp) as good:
            for fault, flags, make_url, permanent in RELAY_FAULTS:
                srv = SmtpServer(self.tmp, *flags) if flags is not None else None
                try:
                    url = make_url(srv)
                    with concurrent.futures.ThreadPoolExecutor(4) as pool:
                        cells = list(pool.map(lambda e: self.run_cell(e[0], e[1], fault, url, bare[e[0]]), ends))
                finally:
                    if srv:
                        faulty_msgs = srv.messages()
                        srv.stop()
                time.sleep(1.5)  # every deferred message is due again (retry_base 1 s, +-20 %)
                for cell, state, rcpt, env, problems in cells:
                    outbox = os.path.join(state, "outbox")
                    for _ in range(2):  # the fault has cleared; the second pass must add nothing
                        s = subprocess.run([GPUALERT, "sender", "--once", "--smtp", good.url], env=env,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
                        if s.returncode not in (0, 1):
                            problems.append("sender exit %d: %s" % (s.returncode, s.stderr.decode()[-300:]))
                    delivered = [m for m in good.messages() if m["To"] == rcpt]
                    failed = glob.glob(os.path.join(outbox, "failed", "*.json"))
                    pending = glob.glob(os.path.join(outbox, "pending", "*.eml"))
                    if permanent:
                        reasons = [read_json(f).get("reason", "") for f in failed]
                        if delivered or len(failed) != 1 or "550" not in "".join(reasons):
                            problems.append("550: delivered %d, failed/ %d %r" % (len(delivered), len(failed), reasons))
                        notices = [m for m in faulty_msgs if m["To"] == "admin@example.org" and rcpt in
                                   m.get_body(("plain",)).get_content()]
                        if len(notices) != 1:
                            problems.append("%d notices to the admins" % len(notices))
                        outcome = "failed/ + 1 notice"
                    else:
                        if len(delivered) != 1 or pending or failed:
                            problems.append("delivered %d, pending %d, failed %d" % (len(delivered), len(pending),
                                                                                      len(failed)))
                        outcome = "delivered once"
                    table[cell] = "ok: " + outcome if not problems else "FAIL: " + "; ".join(problems)
                    if problems:
                        failures.append("%s: %s" % (cell, "; ".join(problems)))
        names = [e[0] for e in ends]
        print("\n  fault matrix: %d endings x %d relay faults = %d cells, %d failed" %
              (len(ends), len(RELAY_FAULTS), len(table), len(failures)), flush=True)
        print("  %-18s %s" % ("ending", " ".join("%-14s" % f[0] for f in RELAY_FAULTS)), flush=True)
        for n in names:
            print("  %-18s %s" % (n, " ".join("%-14s" % ("ok" if table["%s.%s" % (n, f[0])].startswith("ok")
                                                           else "FAIL") for f in RELAY_FAULTS)), flush=True)
        self.assertEqual(failures, [])


class SenderFaults(GpualertCase):
    def setUp(self):
        super().setUp()
        self.env.update({"GPUALERT_TO": "alice@example.org", "GPUALERT_DELIVERY_LOG": "stderr"})

    def store_jobs(self, n):
        for i in range(n):
            r = self.gpualert(["--quiet"], [CHILD, "exit", str(1 + i % 5)], run_dir=self.run_dir("run%d" % i))
            self.assertEqual(r.returncode, 1 + i % 5)

    def pending(self):
        return glob.glob(os.path.join(self.outbox, "pending", "*.eml"))

    def test_a_sender_killed_in_the_middle_of_data_loses_nothing_and_sends_once(self):
        self.store_jobs(1)
        with SmtpServer(self.tmp, "--mode", "greet-hang", "--hang-at", "data") as stuck:
            p = subprocess.Popen([GPUALERT, "sender", "--once", "--smtp", stuck.url, "--send-timeout", "60"],
                                 env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.5)  # greeted, EHLO, MAIL, RCPT answered; DATA never is
            self.assertIsNone(p.poll(), "the sender should still be waiting in DATA")
            p.send_signal(signal.SIGKILL)
            p.wait()
        self.assertEqual(len(self.pending()), 1, "a sender killed mid-send must leave the message pending")
        leftovers = [f for f in os.listdir(os.path.join(self.outbox, "pending")) if ".tmp." in f]
        self.assertEqual(leftovers, [])
        with SmtpServer(self.tmp) as good:
            self.gpualert(["sender", "--once", "--smtp", good.url])
            self.gpualert(["sender", "--once", "--smtp", good.url])
            self.assertEqual(len(good.messages()), 1)
        self.assertEqual(self.pending(), [])

    def test_a_message_sent_twice_after_a_crash_keeps_its_message_id(self):
        # A crash after the relay accepted and before "sent" was recorded: the message is
        # sent again, with the same Message-ID, so the receiver can drop the copy.
        self.store_jobs(1)
        with SmtpServer(self.tmp) as good:
            self.gpualert(["sender", "--once", "--smtp", good.url])
            sent = glob.glob(os.path.join(self.outbox, "sent", "*"))
            for f in sent:  # as if the move to sent/ never happened
                os.rename(f, os.path.join(self.outbox, "pending", os.path.basename(f)))
            self.gpualert(["sender", "--once", "--smtp", good.url])
            got = good.messages()
        self.assertEqual(len(got), 2)
        self.assertEqual(got[0]["Message-ID"], got[1]["Message-ID"])

    def test_with_the_relay_down_for_a_long_while_every_message_arrives_once(self):
        # An outage of many retry periods, compressed: retries every 1-2 s (+-20 %) while
        # the relay is down for 8 s, the sender running as a service all along.
        self.store_jobs(10)
        port = closed_port()
        url = "smtp://127.0.0.1:%d" % port
        env = dict(self.env, GPUALERT_RETRY_BASE="1", GPUALERT_RETRY_MAX="2", GPUALERT_SENDER_INTERVAL="1",
                   GPUALERT_SEND_TIMEOUT="2")
        sender = subprocess.Popen([GPUALERT, "sender", "--smtp", url], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        try:
            time.sleep(8)
            self.assertIsNone(sender.poll(), "the service gave up during the outage")
            attempts = [read_json(m[:-4] + ".json").get("attempts", 0) for m in self.pending()]
            self.assertEqual(len(attempts), 10)
            # It kept trying during the outage: one message per pass (a dead relay costs one
            # attempt, the rest wait), each on its own backoff.
            self.assertGreaterEqual(sum(attempts), 5, attempts)
            with SmtpServer(self.tmp, "--port", str(port)) as back:
                for _ in range(60):
                    if len(back.messages()) >= 10 and not self.pending():
                        break
                    time.sleep(0.5)
                time.sleep(3)  # more passes: nothing more may arrive
                got = back.messages()
        finally:
            sender.send_signal(signal.SIGTERM)
            rc = sender.wait(timeout=30)
        self.assertEqual(rc, 0, "the service stops cleanly on SIGTERM")
        self.assertEqual(len(got), 10)
        self.assertEqual(len({m["Message-ID"] for m in got}), 10)
        self.assertEqual(self.pending(), [])


class SpoolFaults(GpualertCase):
    """The state directory (run logs and outbox) full, read-only, or removed while the job
    runs: the exit status is the bare run's, the log keeps what the disk allowed (all of
    it when the directory was only removed), and the message is delivered once."""

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("needs root to mount a small or read-only file system")
        self.mounts = []
        self.env.update({"GPUALERT_TO": "alice@example.org", "TMPDIR": os.path.join(self.tmp, "tmpdir"),
                         "GPUALERT_SEND_TIMEOUT": "2"})
        os.makedirs(self.env["TMPDIR"])

    def tearDown(self):
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-l", m], stderr=subprocess.DEVNULL)
        super().tearDown()

    def mount_tmpfs(self, size):
        os.makedirs(self.state, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s,mode=0700" % size, "tmpfs", self.state], check=True)
        self.mounts.append(self.state)

    def deliver_once(self):
        with SmtpServer(self.tmp) as good:
            for _ in range(2):
                self.gpualert(["sender", "--once", "--smtp", good.url], env={"GPUALERT_RETRY_BASE": "1"})
            return good.messages()

    def test_a_full_spool(self):
        self.mount_tmpfs("3m")
        self.assertEqual(self.gpualert(["--quiet"], [CHILD, "exit", "0"], run_dir=None).returncode, 0)
        r = self.gpualert([], [CHILD, "bytes", str(8 << 20)], run_dir=os.path.join(self.state, "big"))
        self.assertEqual(r.returncode, 0)
        self.assertIn("log", r.stderr.decode())
        got = [m for m in self.deliver_once() if "bytes" in m["Subject"] or "child_helper" in m["Subject"]]
        self.assertGreaterEqual(len(got), 1, r.stderr.decode()[-1500:])
        big = [m for m in got if "incomplete" in m.get_body(("plain",)).get_content()]
        self.assertEqual(len(big), 1, "the flooding job's message says its log is incomplete, once")

    def test_a_read_only_spool(self):
        self.mount_tmpfs("8m")
        os.makedirs(os.path.join(self.outbox, "pending"))
        subprocess.run(["mount", "-o", "remount,ro", self.state], check=True)
        r = self.gpualert([], ["/bin/sh", "-c", "echo 'RuntimeError: ro' >&2; exit 6"], run_dir=None)
        self.assertEqual(r.returncode, 6)
        self.assertIn("fallback", r.stderr.decode())
        got = self.deliver_once()
        self.assertEqual(len(got), 1, r.stderr.decode()[-1500:])
        self.assertEqual(got[0]["X-Gpualert-Class"], "runtime_error")

    def test_the_spool_removed_while_the_job_runs(self):
        os.makedirs(self.state, exist_ok=True)
        p = subprocess.Popen([GPUALERT, "run", "--", "/bin/sh", "-c",
                              "echo before; sleep 1.5; echo 'RuntimeError: after the removal' >&2; exit 5"],
                             env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.tmp)
        time.sleep(0.7)
        subprocess.run(["rm", "-rf", self.state], check=True)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 5)
        self.assertIn("restored from the open file", err.decode())
        (log,) = glob.glob(os.path.join(self.state, "runs", "*", "output.log"))
        with open(log, "rb") as f:
            text = f.read()
        self.assertIn(b"before", text)
        self.assertIn(b"RuntimeError: after the removal", text)
        got = self.deliver_once()
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0]["X-Gpualert-Class"], "runtime_error")
