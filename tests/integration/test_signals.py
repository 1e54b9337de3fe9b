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


class HangVersusKill(GpualertCase):
    """A run stopped from outside after its output went silent is a hang; the
    silence comes from the capture timeline, the threshold from hang_after."""

    def run_killed_after(self, silent_for, hang_after):
        script = ("import sys, time\n"
                  "for i in range(1, 6):\n"
                  "    print(f'step {i} loss {2.0 / i:.3f}', flush=True)\n"
                  "print('ready', flush=True)\n"
                  "time.sleep(600)\n")
        env = dict(self.env, GPUALERT_HANG_AFTER=str(hang_after))
        p = subprocess.Popen([GPUALERT, "run", "--quiet", "--run-dir", self.run_dir(), "--", "/usr/bin/python3", "-c", script],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.tmp)
        while True:
            line = p.stdout.readline()
            self.assertTrue(line, "the child ended early")
            if line == b"ready\n":
                break
        time.sleep(silent_for)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=120)
        self.assertEqual(p.returncode, -signal.SIGTERM)  # the verdict never changes the status
        import json
        with open(os.path.join(self.run_dir(), "verdict.json")) as f:
            return json.load(f)

    def test_silence_beyond_hang_after_is_a_hang(self):
        v = self.run_killed_after(3.5, 2)
        self.assertEqual(v["class"], "hang", v)
        self.assertTrue(any("capture timeline" in s for s in v["shows"]), v["shows"])
        self.assertTrue(any(f["class"] == "signal_kill" for f in v["secondary"]), v["secondary"])

    def test_a_short_pause_is_not_a_hang(self):
        v = self.run_killed_after(0.5, 30)
        self.assertEqual(v["class"], "signal_kill", v)
