""""Why did I get no mail?" answered by the journal: with a real systemd-journald, every
delivery outcome of a job's message is a journal entry with the GPUALERT_* fields, and
`journalctl GPUALERT_JOB_ID=N` (a `gpualert run` inside Slurm job N) lists them.
Starts a journald when none runs (root), and stops only the one it started."""
import json
import os
import shutil
import subprocess
import time
import unittest

from harness import CHILD, GpualertCase, SmtpServer

JOURNALD = "/lib/systemd/systemd-journald"


def journald_running():
    return subprocess.run(["pgrep", "-x", "systemd-journal"], stdout=subprocess.DEVNULL).returncode == 0


class DeliveryJournal(GpualertCase):
    @classmethod
    def setUpClass(cls):
        cls.started = None
        if journald_running():
            return
        if os.geteuid() != 0 or not os.path.exists(JOURNALD) or not shutil.which("journalctl"):
            raise unittest.SkipTest("needs root and systemd-journald")
        os.makedirs("/run/systemd/journal", exist_ok=True)
        if os.path.exists("/run/systemd/journal/socket"):
            os.unlink("/run/systemd/journal/socket")
        cls.started = subprocess.Popen([JOURNALD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists("/run/systemd/journal/socket"):
                break
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        if cls.started:
            cls.started.terminate()
            cls.started.wait()

    def entries(self, **match):
        args = ["journalctl", "--no-pager", "-o", "json"] + ["%s=%s" % kv for kv in match.items()]
        for _ in range(40):  # the journal may take a moment to show what it was sent
            out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
            found = [json.loads(l) for l in out.splitlines() if l.strip()]
            if found:
                return found
            time.sleep(0.25)
        return []

    def test_every_outcome_of_a_jobs_message_is_in_the_journal(self):
        job = str(900000 + os.getpid() % 99999)
        self.env.update({"GPUALERT_TO": "alice@example.org", "SLURM_JOB_ID": job, "GPUALERT_RETRY_BASE": "1"})
        with SmtpServer(self.tmp, "--mode", "tempfail", "--fail-at", "rcpt") as bad:
            r = self.gpualert(["--smtp", bad.url], [CHILD, "exit", "4"])
        self.assertEqual(r.returncode, 4)
        time.sleep(1.5)
        with SmtpServer(self.tmp) as good:
            self.gpualert(["sender", "--once", "--smtp", good.url])
            self.assertEqual(len(good.messages()), 1)
        seen = self.entries(GPUALERT_JOB_ID=job)
        outcomes = [e.get("GPUALERT_DELIVERY") for e in seen]
        self.assertIn("deferred", outcomes, seen)
        self.assertIn("sent", outcomes, seen)
        deferred = [e for e in seen if e.get("GPUALERT_DELIVERY") == "deferred"][0]
        self.assertEqual(deferred.get("GPUALERT_SMTP_CODE"), "451")
        self.assertIn("451", deferred.get("GPUALERT_REPLY", ""))
        self.assertTrue(deferred.get("GPUALERT_USER"), deferred)
        self.assertTrue(deferred.get("GPUALERT_CLASS"), deferred)
        self.assertEqual(deferred.get("GPUALERT_RECIPIENTS"), "alice@example.org")
        ids = {e.get("GPUALERT_MESSAGE_ID") for e in seen}
        self.assertEqual(len(ids), 1, "one message, several outcomes")
