"""The pre-launch guarantee: even a command that never starts leaves a log and a verdict."""
import os

from harness import GpualertCase


class ExecFailure(GpualertCase):
    def test_missing_binary(self):
        r = self.gpualert([], ["no-such-binary-xyz", "--flag"])
        self.assertEqual(r.returncode, 127)
        log = r.file("output.log").decode()
        self.assertIn("cannot execute 'no-such-binary-xyz'", log)
        self.assertIn("command not found", log)
        v = r.json("verdict.json")
        self.assertNotIn(v["class"], ("healthy", "unknown"))
        self.assertTrue(r.json("run.json")["exec_failed"])
        # A shell redirect would leave nothing; we leave the log and a queued message.
        self.assertEqual(len(self.outbox_messages()), 1)

    def test_not_executable_and_bad_interpreter(self):
        plain = os.path.join(self.tmp, "data.txt")
        with open(plain, "w") as f:
            f.write("not a program\n")
        os.chmod(plain, 0o644)
        badi = os.path.join(self.tmp, "script.sh")
        with open(badi, "w") as f:
            f.write("#!/nonexistent/interpreter\necho hi\n")
        os.chmod(badi, 0o755)
        for path, why in ((plain, "Permission denied"), (badi, "bad interpreter")):
            with self.subTest(path=os.path.basename(path)):
                r = self.gpualert([], [path], run_dir=self.run_dir("rd-" + os.path.basename(path)))
                self.assertEqual(r.returncode, 126, r.stderr)
                self.assertIn(why, r.file("output.log").decode())


class MistypedOption(GpualertCase):
    def test_an_unknown_option_is_refused_not_run_as_the_command(self):
        r = self.gpualert(["run", "--bogus-flag", "--", "true"])
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("unknown option '--bogus-flag'", r.stderr.decode())
        self.assertEqual(self.outbox_messages(), [], "a message was queued for a run that never was")
        # A command's own options after its name stay the command's.
        ok = self.gpualert(["run", "--quiet", "sh", "-c", "exit 3"])
        self.assertEqual(ok.returncode, 3, ok.stderr.decode())
