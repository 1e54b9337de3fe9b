"""Every run gets its message, whatever it printed: a 1 GiB log of realistic training
output ending in a CUDA OOM is diagnosed within the post-run deadline (from the part of
the log there was time to read, which the message names), the message is in the outbox
before the wrapper exits, and no staging file is left behind."""
import glob
import os
import subprocess

from harness import GpualertCase, parse_message

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
