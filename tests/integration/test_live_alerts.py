"""Live alerts while the command still runs, with real processes and a real SMTP server on
loopback (short windows): a child that goes silent, one whose loss turns NaN while it keeps
going, one whose pace cannot reach its total in its time limit, and a slow but steady one
that must stay quiet. Each condition fires once; the final message lists what was sent."""
import json
import os
import sys
import time

from harness import GpualertCase, SmtpServer, WebhookServer

SILENT = r"""
import time
for s in range(1, 6):
    print(f"step {s}/1000 | loss {3.0 / s:.4f}", flush=True)
time.sleep(5)
print("resumed", flush=True)
"""

NAN_KEEPS_GOING = r"""
import time
for s in range(1, 41):
    loss = "nan" if s > 10 else "%.4f" % (3.0 / s)
    print(f"step {s}/1000 | loss {loss}", flush=True)
    time.sleep(0.1)
"""

TOO_SLOW = r"""
import time
for s in range(1, 41):
    print(f"step {s}/1000 | loss {3.0 / s:.4f}", flush=True)
    time.sleep(0.1)
"""

DIVERGES = r"""
import time
for s in range(1, 41):
    loss = 3.0 / s if s <= 10 else 0.3 * 1.15 ** (s - 10)
    print(f"step {s}/1000 | loss {loss:.4f}", flush=True)
    time.sleep(0.1)
time.sleep(1)
"""

STEADY = r"""
import time
for s in range(1, 9):
    print(f"step {s}/8 | loss {3.0 / s:.4f}", flush=True)
    time.sleep(0.5)
"""


