"""Signals reach the child as they would without the wrapper: once, and the wrapper dies the same way."""
import os
import pty
import select
import signal
import subprocess
import time

from harness import CHILD, GPUALERT, GpualertCase


class Signals(GpualertCase):
    def start(self):
        p = subprocess.Popen([GPUALERT, "run", "--run-dir", self.run_dir(), "--", CHILD, "wait-signal"],
                             env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.tmp)
        self.assertEqual(p.stdout.readline(), b"ready\n")
        return p

    def test_term_int_hup_quit_forwarded_once(self):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
            with self.subTest(sig=sig.name):
                p = self.start()
                p.send_signal(sig)
                out, err = p.communicate(timeout=60)
                self.assertEqual(out.decode().count("got %s" % sig.name), 1, out)
                self.assertEqual(p.returncode, -sig, err)

    def test_usr1_usr2_do_not_end_the_run(self):
        p = self.start()
        p.send_signal(signal.SIGUSR1)
        self.assertEqual(p.stdout.readline(), b"got SIGUSR1\n")
        p.send_signal(signal.SIGUSR2)
        self.assertEqual(p.stdout.readline(), b"got SIGUSR2\n")
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=60)
        self.assertEqual(out, b"got SIGTERM\n")
        self.assertEqual(p.returncode, -signal.SIGTERM)

    def test_terminal_ctrl_c_reaches_child_once(self):
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(self.tmp)
            os.execve(GPUALERT, [GPUALERT, "run", "--quiet", "--run-dir", self.run_dir(), "--", CHILD, "wait-signal"],
                      self.env)
        seen = b""
        deadline = time.monotonic() + 30
        while b"ready" not in seen and time.monotonic() < deadline:
            if select.select([fd], [], [], 1)[0]:
                seen += os.read(fd, 4096)
        os.write(fd, b"\x03")  # the terminal turns this into SIGINT for the foreground process group
        while time.monotonic() < deadline:
            if not select.select([fd], [], [], 1)[0]:
                continue
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        _, status = os.waitpid(pid, 0)
        self.assertEqual(seen.count(b"got SIGINT"), 1, seen)
        self.assertTrue(os.WIFSIGNALED(status))
        self.assertEqual(os.WTERMSIG(status), signal.SIGINT)
