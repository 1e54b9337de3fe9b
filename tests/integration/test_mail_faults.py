"""Notifier isolation, part two: whatever the relay does, exit status is the child's and the message is kept."""
import subprocess

from harness import CHILD, GPUALERT, GpualertCase, SmtpServer, closed_port


class MailFaults(GpualertCase):
    def check_kept(self, r, code):
        self.assertEqual(r.returncode, code, r.stderr)
        pending = self.outbox_messages("pending")
        self.assertEqual(len(pending), 1)
        self.assertIn("NOT sent", r.stderr.decode())

    def test_port_closed(self):
        url = "smtp://127.0.0.1:%d" % closed_port()
        r = self.gpualert(["--smtp", url, "--send-timeout", "3"], [CHILD, "exit", "7"])
        self.check_kept(r, 7)
        self.assertLess(r.elapsed, 10)

    def test_silent_relays_are_abandoned_in_time(self):
        for mode in (["--mode", "hang"], ["--mode", "greet-hang", "--hang-at", "data"]):
            with self.subTest(mode=mode[1]):
                self.outbox_cleanup()
                with SmtpServer(self.tmp, *mode) as srv:
                    r = self.gpualert(["--smtp", srv.url, "--send-timeout", "2"], [CHILD, "segv"],
                                      run_dir=self.run_dir(mode[1]))
                self.assertEqual(r.returncode, -11)
                self.assertEqual(len(self.outbox_messages("pending")), 1)
                self.assertLess(r.elapsed, 2 + 8)

    def test_4xx_and_5xx_replies(self):
        for mode, code in (("tempfail", 2), ("reject", 255)):
            with self.subTest(mode=mode):
                self.outbox_cleanup()
                with SmtpServer(self.tmp, "--mode", mode) as srv:
                    r = self.gpualert(["--smtp", srv.url], [CHILD, "exit", str(code)], run_dir=self.run_dir(mode))
                if mode == "tempfail":  # retried later
                    self.check_kept(r, code)
                    continue
                # A 5xx is never retried: the message is kept in failed/ with the reply, and said so.
                self.assertEqual(r.returncode, code, r.stderr)
                self.assertEqual(self.outbox_messages("pending"), [])
                self.assertEqual(len(self.outbox_messages("failed")), 1)
                self.assertIn("refused by the relay", r.stderr.decode())
                self.assertIn("550", r.stderr.decode())
                self.assertIn("gpualert outbox retry", r.stderr.decode())

    def test_flush_delivers_what_was_kept(self):
        url = "smtp://127.0.0.1:%d" % closed_port()
        r = self.gpualert(["--smtp", url, "--send-timeout", "2"], [CHILD, "exit", "1"])
        self.check_kept(r, 1)
        with SmtpServer(self.tmp) as srv:
            p = subprocess.run([GPUALERT, "outbox", "flush", "--smtp", srv.url], env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            msgs = srv.messages()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"1 sent, 0 still pending", p.stdout)
        self.assertEqual(len(msgs), 1)
        self.assertEqual(self.outbox_messages("pending"), [])

    def outbox_cleanup(self):
        import shutil
        shutil.rmtree(self.outbox, ignore_errors=True)
