"""The tee: the terminal sees exactly what it would have, and the log gets every byte."""
import hashlib
import os
import subprocess

from harness import CHILD, GPUALERT, GpualertCase


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Capture(GpualertCase):
    def test_streams_unchanged_and_recoverable(self):
        bare = self.bare([CHILD, "interleave", "2000"])
        r = self.gpualert([], [CHILD, "interleave", "2000"])
        self.assertEqual(r.returncode, 3)
        self.assertEqual(r.stdout, bare.stdout)
        # stderr carries our summary after the child's bytes; the child's part is unchanged.
        self.assertTrue(r.stderr.startswith(bare.stderr), r.stderr[:200])
        log = r.file("output.log")
        self.assertEqual(len(log), len(bare.stdout) + len(bare.stderr))
        out = subprocess.run([GPUALERT, "log", "--stream", "out", r.run_dir], stdout=subprocess.PIPE, check=True).stdout
        err = subprocess.run([GPUALERT, "log", "--stream", "err", r.run_dir], stdout=subprocess.PIPE, check=True).stdout
        self.assertEqual(out, bare.stdout)
        self.assertEqual(err, bare.stderr)

    def test_one_gigabyte_through_the_wrapper(self):
        size = 1 << 30
        dest = os.path.join(self.tmp, "stdout.bin")
        with open(dest, "wb") as f:
            r = self.gpualert(["--quiet"], [CHILD, "bytes", str(size)], stdout=f, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.path.getsize(dest), size)
        self.assertEqual(os.path.getsize(os.path.join(r.run_dir, "output.log")), size)
        with open(dest, "rb") as a, open(os.path.join(r.run_dir, "output.log"), "rb") as b:
            while True:
                x, y = a.read(1 << 22), b.read(1 << 22)
                self.assertEqual(x, y)
                if not x:
                    break

    def test_an_append_only_destination_and_a_pipe_get_every_byte(self):
        # splice(2) cannot write into an O_APPEND file: the tee must copy instead, losing nothing;
        # a pipe as destination is spliced. Both must match the bare run byte for byte.
        bare = self.bare([CHILD, "interleave", "3000"])
        dest = os.path.join(self.tmp, "appended.out")
        with open(dest, "wb") as f:
            f.write(b"kept\n")
        with open(dest, "ab") as f:
            r = self.gpualert(["--quiet"], [CHILD, "interleave", "3000"], stdout=f, run_dir=self.run_dir("append"))
        self.assertEqual(r.returncode, 3)
        with open(dest, "rb") as f:
            self.assertEqual(f.read(), b"kept\n" + bare.stdout)
        piped = self.gpualert(["--quiet"], [CHILD, "interleave", "3000"], run_dir=self.run_dir("pipe"))
        self.assertEqual(piped.stdout, bare.stdout)
        out = subprocess.run([GPUALERT, "log", "--stream", "out", self.run_dir("pipe")], stdout=subprocess.PIPE,
                             check=True).stdout
        self.assertEqual(out, bare.stdout)

    def test_binary_garbage_and_long_lines(self):
        for args in (["garbage", str(5 << 20)], ["longline", str(20 << 20)], ["garbage", str(1 << 20), "err"]):
            with self.subTest(args=args[0]):
                bare = self.bare([CHILD] + args)
                r = self.gpualert([], [CHILD] + args, run_dir=self.run_dir("-".join(args)))
                self.assertEqual(r.returncode, 0, r.stderr[-500:])
                self.assertEqual(sha(r.stdout), sha(bare.stdout))
                self.assertEqual(sha(r.file("output.log")), sha(bare.stdout + bare.stderr))
                self.assertIn("class", r.json("verdict.json"))

    def test_log_exists_before_the_child_runs(self):
        # The child itself checks that the log file is already there when it starts.
        rd = self.run_dir()
        probe = "import os,sys; sys.exit(0 if os.path.exists(%r) else 5)" % os.path.join(rd, "output.log")
        r = self.gpualert([], ["/usr/bin/python3", "-c", probe], run_dir=rd)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(oct(os.stat(rd).st_mode & 0o777), "0o700")

    def test_closed_stdout_reader_gives_child_sigpipe(self):
        # `gpualert run -- yes | head -1`: yes must die of SIGPIPE as it would bare.
        cmd = "%s run --quiet --run-dir %s -- yes | head -1; echo ${PIPESTATUS[0]}" % (GPUALERT, self.run_dir())
        p = subprocess.run(["bash", "-c", cmd], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        lines = p.stdout.decode().split()
        self.assertEqual(lines[0], "y")
        self.assertEqual(lines[-1], str(128 + 13))  # bash reports death by SIGPIPE as 141
