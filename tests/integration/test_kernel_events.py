"""The kernel as a witness: real OOM kills by a memory cgroup, a real SIGKILL with
no OOM record, and an NVRM Xid line written into the kernel ring buffer while the
job runs, all read back by `gpualert run` from /dev/kmsg.

Needs root (to write /dev/kmsg and make a memory cgroup); skipped otherwise. The
cases are numbered because each one's kernel records must not fall into the next
one's window: the SIGKILL case runs before any OOM record exists, the Xid last."""
import json
import os
import time
import unittest

from harness import CHILD, GpualertCase, PYTHON

HOG = "x = bytearray(600 * 1024 * 1024)\nprint('not reached', flush=True)\n"


def memory_cgroup_root():
    if os.path.isdir("/sys/fs/cgroup/memory") and os.path.exists("/sys/fs/cgroup/memory/cgroup.procs"):
        return "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
    try:
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            if "memory" in f.read().split():
                return "/sys/fs/cgroup", "memory.max"
    except OSError:
        pass
    return None, None


def usable():
    if os.geteuid() != 0:
        return "needs root"
    try:
        with open("/dev/kmsg", "rb", buffering=0) as f:
            os.set_blocking(f.fileno(), False)
            f.read(16384)
    except BlockingIOError:
        pass
    except OSError as e:
        return "/dev/kmsg is not readable: %s" % e
    if not os.access("/dev/kmsg", os.W_OK):
        return "/dev/kmsg is not writable"
    return None


