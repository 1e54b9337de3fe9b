"""The sendmail transport with a real Postfix: a job's message is handed to the node's
MTA (`sendmail -oi -f FROM -- RCPT`), Postfix queues it and relays it to a real SMTP
server on loopback. A hand-off that fails (no MTA program) keeps the message in our
outbox, and the sender hands it over later. Postfix's configuration is put back after.

Needs root and Debian's postfix package (.ci/run installs it)."""
import os
import shutil
import subprocess
import time
import unittest

from harness import GpualertCase, SmtpServer

POSTFIX = "/usr/sbin/postfix"
MAIN_CF = "/etc/postfix/main.cf"


def postconf(*settings):
    subprocess.run(["postconf", "-e"] + list(settings), check=True)


def postfix(action):
    return subprocess.run([POSTFIX, action], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class SendmailPostfix(GpualertCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root (Postfix is the node's MTA)")
        if not os.path.exists(POSTFIX):
            raise AssertionError("Postfix is not installed: apt-get install postfix (.ci/run does)")
        cls.saved = MAIN_CF + ".gpualert-test"
        shutil.copy2(MAIN_CF, cls.saved)

    @classmethod
    def tearDownClass(cls):
        postfix("stop")
        shutil.copy2(cls.saved, MAIN_CF)
        os.unlink(cls.saved)

    def relay_to(self, srv):
        # Everything leaves through our test server; nothing is delivered locally.
        postconf("relayhost = [127.0.0.1]:%d" % srv.port, "default_transport = smtp", "relay_transport = smtp",
                 "mydestination =", "smtp_tls_security_level = none", "inet_interfaces = loopback-only",
                 "smtp_host_lookup = native", "disable_dns_lookups = yes")
        if postfix("status").returncode == 0:
            postfix("reload")
        else:
            r = postfix("start")
            self.assertEqual(r.returncode, 0, r.stderr.decode())
        subprocess.run([POSTFIX, "flush"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait_for(self, srv, n, seconds=60):
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            got = srv.messages()
            if len(got) >= n:
                return got
            subprocess.run([POSTFIX, "flush"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        return srv.messages()

    def test_a_jobs_message_goes_through_postfix_to_the_relay(self):
        with SmtpServer(self.tmp) as srv:
            self.relay_to(srv)
            r = self.gpualert(["--to", "alice@example.org"], ["/bin/sh", "-c", "echo 'RuntimeError: boom' >&2; exit 4"],
                              env={"GPUALERT_TRANSPORT": "sendmail", "GPUALERT_DELIVERY_LOG": "stderr"})
            got = self.wait_for(srv, 1)
        self.assertEqual(r.returncode, 4)
        self.assertIn("via the node's MTA (/usr/sbin/sendmail)", r.stderr.decode())
        self.assertEqual(len(got), 1, r.stderr.decode())
        self.assertEqual(got[0]["To"], "alice@example.org")
        self.assertEqual(got[0]["X-Gpualert-Class"], "runtime_error")
        # Postfix added its own trace: it really went through the MTA.
        self.assertTrue(any("postfix" in h.lower() or "Postfix" in h for h in got[0].get_all("Received", [])),
                        got[0].get_all("Received", []))
        self.assertEqual(self.outbox_messages("pending"), [])
        self.assertEqual(len(self.outbox_messages("sent")), 1)

    def test_a_failed_hand_off_stays_in_the_outbox_until_the_sender_hands_it_over(self):
        with SmtpServer(self.tmp) as srv:
            self.relay_to(srv)
            r = self.gpualert(["--to", "bob@example.org"], ["/bin/sh", "-c", "exit 2"],
                              env={"GPUALERT_TRANSPORT": "sendmail", "GPUALERT_SENDMAIL_PATH": "/nonexistent/sendmail",
                                   "GPUALERT_RETRY_BASE": "1"})
            self.assertEqual(r.returncode, 2)
            self.assertIn("NOT sent", r.stderr.decode())
            self.assertEqual(len(self.outbox_messages("pending")), 1)
            time.sleep(1.5)  # its retry (1 s +- 20 %) is due
            s = self.gpualert(["sender", "--once"], env={"GPUALERT_TRANSPORT": "sendmail"})
            got = self.wait_for(srv, 1)
        self.assertEqual(s.returncode, 0, s.stderr.decode())
        self.assertEqual([g["To"] for g in got], ["bob@example.org"])
        self.assertEqual(self.outbox_messages("pending"), [])
