"""gpualert run is invisible to a program's terminal: a terminal stays a terminal
(through a pty: line buffering, window size), and stdout and stderr that lead to
one place keep the program's exact order."""
import fcntl
import os
import pty
import struct
import subprocess
import termios
import time

from harness import GPUALERT, GpualertCase

PROBE = ("import os, sys, time\n"
         "print('tty', os.isatty(1), os.isatty(2))\n"
         "print('size', *os.get_terminal_size(1)) if os.isatty(1) else print('size none')\n"
         "print('tick')\n"
         "time.sleep(2)\n"
         "print('done')\n")


class Terminal(GpualertCase):
    def in_terminal(self, args):
        """Runs gpualert in a real pty of 132x50 columns; returns [(seconds, bytes)] and the exit status."""
        rd = self.run_dir("tty-%d" % len(os.listdir(self.tmp)))
        argv = [GPUALERT, "run", "--run-dir", rd, "--quiet"] + args + ["--", "/usr/bin/python3", "-c", PROBE]
        pid, fd = pty.fork()
        if pid == 0:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 132, 0, 0))
            os.chdir(self.tmp)
            os.execve(GPUALERT, argv, self.env)
        t0, got = time.monotonic(), []
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            got.append((time.monotonic() - t0, data))
        _, status = os.waitpid(pid, 0)
        os.close(fd)
        with open(os.path.join(rd, "output.log"), "rb") as f:
            return got, os.waitstatus_to_exitcode(status), f.read()

    @staticmethod
    def arrival(got, word):
        text = b""
        for t, data in got:
            text += data
            if word in text:
                return t
        return None

    def test_a_terminal_stays_a_terminal_and_line_buffered(self):
        got, code, log = self.in_terminal([])
        screen = b"".join(d for _, d in got)
        self.assertEqual(code, 0, screen)
        self.assertIn(b"tty True True", screen)
        self.assertIn(b"size 132 50", screen)
        # Line buffering: 'tick' is on the screen while the program still sleeps.
        self.assertLess(self.arrival(got, b"tick"), self.arrival(got, b"done") - 1.0, got)
        # The log holds the program's bytes, without the terminal's \r\n.
        self.assertIn(b"tty True True\nsize 132 50\ntick\ndone\n", log)

    def test_no_pty_gives_pipes(self):
        got, code, log = self.in_terminal(["--no-pty"])
        screen = b"".join(d for _, d in got)
        self.assertEqual(code, 0, screen)
        self.assertIn(b"tty False False", screen)
        self.assertIn(b"tty False False\nsize none\ntick\ndone\n", log)

    def test_one_file_for_both_streams_keeps_the_programs_order(self):
        script = "for i in $(seq 600); do echo out $i; echo err $i >&2; done"
        outputs = []
        for wrapped in (False, True):
            path = os.path.join(self.tmp, "both-%d.txt" % wrapped)
            with open(path, "wb") as f:
                cmd = ["sh", "-c", script]
                if wrapped:
                    cmd = [GPUALERT, "run", "--quiet", "--run-dir", self.run_dir("both")] + ["--"] + cmd
                subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=self.env, cwd=self.tmp, check=True,
                               timeout=120)
            with open(path, "rb") as f:
                outputs.append(f.read())
        self.assertEqual(outputs[1], outputs[0], "gpualert run reordered one file's lines")
        with open(os.path.join(self.run_dir("both"), "output.log"), "rb") as f:
            log = f.read()
        self.assertIn(outputs[0], log)
        self.assertIn(b"captured as one stream", log)