@unittest.skipIf(usable() is not None, usable() or "")
class KernelEvidence(GpualertCase):
    def setUp(self):
        super().setUp()
        self.env["GPUALERT_KERNEL_EVENTS"] = "yes"
        self.cgroup = None

    def tearDown(self):
        if self.cgroup:
            for _ in range(50):
                try:
                    os.rmdir(self.cgroup)
                    break
                except OSError:
                    time.sleep(0.1)
        super().tearDown()

    def verdict(self, r):
        return r.json("verdict.json")

    def in_memory_cgroup(self, limit_mb):
        root, knob = memory_cgroup_root()
        if not root:
            self.skipTest("no memory cgroup controller")
        self.cgroup = os.path.join(root, "gpualert-it-%d" % os.getpid())
        os.makedirs(self.cgroup, exist_ok=True)
        with open(os.path.join(self.cgroup, knob), "w") as f:
            f.write(str(limit_mb * 1024 * 1024))
        procs = os.path.join(self.cgroup, "cgroup.procs")
        return lambda: open(procs, "w").write(str(os.getpid()))

    def test_1_sigkill_with_no_oom_record_is_not_called_oom(self):
        time.sleep(6)  # records another test left in the node's logs a moment ago must fall outside this window
        r = self.gpualert(["--quiet"], [CHILD, "raise", "9"], run_dir=self.run_dir("kill"))
        self.assertEqual(r.returncode, -9, r.stderr)
        v = self.verdict(r)
        self.assertEqual(v["class"], "signal_kill", json.dumps(v, indent=1))
        self.assertFalse(any("OOM" in e["text"] or "oom" in e["text"] for e in v["evidence"]), v["evidence"])
        unlikely = [f for f in v["secondary"] if f["class"] == "oom_killer"]
        self.assertTrue(unlikely and "no OOM record" in unlikely[0]["summary"], json.dumps(v, indent=1))
        # What the kernel log settled is not listed again as open.
        self.assertFalse(any("look alike" in c for c in v["cannot_decide"]), v["cannot_decide"])

    def test_2_real_cgroup_oom_kill_is_confirmed_by_the_kernel_record(self):
        join = self.in_memory_cgroup(128)
        r = self.gpualert(["--quiet"], [PYTHON, "-c", HOG], run_dir=self.run_dir("oom-direct"), preexec_fn=join)
        self.assertEqual(r.returncode, -9, r.stderr)  # mirrored exactly: the wrapper dies of SIGKILL too
        v = self.verdict(r)
        self.assertEqual(v["class"], "oom_killer", json.dumps(v, indent=1))
        self.assertNotIn("SUSPECT", json.dumps(v))
        pid_lines = [e["text"] for e in v["evidence"] if "Killed process" in e["text"]]
        self.assertTrue(pid_lines, v["evidence"])
        self.assertTrue(any("the job's process (pid" in s for s in v["shows"]), v["shows"])
        self.assertGreaterEqual(v["confidence"], 0.7)

    def test_3_oom_kill_of_a_child_under_a_shell_is_matched_by_user(self):
        # The wrapper only knows bash's pid; the kernel kills python, bash exits 137.
        join = self.in_memory_cgroup(128)
        script = "%s -c \"$HOG\"; s=$?; echo \"python ended with $s\"; exit $s" % PYTHON
        r = self.gpualert(["--quiet"], ["bash", "-c", script], env={"HOG": HOG}, run_dir=self.run_dir("oom-child"),
                          preexec_fn=join)
        self.assertEqual(r.returncode, 137, r.stderr)
        v = self.verdict(r)
        self.assertEqual(v["class"], "oom_killer", json.dumps(v, indent=1))
        self.assertTrue(any("of the job's user" in s for s in v["shows"]), v["shows"])
        self.assertTrue(any("Killed process" in e["text"] for e in v["evidence"]), v["evidence"])

    def test_4_xid_79_in_the_kernel_log_during_the_run_is_the_cluster(self):
        time.sleep(6)  # the OOM records of the cases before must fall outside this run's window
        script = ("echo 'epoch 1 step 10 loss 2.31'; "
                  "echo \"NVRM: Xid (PCI:0000:3b:00): 79, pid=$$, name=python, GPU has fallen off the bus.\" > /dev/kmsg; "
                  "echo 'RuntimeError: CUDA error: unspecified launch failure' >&2; exit 1")
        r = self.gpualert(["--quiet"], ["bash", "-c", script], run_dir=self.run_dir("xid"))
        self.assertEqual(r.returncode, 1, r.stderr)
        v = self.verdict(r)
        self.assertEqual(v["class"], "gpu_hardware", json.dumps(v, indent=1))
        self.assertEqual(v["attribution"], "infra")
        self.assertTrue(any("Xid 79" in s for s in v["shows"]), v["shows"])
        self.assertTrue(any("[kmsg]" in e["text"] and ": 79," in e["text"] for e in v["evidence"]), v["evidence"])
        time.sleep(6)  # the Xid stays in the ring buffer: let it leave the window of whatever runs next

    def fake_driver_tree(self):
        """The driver's /proc listing of a two-GPU node (no GPU here): 0000:a1:00 is minor 0, 0000:a2:00 minor 1.
        Bus numbers no other test writes kernel records for: a record about a run's own GPU from the
        last six hours makes its node "already sick", and the Slurm tests fault 0000:3b:00 and 0000:5e:00."""
        root = os.path.join(self.tmp, "nvidia-gpus")
        for bus, minor, uuid in (("0000:a1:00.0", 0, "GPU-a1a1a1a1-0000-0000-0000-000000000000"),
                                 ("0000:a2:00.0", 1, "GPU-a2a2a2a2-0000-0000-0000-000000000000")):
            os.makedirs(os.path.join(root, bus))
            with open(os.path.join(root, bus, "information"), "w") as f:
                f.write("Model: \t\t NVIDIA A100-SXM4-40GB\nIRQ:   \t\t 146\nGPU UUID: \t %s\nBus Type: \t PCIe\n"
                        "Bus Location: \t %s\nDevice Minor: \t %d\nGPU Excluded:\t No\n" % (uuid, bus, minor))
        return root

    def test_5_on_a_shared_node_only_the_faulted_gpus_job_is_blamed(self):
        # The driver records an Xid 79 on 0000:a1:00 during each run. One run holds the
        # other GPU (CUDA's number 1), one holds 0000:a1:00 (named by UUID prefix).
        # Last, the runs after: one on the faulted GPU, one on the other.
        tree = self.fake_driver_tree()
        script = ("echo 'epoch 1 step 10 loss 2.31'; "
                  "echo \"NVRM: Xid (PCI:0000:a1:00): 79, pid=$$, name=python, GPU has fallen off the bus.\" > /dev/kmsg; "
                  "echo 'RuntimeError: CUDA error: unspecified launch failure' >&2; exit 1")
        verdicts = {}
        for name, visible in (("neighbour", "1"), ("owner", "GPU-a1a1a1a1")):
            time.sleep(6)  # the record of the run before must fall outside this run's window
            env = {"GPUALERT_NVIDIA_GPUS_DIR": tree, "CUDA_VISIBLE_DEVICES": visible}
            r = self.gpualert(["--quiet"], ["bash", "-c", script], env=env, run_dir=self.run_dir(name))
            self.assertEqual(r.returncode, 1, r.stderr)
            verdicts[name] = self.verdict(r)
        v = verdicts["neighbour"]
        self.assertEqual((v["class"], v["attribution"]), ("cuda_runtime", "job"), json.dumps(v, indent=1))
        side = [f["summary"] for f in v["secondary"] if f["class"] == "gpu_hardware"]
        self.assertTrue(side and "not this job's" in side[0] and "0000:a1:00" in side[0] and "0000:a2:00" in side[0],
                        json.dumps(v["secondary"], indent=1))
        v = verdicts["owner"]
        self.assertEqual((v["class"], v["attribution"]), ("gpu_hardware", "infra"), json.dumps(v, indent=1))
        # The next run given 0000:a1:00 (CUDA's number 0 on this one-model node) fails with no
        # new record: the GPU's fault from before it started makes the node already sick.
        time.sleep(6)
        quiet = "echo 'epoch 1 step 1 loss 2.30'; echo 'RuntimeError: CUDA error: unspecified launch failure' >&2; exit 1"
        r = self.gpualert(["--quiet"], ["bash", "-c", quiet],
                          env={"GPUALERT_NVIDIA_GPUS_DIR": tree, "CUDA_VISIBLE_DEVICES": "0"}, run_dir=self.run_dir("after"))
        self.assertEqual(r.returncode, 1, r.stderr)
        v = self.verdict(r)
        self.assertEqual((v["class"], v["attribution"]), ("gpu_hardware", "infra"), json.dumps(v, indent=1))
        self.assertTrue(any("already sick" in s and "0000:a1:00" in s for s in v["shows"]), v["shows"])
        # And on the other GPU the same failure stays the job's.
        r = self.gpualert(["--quiet"], ["bash", "-c", quiet],
                          env={"GPUALERT_NVIDIA_GPUS_DIR": tree, "CUDA_VISIBLE_DEVICES": "1"}, run_dir=self.run_dir("other"))
        self.assertEqual(self.verdict(r)["class"], "cuda_runtime", json.dumps(self.verdict(r), indent=1))

if __name__ == "__main__":
    unittest.main()
