"""Notifier isolation, part one: the wrapper ends exactly as its child did."""
import os
import resource
import signal

from harness import CHILD, GPUALERT, GpualertCase


class ExitStatus(GpualertCase):
    def test_exit_codes_pass_through(self):
        for code in (0, 1, 2, 7, 255):
            with self.subTest(code=code):
                r = self.gpualert([], [CHILD, "exit", str(code)], run_dir=self.run_dir("c%d" % code))
                self.assertEqual(r.returncode, code, r.stderr)
                run = r.json("run.json")
                self.assertEqual(run["exit_code"], code)
                self.assertTrue(os.path.exists(os.path.join(r.run_dir, "verdict.json")))

    def test_deaths_by_signal_are_mirrored(self):
        # Python's returncode is -S when the process died by signal S.
        cases = [(["segv"], signal.SIGSEGV), (["abort"], signal.SIGABRT),
                 (["raise", "9"], signal.SIGKILL), (["raise", "15"], signal.SIGTERM)]
        for args, sig in cases:
            with self.subTest(sig=sig.name):
                r = self.gpualert([], [CHILD] + args, run_dir=self.run_dir(sig.name))
                self.assertEqual(r.returncode, -sig, r.stderr)
                self.assertEqual(r.json("run.json")["signal"], sig.name)
                self.assertEqual(r.json("run.json")["exit_code"], -sig)

    def test_no_core_file_from_the_wrapper(self):
        # Cores allowed: the child may dump its own, but the wrapper's death by
        # SIGSEGV must not be flagged as a core dump of its own.
        old = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        here = os.getcwd()
        os.chdir(self.tmp)
        try:
            pid = os.posix_spawn(GPUALERT, [GPUALERT, "run", "--quiet", "--run-dir", self.run_dir(), "--", CHILD,
                                            "segv"], self.env)
        finally:
            os.chdir(here)
            resource.setrlimit(resource.RLIMIT_CORE, old)
        _, status = os.waitpid(pid, 0)
        self.assertTrue(os.WIFSIGNALED(status))
        self.assertEqual(os.WTERMSIG(status), signal.SIGSEGV)
        self.assertFalse(os.WCOREDUMP(status))

    def test_segfault_verdict(self):
        r = self.gpualert([], [CHILD, "segv"])
        v = r.json("verdict.json")
        self.assertEqual(v["class"], "segfault")
        self.assertIn("KILLED segfault", r.stderr.decode())

    def test_python_traceback_verdict_and_exit(self):
        code = "import sys\nd = {}\nprint('step 1 loss 2.0', flush=True)\nd['warmup_steps']\n"
        r = self.gpualert([], ["/usr/bin/python3", "-c", code])
        self.assertEqual(r.returncode, 1)
        v = r.json("verdict.json")
        self.assertEqual(v["class"], "traceback")
        self.assertTrue(any("KeyError" in e["text"] for e in v["evidence"]), v)
