"""Every run gets its message, whatever it printed: a 1 GiB and a 10 GiB log of realistic
training output ending in a CUDA OOM are diagnosed within the post-run deadline (from the
part of the log there was time to read or that the log kept, which the message names),
the message is in the outbox (and at a real SMTP server) before the wrapper exits, the
10 GiB log takes no more disk than log_max, and no staging file is left behind."""
import glob
import os
import subprocess

from harness import GpualertCase, SmtpServer, message_parts, parse_message

# Writes SIZE bytes of training chatter to stdout, then an OOM traceback to stderr, exit 1
# (the benchmark's generator: one definition of "realistic").
GENERATOR_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "classifier",
                              "realistic_log.py")


class BigLogs(GpualertCase):
    def test_a_one_gigabyte_log_still_gets_its_message(self):
        tmpdir = os.path.join(self.tmp, "tmp")
        os.makedirs(tmpdir)
        gen = GENERATOR_PATH
        r = self.gpualert([], ["/usr/bin/python3", gen, str(1 << 30)], env={"TMPDIR": tmpdir},
                          stdout=subprocess.DEVNULL, timeout=600)
        self.assertEqual(r.returncode, 1, r.stderr[-2000:])
        self.assertGreaterEqual(os.path.getsize(os.path.join(r.run_dir, "output.log")), 1 << 30)
        msgs = self.outbox_messages()
        self.assertEqual(len(msgs), 1, "no message for a run that printed 1 GiB: %s" % r.stderr[-2000:])
        m = msgs[0]
        text = m.get_body(("plain",)).get_content()
        self.assertEqual(m["X-Gpualert-Class"], "cuda_oom", text[:3000])
        verdict = r.json("verdict.json")
        if verdict.get("partial_scan"):
            self.assertIn("were not read", text, "a partly read log must say which part was not read")
        print("\n  1 GiB log: %s MiB classified; %s" % (verdict.get("bytes_read", 0) >> 20,
                                                      "partial" if verdict.get("partial_scan") else "whole"),
              flush=True)
        self.assertEqual(glob.glob(os.path.join(tmpdir, "gpualert-attach-*")), [], "a staging file was left behind")

    def test_a_ten_gigabyte_log_is_kept_within_log_max_and_still_gets_its_message(self):
        tmpdir = os.path.join(self.tmp, "tmp")
        os.makedirs(tmpdir)
        log_max = 1 << 30
        with SmtpServer(self.tmp) as srv:
            r = self.gpualert(["--smtp", srv.url, "--to", "alice@example.org", "--log-max", "1GiB"],
                              ["/usr/bin/python3", GENERATOR_PATH, str(10 << 30)], env={"TMPDIR": tmpdir},
                              stdout=subprocess.DEVNULL, timeout=1200)
            sent = srv.messages()
        self.assertEqual(r.returncode, 1, r.stderr[-2000:])
        log = os.path.join(r.run_dir, "output.log")
        st = os.stat(log)
        # Offsets stay exact (the file is as long as the output), the disk holds about log_max.
        self.assertGreaterEqual(st.st_size, 10 << 30)
        self.assertLessEqual(st.st_blocks * 512, log_max + (128 << 20), "the log took more disk than log_max")
        with open(log, "rb") as f:
            f.seek(st.st_size - (1 << 20))
            self.assertIn(b"CUDA out of memory", f.read(), "the log lost its end")
        self.assertEqual(len(sent), 1, "no message reached the relay: %s" % r.stderr[-2000:])
        self.assertEqual(self.outbox_messages("pending"), [])
        self.assertEqual(len(self.outbox_messages("sent")), 1)
        m = sent[0]
        body, _ = message_parts(m)
        self.assertEqual(m["X-Gpualert-Class"], "cuda_oom", body[:3000])
        verdict = r.json("verdict.json")
        self.assertTrue(verdict.get("partial_scan"), verdict)
        self.assertIn("not in the log file", body, "the message must say which part of the log was not kept")
        print("\n  10 GiB log: %d MiB on disk, %s MiB classified" % (st.st_blocks * 512 >> 20,
                                                                   verdict.get("bytes_read", 0) >> 20), flush=True)
        self.assertEqual(glob.glob(os.path.join(tmpdir, "gpualert-attach-*")), [], "a staging file was left behind")
