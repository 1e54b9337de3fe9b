"""A real SMTP server on loopback receives the verdict, the log and the not-attached list."""
import os

from harness import CHILD, GpualertCase, SmtpServer, message_parts


class MailDelivery(GpualertCase):
    def test_failure_is_mailed_with_log_attached(self):
        code = ("import sys\nprint('epoch 1 loss 2.31', flush=True)\n"
                "print('Traceback (most recent call last):', file=sys.stderr)\n"
                "raise ZeroDivisionError('division by zero')\n")
        with SmtpServer(self.tmp) as srv:
            r = self.gpualert(["--smtp", srv.url, "--to", "alice@example.org"], ["/usr/bin/python3", "-c", code])
            msgs = srv.messages()
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(msgs), 1)
        m = msgs[0]
        self.assertTrue(m["Subject"].startswith("[gpualert] FAILED div_zero: python3"), m["Subject"])
        self.assertEqual(m["To"], "alice@example.org")
        self.assertEqual(m["X-Gpualert-Class"], "div_zero")
        body, atts = message_parts(m)
        self.assertIn("What the data shows", body)
        self.assertIn("What it cannot decide", body)
        self.assertIn("ZeroDivisionError", body)
        self.assertEqual(atts["output.log"], r.file("output.log"))
        self.assertEqual(self.outbox_messages("pending"), [])
        self.assertEqual(len(self.outbox_messages("sent")), 1)
        self.assertIn("sent to alice@example.org", r.stderr.decode())

    def test_budget_names_what_did_not_fit(self):
        big = os.path.join(self.tmp, "model.ckpt")
        with open(big, "wb") as f:
            f.write(os.urandom(3 << 20))  # random: does not compress below the budget
        small = os.path.join(self.tmp, "metrics.json")
        with open(small, "w") as f:
            f.write('{"loss": 0.1}\n')
        outside = os.path.join(os.path.dirname(self.tmp), "gpualert-outside-%d" % os.getpid())
        with open(outside, "w") as f:
            f.write("secret\n")
        os.symlink(outside, os.path.join(self.tmp, "link.json"))
        try:
            with SmtpServer(self.tmp) as srv:
                r = self.gpualert(["--smtp", srv.url, "--attach-budget", "1MiB", "--artifact", "*.ckpt",
                                   "--artifact", "*.json", "--artifact", "nothing-*.bin"],
                                  [CHILD, "bytes", str(2 << 20)])
                msgs = srv.messages()
        finally:
            os.unlink(outside)
        self.assertEqual(r.returncode, 0)
        body, atts = message_parts(msgs[0])
        self.assertEqual(atts.get("metrics.json"), b'{"loss": 0.1}\n')
        self.assertNotIn("model.ckpt", atts)
        self.assertNotIn("link.json", atts)
        self.assertIn("NOT attached: " + os.path.realpath(big), body)
        self.assertIn("3.0 MiB", body)
        self.assertIn("leads outside the working directory", body)
        self.assertIn("matched nothing", body)
        # 2 MiB of repetitive log: over budget raw, fits compressed, so it travels as .gz
        self.assertIn("output.log.gz", atts)
        # The tail is inline whatever happened to the log.
        self.assertIn("Last 40 lines of the log", body)

    def test_no_relay_goes_to_local_outbox(self):
        r = self.gpualert([], [CHILD, "exit", "4"])
        self.assertEqual(r.returncode, 4)
        msgs = self.outbox_messages()
        self.assertEqual(len(msgs), 1)
        self.assertIn("FAILED", msgs[0]["Subject"])
        self.assertIn("no relay configured; the message is in the local outbox", r.stderr.decode())

    def test_header_injection_in_command_name(self):
        evil = os.path.join(self.tmp, "job\r\nBcc: evil@example.org")
        os.symlink(CHILD, evil)
        with SmtpServer(self.tmp) as srv:
            r = self.gpualert(["--smtp", srv.url], [evil, "exit", "1"])
            msgs = srv.messages()
        self.assertEqual(r.returncode, 1)
        self.assertIsNone(msgs[0]["Bcc"])
        self.assertNotIn("\n", msgs[0]["Subject"])

    def test_notify_failures_leaves_out_only_the_runs_that_went_well(self):
        conf_dir = os.path.join(self.home, ".config", "gpualert")
        os.makedirs(conf_dir)
        with open(os.path.join(conf_dir, "gpualert.conf"), "w") as f:
            f.write("notify = failures\n")
        with SmtpServer(self.tmp) as srv:
            ok = self.gpualert(["--smtp", srv.url], [CHILD, "exit", "0"])
            failed = self.gpualert(["--smtp", srv.url], [CHILD, "exit", "3"])
            msgs = srv.messages()
        self.assertEqual((ok.returncode, failed.returncode), (0, 3))
        self.assertIn("not sent: notify = failures and the run was OK", ok.stderr.decode())
        self.assertEqual(len(msgs), 1)
        self.assertIn("FAILED", msgs[0]["Subject"])
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "run", "verdict.json")), "the verdict is kept")

