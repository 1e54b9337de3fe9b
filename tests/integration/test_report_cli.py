"""`gpualert report` over a saved `sacct --json` (the fleet view without a cluster):
its numbers against the same file read independently, its three output forms, and
the option values it refuses before anything runs."""
import collections
import csv
import io
import json
import os
import subprocess
import sys

from harness import GPUALERT, GpualertCase, SmtpServer, message_parts

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import sacct_json_gen  # noqa: E402


class ReportCli(GpualertCase):
    def report(self, args):
        return subprocess.run([GPUALERT, "report"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)

    def test_the_numbers_match_the_accounting_it_read(self):
        path = os.path.join(self.tmp, "sacct.json")
        sacct_json_gen.write(path, 3000, seed=7)
        with open(path) as f:
            jobs = json.load(f)["jobs"]
        # What the file says, read here with Python's json and a split of the token.
        per_class = collections.Counter()
        gpu_hours = 0.0
        bad_gpu = collections.Counter()
        for j in jobs:
            tok = dict(kv.split("=", 1) for kv in j["comment"]["system"][len("gpualert1:"):].split(";"))
            per_class[tok["class"]] += 1
            g = sum(t["count"] for t in j["tres"]["allocated"] if t["type"] == "gres" and t["name"] == "gpu")
            gpu_hours += g * j["time"]["elapsed"] / 3600.0
            if tok["class"] == "gpu_hardware" and "bad" in tok:
                bad_gpu[(tok["node"], tok["bad"])] += 1
        p = self.report(["--input", path, "--json", "--top", "1000"])
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual(r["jobs"], len(jobs))
        self.assertEqual(r["with_verdict"], len(jobs))
        self.assertAlmostEqual(r["gpu_hours"], gpu_hours, places=3)
        self.assertEqual({c["class"]: c["jobs"] for c in r["classes"]}, dict(per_class))
        got = {(f["node"], f["gpu"]): f["classes"].get("gpu_hardware", 0) for f in r["faults"] if f["gpu"]}
        self.assertEqual(got, dict(bad_gpu))
        self.assertTrue(all(u["fix"] for u in r["users"]), r["users"][:3])
        # Text for people, CSV for spreadsheets: the same numbers.
        p = self.report(["--input", path])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("%d jobs, %d with a gpualert verdict" % (len(jobs), len(jobs)), p.stdout.decode())
        self.assertIn("scontrol update nodename=", p.stdout.decode())
        p = self.report(["--input", path, "--csv", "--top", "1000"])
        rows = list(csv.DictReader(io.StringIO(p.stdout.decode())))
        self.assertEqual({r["name"]: int(r["jobs"]) for r in rows if r["section"] == "class"}, dict(per_class))

    def test_hostile_or_broken_input_is_refused_clearly(self):
        for args, words in ((["--since", "-u root"], b"is not a time sacct takes"),
                            (["--since", "now\nx"], b"is not a time sacct takes"),
                            (["--partition", "--all"], b"is not a list sacct takes"),
                            (["--input", "/nonexistent/sacct.json"], b"No such file"),
                            (["--json", "--csv", "--input", "x"], b"excludes")):
            p = self.report(args)
            self.assertNotEqual(p.returncode, 0, args)
            self.assertIn(words, p.stderr, (args, p.stderr))
        garbage = os.path.join(self.tmp, "garbage.json")
        with open(garbage, "wb") as f:
            f.write(b'{"jobs": [{"job_id": 1, "comment": {"system": "gpualert1:class=x;conf=1"')
        p = self.report(["--input", garbage])
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"sacct's JSON cannot be read", p.stderr)
        # No sacct on the PATH: said so, not a crash.
        env = dict(self.env, PATH="/nonexistent")
        p = subprocess.run([GPUALERT, "report"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"cannot run sacct", p.stderr)

    def test_the_weekly_report_goes_by_mail_through_the_outbox(self):
        # What cron runs weekly: the same text, to the address given or to admin_to, over
        # a real SMTP server; refused clearly when there is nobody to send it to.
        path = os.path.join(self.tmp, "sacct.json")
        sacct_json_gen.write(path, 400, seed=3)
        text = self.report(["--input", path]).stdout.decode()
        with SmtpServer(self.tmp) as srv:
            env = dict(self.env, GPUALERT_SMTP_URL=srv.url)
            run = lambda args: subprocess.run([GPUALERT, "report", "--input", path] + args, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, env=env)
            p = run(["--mail=ops@example.org"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(b"sent to ops@example.org", p.stderr)
            p = run(["--mail"])
            self.assertEqual(p.returncode, 2)
            self.assertIn(b"--mail needs addresses", p.stderr)
            env["GPUALERT_ADMIN_TO"] = "hpc-admins@example.org"
            p = run(["--mail"])
            self.assertEqual(p.returncode, 0, p.stderr)
            p = run(["--mail=not an address"])
            self.assertEqual(p.returncode, 2)
            msgs = srv.messages()
        self.assertEqual([m["To"] for m in msgs], ["ops@example.org", "hpc-admins@example.org"])
        self.assertTrue(msgs[0]["Subject"].startswith("[gpualert] fleet report: 400 jobs"), msgs[0]["Subject"])
        self.assertEqual(msgs[0]["X-Gpualert-Report"], "fleet")
        body, _ = message_parts(msgs[0])
        self.assertEqual(body.replace("\r\n", "\n").strip(), text.strip())
