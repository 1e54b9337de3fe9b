"""Bad settings and unwritable places get a clear error; the job still runs and is still logged."""
import os
import subprocess

from harness import CHILD, GPUALERT, GpualertCase


class ConfigAndDirs(GpualertCase):
    def test_malformed_config_names_file_and_line(self):
        conf = os.path.join(self.home, ".config", "gpualert", "gpualert.conf")
        os.makedirs(os.path.dirname(conf))
        with open(conf, "w") as f:
            f.write("# mine\nto = bob@example.org\nthis line is wrong\nsend_timeout = soon\nnot_a_key = 1\n")
        r = self.gpualert([], [CHILD, "exit", "3"])
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 3)
        self.assertIn(conf + ":3: expected 'key = value'", err)
        self.assertIn(conf + ":4: send_timeout", err)
        self.assertIn(conf + ":5: unknown setting 'not_a_key'", err)
        msgs = self.outbox_messages()
        self.assertEqual(msgs[0]["To"], "bob@example.org")  # the good line still applied

    def test_precedence_flag_over_env_over_file(self):
        with open(self.env["GPUALERT_SYSTEM_CONFIG"], "w") as f:
            f.write("to = system@example.org\n")
        r = self.gpualert([], [CHILD, "exit", "0"], run_dir=self.run_dir("a"))
        self.assertEqual(self.outbox_messages()[-1]["To"], "system@example.org")
        r = self.gpualert([], [CHILD, "exit", "0"], env={"GPUALERT_TO": "env@example.org"}, run_dir=self.run_dir("b"))
        self.assertIn("env@example.org", [m["To"] for m in self.outbox_messages()])
        r = self.gpualert(["--to", "flag@example.org"], [CHILD, "exit", "0"], env={"GPUALERT_TO": "env@example.org"},
                          run_dir=self.run_dir("c"))
        self.assertIn("flag@example.org", [m["To"] for m in self.outbox_messages()])
        self.assertEqual(r.returncode, 0)

    def test_unwritable_state_dir_falls_back(self):
        # A file where the state directory should be: cannot be created, even by root.
        blocker = os.path.join(self.tmp, "blocker")
        open(blocker, "w").close()
        env = {"GPUALERT_STATE_DIR": os.path.join(blocker, "state"), "TMPDIR": os.path.join(self.tmp, "tmpdir")}
        os.makedirs(env["TMPDIR"])
        e = dict(self.env)
        e.update(env)
        p = subprocess.run([GPUALERT, "run", "--", CHILD, "interleave", "3"], env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=self.tmp)
        self.assertEqual(p.returncode, 3)
        self.assertIn(b"fallback directory", p.stderr)
        runs = os.path.join(env["TMPDIR"], "gpualert-%d" % os.getuid(), "runs")
        (only,) = os.listdir(runs)
        with open(os.path.join(runs, only, "output.log"), "rb") as f:
            self.assertIn(b"out 2\n", f.read())

    def test_run_dir_reuse_keeps_previous_run(self):
        self.gpualert([], [CHILD, "exit", "1"])
        r = self.gpualert([], [CHILD, "exit", "2"])
        self.assertEqual(r.json("run.json")["exit_code"], 2)
        prev = [d for d in os.listdir(r.run_dir) if d.startswith("previous-")]
        self.assertEqual(len(prev), 1)
        self.assertTrue(os.path.exists(os.path.join(r.run_dir, prev[0], "output.log")))

    def test_bad_smtp_url_flag_is_reported_not_fatal(self):
        r = self.gpualert(["--smtp", "http://evil"], [CHILD, "exit", "0"])
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"must start with smtp://", r.stderr)
