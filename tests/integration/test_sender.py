"""The sender (`gpualert sender --once`) against a real SMTP server on loopback: what
jobs left in the outbox (no relay, or the spool transport) is delivered once; a
temporary refusal is retried after its backoff and then delivered once; a permanent
refusal goes to failed/ with the server's reply and the admins get one notice; an old
message expires the same way; two senders on one spool never send a message twice;
every outcome is in the delivery log."""
import glob
import json
import os
import subprocess
import threading
import time

from harness import GpualertCase, SmtpServer


class Sender(GpualertCase):
    def setUp(self):
        super().setUp()
        self.env["GPUALERT_DELIVERY_LOG"] = "stderr"
        self.env["GPUALERT_TO"] = "alice@example.org"

    def failing_jobs(self, n):
        """N real jobs that fail, each leaving its message in the outbox (no relay)."""
        for i in range(n):
            r = self.gpualert(["--quiet"], ["/bin/sh", "-c", "echo 'RuntimeError: job %d' >&2; exit 3" % i],
                              run_dir=self.run_dir("run%d" % i))
            self.assertEqual(r.returncode, 3)
        self.assertEqual(len(self.pending_ids()), n)

    def pending_ids(self):
        return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(self.outbox, "pending", "*.eml")))

    def failed_ids(self):
        return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(self.outbox, "failed", "*.eml")))

    def meta(self, sub, mid):
        with open(os.path.join(self.outbox, sub, mid + ".json")) as f:
            return json.load(f)

    def sender(self, url, env=None):
        r = self.gpualert(["sender", "--once", "--smtp", url], env=env, timeout=120)
        return r

    def test_what_jobs_left_in_the_outbox_is_delivered_once(self):
        self.failing_jobs(3)
        with SmtpServer(self.tmp) as srv:
            r = self.sender(srv.url)
            again = self.sender(srv.url)
            got = srv.messages()
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(again.returncode, 0, again.stderr.decode())
        self.assertEqual(len(got), 3)
        self.assertEqual(len({m["Message-ID"] for m in got}), 3)
        self.assertEqual(self.pending_ids(), [])
        self.assertEqual(len(self.outbox_messages("sent")), 3)
        self.assertEqual(r.stderr.decode().count("gpualert delivery: sent message"), 3)

    def test_a_temporary_refusal_is_retried_after_its_backoff_then_delivered_once(self):
        self.failing_jobs(1)
        mid = self.pending_ids()[0]
        env = {"GPUALERT_RETRY_BASE": "3"}
        with SmtpServer(self.tmp, "--mode", "tempfail") as bad:
            t0 = time.time()
            r = self.sender(bad.url, env)
            soon = self.sender(bad.url, env)  # not due yet: not tried
        self.assertIn("deferred message " + mid, r.stderr.decode())
        self.assertIn("451", r.stderr.decode())
        m = self.meta("pending", mid)
        self.assertEqual(m["attempts"], 1, m)
        self.assertEqual(m["last_code"], 451, m)
        self.assertGreaterEqual(m["next_attempt_unix"], int(t0 + 3 * 0.8) - 1, m)
        self.assertLessEqual(m["next_attempt_unix"], int(t0 + 3 * 1.2) + 2, m)
        self.assertNotIn("message " + mid, soon.stderr.decode(), "tried again before its backoff ran out")
        with SmtpServer(self.tmp) as good:
            time.sleep(max(0, m["next_attempt_unix"] - time.time()) + 1.0)
            r2 = self.sender(good.url, env)
            r3 = self.sender(good.url, env)
            got = good.messages()
        self.assertEqual(len(got), 1, r2.stderr.decode())
        self.assertEqual(self.pending_ids(), [])
        self.assertNotIn("sent message", r3.stderr.decode())

    def test_a_permanent_refusal_goes_to_failed_and_the_admins_get_one_notice(self):
        self.env["GPUALERT_TO"] = "nobody@example.org"
        self.env["GPUALERT_ADMIN_TO"] = "admin@example.org"
        self.failing_jobs(1)
        mid = self.pending_ids()[0]
        with SmtpServer(self.tmp, "--reject-rcpt", "nobody@example.org") as srv:
            r = self.sender(srv.url)
            again = self.sender(srv.url)
            got = srv.messages()
        self.assertEqual(self.failed_ids(), [mid], r.stderr.decode())
        m = self.meta("failed", mid)
        self.assertIn("550", m["reason"])
        self.assertEqual(m["last_code"], 550)
        self.assertIn("failed message " + mid, r.stderr.decode())
        # One notice, to the admins, naming the message and the reply; nothing for the refused one.
        self.assertEqual(len(got), 1, [g["To"] for g in got])
        self.assertEqual(got[0]["To"], "admin@example.org")
        body = got[0].get_body(("plain",)).get_content()
        self.assertIn(mid, body)
        self.assertIn("550", body)
        self.assertEqual(self.pending_ids(), [])
        self.assertNotIn("message " + mid, again.stderr.decode())
        # Put back by hand once the cause is fixed, it goes out.
        self.assertEqual(self.gpualert(["outbox", "retry", mid]).returncode, 0)
        self.assertEqual(self.pending_ids(), [mid])
        with SmtpServer(self.tmp) as srv:
            self.sender(srv.url)
            self.assertEqual([g["To"] for g in srv.messages()], ["nobody@example.org"])

    def test_an_old_message_expires_into_failed_with_one_notice(self):
        self.env["GPUALERT_ADMIN_TO"] = "admin@example.org"
        self.failing_jobs(1)
        mid = self.pending_ids()[0]
        time.sleep(2.2)
        with SmtpServer(self.tmp) as srv:
            r = self.sender(srv.url, {"GPUALERT_EXPIRE_AFTER": "1"})
            got = srv.messages()
        self.assertEqual(self.failed_ids(), [mid], r.stderr.decode())
        self.assertIn("expired", self.meta("failed", mid)["reason"])
        self.assertIn("expired message " + mid, r.stderr.decode())
        self.assertEqual([g["To"] for g in got], ["admin@example.org"])

    def test_two_senders_on_one_spool_never_send_a_message_twice(self):
        self.failing_jobs(24)
        with SmtpServer(self.tmp) as srv:
            results = []

            def one():
                results.append(self.sender(srv.url))

            threads = [threading.Thread(target=one) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            got = srv.messages()
        self.assertEqual(len(got), 24, [r.stderr.decode()[-500:] for r in results])
        self.assertEqual(len({m["Message-ID"] for m in got}), 24)
        self.assertEqual(self.pending_ids(), [])

    def test_the_send_rate_holds_a_burst_back_without_losing_it(self):
        self.failing_jobs(5)
        with SmtpServer(self.tmp) as srv:
            r = self.sender(srv.url, {"GPUALERT_RATE_RECIPIENT": "2"})
            first = len(srv.messages())
        self.assertEqual(first, 2, r.stderr.decode())
        self.assertEqual(len(self.pending_ids()), 3, "what was held back must stay pending")


class Digests(GpualertCase):
    """A burst of failures to one recipient: the first ones go at once, the rest are held
    and go out as one digest once the burst is quiet; nothing is held where no sender runs."""

    def setUp(self):
        super().setUp()
        self.env.update({"GPUALERT_DELIVERY_LOG": "stderr", "GPUALERT_TO": "alice@example.org",
                         "GPUALERT_DIGEST_BURST": "3"})

    def failing_jobs(self, n, url, start=0):
        results = []
        for i in range(start, start + n):
            code = "import sys; print('step 1 loss 2.0'); sys.stderr.write('RuntimeError: boom %d\\n'); sys.exit(3)" % i
            results.append(self.gpualert(["--quiet", "--smtp", url], ["/usr/bin/python3", "-c", code],
                                         run_dir=self.run_dir("run%d" % i)))
        for r in results:
            self.assertEqual(r.returncode, 3)
        return results

    def sender(self, url, quiet="60"):
        return self.gpualert(["sender", "--once", "--smtp", url], env={"GPUALERT_DIGEST_QUIET": quiet})

    def test_a_burst_is_folded_into_one_digest_once_quiet(self):
        with SmtpServer(self.tmp) as srv:
            self.assertEqual(self.sender(srv.url).returncode, 0)  # a sender runs here
            self.failing_jobs(7, srv.url)
            self.assertEqual(len(srv.messages()), 3, "the first failures of a burst go at once")
            during = self.sender(srv.url)  # the burst is not quiet yet: nothing assembled
            self.assertEqual(len(srv.messages()), 3, during.stderr.decode())
            # "Why no mail yet?": the list says each held message waits for its digest.
            listing = self.gpualert(["outbox", "list"]).stdout.decode()
            self.assertEqual(listing.count("held for digest burst:alice@example.org"), 4, listing)
            time.sleep(1.2)
            after = self.sender(srv.url, quiet="1")
            got = srv.messages()
        self.assertEqual(len(got), 4, after.stderr.decode())
        digest = got[-1]
        self.assertEqual(digest["X-Gpualert-Digest"], "4")
        self.assertIn("4 more jobs ended badly", digest["Subject"])
        body = digest.get_body(("plain",)).get_content()
        self.assertIn("runtime_error", body)
        self.assertIn("RuntimeError: boom", body)  # the worst case's evidence
        rows = [l for l in body.splitlines() if l.startswith("  python3 ")]
        self.assertEqual(len(rows), 4, body)  # one row per folded job
        # Nothing lost: every message is in sent/, the folded ones naming their digest.
        self.assertEqual(glob.glob(os.path.join(self.outbox, "pending", "*.eml")), [])
        records = [json.load(open(p)) for p in glob.glob(os.path.join(self.outbox, "sent", "*.json"))]
        self.assertEqual(len(records), 8)
        self.assertEqual(sum(1 for r in records if r.get("folded_into")), 4)

    def test_without_a_sender_nothing_is_held(self):
        with SmtpServer(self.tmp) as srv:
            self.failing_jobs(5, srv.url)
            got = srv.messages()
        self.assertEqual(len(got), 5)
        self.assertEqual(glob.glob(os.path.join(self.outbox, "pending", "*.eml")), [])
