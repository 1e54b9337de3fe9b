"""`gpualert classify`: the offline interface and its JSON contract."""
import json
import os
import subprocess

from harness import GPUALERT, GpualertCase

KEYS = {"class", "family", "attribution", "confidence", "shows", "implies", "cannot_decide", "remedy", "evidence",
        "secondary"}


class ClassifyCli(GpualertCase):
    def classify(self, args, stdin=b""):
        return subprocess.run([GPUALERT, "classify"] + args, input=stdin, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=self.env)

    def test_a_ten_gigabyte_log_within_a_time_limit(self):
        # Sparse: 10 GiB on the file system without 10 GiB on disk; the error is the last line.
        path = os.path.join(self.tmp, "ten.log")
        with open(path, "wb") as f:
            f.write(b"step 1 loss 2.0\n")
            f.truncate(10 << 30)
            f.seek(0, 2)
            f.write(b"\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
        p = self.classify(["--json", "--exit-code", "1", "--time-limit", "5", path])
        self.assertEqual(p.returncode, 0, p.stderr)
        v = json.loads(p.stdout)
        self.assertEqual(v["class"], "cuda_oom")
        self.assertTrue(v["partial_scan"])
        self.assertTrue(any("were not read" in c for c in v["cannot_decide"]), v["cannot_decide"])

    def test_json_from_stdin_with_exit_code(self):
        log = b"Preallocating...\n[ 12.5] Out of memory: Killed process 4242 (python) total-vm:1kB\nKilled\n"
        p = self.classify(["--json", "--exit-code", "-9", "-"], log)
        self.assertEqual(p.returncode, 0, p.stderr)
        v = json.loads(p.stdout)
        self.assertTrue(KEYS <= set(v), set(v))
        self.assertEqual(v["class"], "oom_killer")
        self.assertEqual(v["evidence"][0]["line"], 2)

    def test_bare_sigkill_is_a_suspected_oom_until_a_kernel_log_says_otherwise(self):
        p = self.classify(["--json", "--exit-code", "-9", "-"], b"step 10 loss 1.0\n")
        v = json.loads(p.stdout)
        self.assertEqual(v["class"], "oom_killer")
        suspected = v["confidence"]
        # A kernel log that was read and has no OOM record: SIGKILL from someone else.
        quiet = self.tmp + "/dmesg-quiet.txt"
        with open(quiet, "w") as f:
            f.write("[  12.5] e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex\n")
        p = self.classify(["--json", "--exit-code", "-9", "--kernel-log", quiet, "-"], b"step 10 loss 1.0\n")
        self.assertEqual(json.loads(p.stdout)["class"], "signal_kill", p.stdout)
        # The same with the kernel's OOM record: confirmed, and more confident.
        oom = self.tmp + "/dmesg-oom.txt"
        with open(oom, "w") as f:
            f.write("[  99.1] Out of memory: Killed process 4242 (python) total-vm:8923144kB, anon-rss:7000000kB\n")
        p = self.classify(["--json", "--exit-code", "-9", "--kernel-log", oom, "-"], b"step 10 loss 1.0\n")
        v = json.loads(p.stdout)
        self.assertEqual(v["class"], "oom_killer")
        self.assertGreater(v["confidence"], suspected)
        self.assertTrue(any("Out of memory" in e["text"] for e in v["evidence"]), v["evidence"])
        p = self.classify(["--exit-code", "-9", "--kernel-log", self.tmp + "/absent.txt", "-"], b"x\n")
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"absent.txt", p.stderr)

    def test_gpus_keep_a_neighbours_fault_out_of_the_verdict(self):
        # One node, two jobs: the kernel log (dmesg -T) records GPU 0000:3b:00 falling off the bus.
        dmesg = self.tmp + "/dmesg-xid.txt"
        with open(dmesg, "w") as f:
            f.write("[Fri Nov 27 14:02:11 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, "
                    "GPU has fallen off the bus.\n")
        log = (b"step 1 loss 2.31\nTraceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
               b"RuntimeError: CUDA error: unspecified launch failure\n")
        verdicts = {}
        for gpus in ("0000:3b:00", "00000000:5E:00.0", "all"):
            p = self.classify(["--json", "--exit-code", "1", "--kernel-log", dmesg, "--gpus", gpus, "-"], log)
            self.assertEqual(p.returncode, 0, p.stderr)
            verdicts[gpus] = json.loads(p.stdout)
        self.assertEqual((verdicts["0000:3b:00"]["class"], verdicts["0000:3b:00"]["attribution"]), ("gpu_hardware", "infra"))
        self.assertEqual(verdicts["all"]["class"], "gpu_hardware")
        mine = verdicts["00000000:5E:00.0"]
        self.assertEqual((mine["class"], mine["attribution"]), ("cuda_runtime", "job"), mine)
        side = [f["summary"] for f in mine["secondary"] if f["class"] == "gpu_hardware"]
        self.assertTrue(side and "not this job's" in side[0] and "0000:3b:00" in side[0], mine["secondary"])
        # A value that is no address is refused, with the reason, before any log is read.
        p = self.classify(["--gpus", "3b:00;reboot", "-"], log)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"is not a GPU's PCI address", p.stderr)

    def test_slurm_state_timeout_and_text_output(self):
        p = self.classify(["--state", "TIMEOUT", "-"], b"step 10 loss 1.0\nstep 20 loss 0.9\n")
        self.assertEqual(p.returncode, 0)
        self.assertIn(b"timeout", p.stdout)

    def test_many_inputs_one_line_each_and_missing_file(self):
        a = self.tmp + "/a.log"
        with open(a, "w") as f:
            f.write("Traceback (most recent call last):\n  File \"x.py\", line 1\nAssertionError\n")
        p = self.classify(["--json", a, self.tmp + "/missing.log", a])
        lines = p.stdout.decode().splitlines()
        self.assertEqual(len(lines), 2)
        self.assertEqual(json.loads(lines[0])["class"], "assertion")
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"missing.log", p.stderr)