class LiveAlerts(GpualertCase):
    def run_live(self, code, *flags, env=None):
        script = os.path.join(self.tmp, "train.py")
        with open(script, "w") as f:
            f.write(code)
        e = {"GPUALERT_LIVE_INTERVAL": "0.25"}
        e.update(env or {})
        with SmtpServer(self.tmp) as srv:
            t0 = time.time()
            r = self.gpualert(["--smtp", srv.url, "--to", "alice@example.org"] + list(flags),
                              ["/usr/bin/python3", script], env=e)
            ended = time.time()
            msgs = srv.messages()
            arrived = {}
            for name in sorted(os.listdir(srv.maildir)):
                if name.endswith(".eml"):
                    arrived[len(arrived)] = os.stat(os.path.join(srv.maildir, name)).st_mtime
        live = [(i, m) for i, m in enumerate(msgs) if m["X-Gpualert-Live"]]
        final = [m for m in msgs if not m["X-Gpualert-Live"]]
        self.assertEqual(len(final), 1, r.stderr.decode())
        alerts_path = os.path.join(self.tmp, "run", "alerts.json")
        alerts = []
        if os.path.exists(alerts_path):
            with open(alerts_path) as f:
                alerts = json.load(f)
        return r, live, final[0], alerts, arrived, (t0, ended)

    def latency(self, alert, accepted_at):
        true_since = time.mktime(time.strptime(alert["true_since"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
        return accepted_at - true_since

    def test_a_silent_command_gets_one_stall_alert_while_it_runs(self):
        r, live, final, alerts, arrived, (t0, ended) = self.run_live(SILENT, "--stall-after", "2")
        self.assertEqual(r.returncode, 0)
        self.assertEqual([m["X-Gpualert-Live"] for _, m in live], ["stall"], "exactly one stall alert")
        i, m = live[0]
        self.assertLess(arrived[i], ended - 1, "the alert arrived while the command still ran")
        body = m.get_body(("plain",)).get_content()
        self.assertIn("no output for 2 s", body)
        self.assertIn("last line at", body)
        self.assertIn("'step 5/1000 | loss 0.6000'", body)
        self.assertIn("the command is idle", body, "a sleeping command uses no CPU")
        self.assertIn("[gpualert] LIVE stall: train.py", m["Subject"])
        self.assertIn("live alert:", final.get_body(("plain",)).get_content(), "the verdict says what was sent")
        lat = self.latency(alerts[0], arrived[i])
        print("\nstall alert latency (condition true -> accepted by the relay): %.2f s" % lat, file=sys.stderr)
        self.assertLess(lat, 5)

    def test_a_nan_loss_alerts_once_while_training_goes_on(self):
        r, live, final, alerts, arrived, (t0, ended) = self.run_live(NAN_KEEPS_GOING, "--stall-after", "60")
        self.assertEqual(r.returncode, 0)
        self.assertEqual([m["X-Gpualert-Live"] for _, m in live], ["nan"], "one NaN alert for 30 NaN lines")
        i, m = live[0]
        self.assertLess(arrived[i], ended - 1, "sent while the command kept training")
        body = m.get_body(("plain",)).get_content()
        self.assertIn("the loss is not a number since line 11", body)
        self.assertIn("the last finite loss was 0.3", body)
        self.assertEqual(final["X-Gpualert-Class"], "nan_loss")
        print("\nNaN alert latency (first NaN line -> accepted by the relay): %.2f s"
              % self.latency(alerts[0], arrived[i]), file=sys.stderr)

    def test_a_loss_that_climbs_from_its_low_alerts_once(self):
        r, live, final, alerts, arrived, (t0, ended) = self.run_live(DIVERGES, "--stall-after", "60")
        self.assertEqual(r.returncode, 0)
        self.assertEqual([m["X-Gpualert-Live"] for _, m in live], ["divergence"], "one alert for a steady climb")
        i, m = live[0]
        self.assertLess(arrived[i], ended - 0.5, "sent while the command still ran")
        body = m.get_body(("plain",)).get_content()
        self.assertRegex(body, r"the loss rose from its low of 0\.3\d* to \d")
        print("\ndivergence alert latency (seen -> accepted by the relay): %.2f s"
              % self.latency(alerts[0], arrived[i]), file=sys.stderr)

    def test_a_live_alert_reaches_the_chat_channels_the_run_names(self):
        script = os.path.join(self.tmp, "train.py")
        with open(script, "w") as f:
            f.write(NAN_KEEPS_GOING)
        with WebhookServer(self.tmp) as hooks:
            path = os.path.join(self.tmp, "channels.conf")
            with open(path, "w") as f:
                f.write("slack:team-ml %s\nwebhook:tickets %s\n" % (hooks.url("/services/T/B/live"), hooks.url("/t")))
            os.chmod(path, 0o600)
            r = self.gpualert(["--to", "slack:team-ml,webhook:tickets", "--stall-after", "60"],
                              ["/usr/bin/python3", script],
                              env={"GPUALERT_LIVE_INTERVAL": "0.25", "GPUALERT_CHANNELS_FILE": path})
            posts = hooks.posts()
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        live = [p for p in posts if "LIVE" in p["body"]]
        self.assertEqual(sorted(p["path"] for p in live), ["/services/T/B/live", "/t"], r.stderr.decode())
        slack = [p for p in live if p["path"] != "/t"][0]["json"]
        self.assertIn("[gpualert] LIVE nan: train.py", slack["text"])
        att = slack["attachments"][0]
        self.assertIn("the loss is not a number since line 11", att["title"])
        self.assertIn("the last finite loss was 0.3", att["text"])
        hook = [p for p in live if p["path"] == "/t"][0]["json"]
        self.assertEqual((hook["status"], hook["kind"]), ("LIVE", "live:nan"))
        self.assertEqual(len(posts), 4, "the live alert and the verdict, on each channel")

    def test_a_stall_past_its_grace_ends_the_command_when_the_user_asked(self):
        code = "import time\nprint('step 1/100 | loss 2.0', flush=True)\ntime.sleep(60)\n"
        t0 = time.time()
        r, live, final, alerts, arrived, _ = self.run_live(code, "--stall-after", "2",
                                                           env={"GPUALERT_CANCEL_AFTER_STALL": "2"})
        self.assertLess(time.time() - t0, 30, "ended long before its minute of sleep")
        self.assertEqual(r.returncode, -15, "the wrapper ends as its command did: by SIGTERM")
        self.assertEqual([m["X-Gpualert-Live"] for _, m in live], ["stall", "stall_cancel"])
        body = live[1][1].get_body(("plain",)).get_content()
        self.assertIn("ended to free its GPUs", body)
        self.assertIn("(cancel_after_stall)", body)
        text = final.get_body(("plain",)).get_content()
        self.assertIn("stall_cancel", text, "the verdict says why it ended")

    def test_a_user_who_wants_no_message_gets_no_live_alert_either(self):
        script = os.path.join(self.tmp, "train.py")
        with open(script, "w") as f:
            f.write(SILENT)
        with SmtpServer(self.tmp) as srv:
            r = self.gpualert(["--smtp", srv.url, "--to", "alice@example.org", "--stall-after", "1"],
                              ["/usr/bin/python3", script], env={"GPUALERT_LIVE_INTERVAL": "0.25", "GPUALERT_NOTIFY": "none"})
            msgs = srv.messages()
        self.assertEqual(r.returncode, 0)
        self.assertEqual(msgs, [], "notify = none: neither the verdict nor a live alert")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "run", "alerts.json")))

    def test_a_pace_that_cannot_finish_in_the_limit(self):
        r, live, final, alerts, arrived, _ = self.run_live(TOO_SLOW, "--stall-after", "60", "--time-limit", "20")
        self.assertEqual(r.returncode, 0)
        self.assertEqual([m["X-Gpualert-Live"] for _, m in live], ["wont_finish"])
        body = live[0][1].get_body(("plain",)).get_content()
        self.assertIn("will not finish within its time limit", body)
        self.assertRegex(body, r"steps/s, step \d+ of 1000 ends about")
        self.assertIn("the limit is 20 s", body)

    def test_a_slow_steady_run_stays_quiet_and_live_no_turns_it_off(self):
        r, live, final, alerts, _, _ = self.run_live(STEADY, "--stall-after", "2", "--time-limit", "3600")
        self.assertEqual(r.returncode, 0)
        self.assertEqual(live, [], "nothing is wrong with a run that prints every half second")
        self.assertEqual(alerts, [])
        with open(os.path.join(self.tmp, "run", "progress.json")) as f:
            picture = json.load(f)
        self.assertEqual((picture["step"], picture["total_steps"], picture["losses"]), (8, 8, 8))
        r, live, final, alerts, _, _ = self.run_live(SILENT, "--stall-after", "2", env={"GPUALERT_LIVE": "no"})
        self.assertEqual(live, [])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "run", "progress.json")))
