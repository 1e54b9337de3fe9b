"""Chat and webhook channels: a Slack-compatible receiver on loopback and a real SMTP server get
the same verdict for the same run; a channel that fails is retried from the durable outbox; a
channel the file does not define, a refusal, a public channels file and a hostile name are
each said plainly, and the channel's URL (a secret) never leaves the channels file."""
import glob
import os

from harness import GpualertCase, SmtpServer, WebhookServer

NAN_RUN = r"""
import sys
for step in range(1, 61):
    loss = 'nan' if step > 50 else '%.4f' % (3.0 / step)
    print(f"step {step}/100 | loss {loss}", flush=True)
print("RuntimeError: loss is nan <stop> & exit", file=sys.stderr)
sys.exit(1)
"""


class Channels(GpualertCase):
    def channels_file(self, lines, mode=0o600):
        path = os.path.join(self.tmp, "channels.conf")
        with open(path, "w") as f:
            f.write("# the site's channels\n" + "\n".join(lines) + "\n")
        os.chmod(path, mode)
        self.env["GPUALERT_CHANNELS_FILE"] = path
        return path

    def script(self, code=NAN_RUN):
        path = os.path.join(self.tmp, "train.py")
        with open(path, "w") as f:
            f.write(code)
        return ["/usr/bin/python3", path]

    def outbox_files(self):
        return glob.glob(os.path.join(self.outbox, "*", "*"))

    def assert_secret_kept(self, secret, *texts):
        for t in texts:
            self.assertNotIn(secret, t)
        for f in self.outbox_files():
            with open(f, "rb") as fh:
                self.assertNotIn(secret.encode(), fh.read(), f)

    def test_mail_and_every_kind_of_channel_get_the_same_verdict(self):
        with SmtpServer(self.tmp) as smtp, WebhookServer(self.tmp) as hooks:
            secret = "/services/T000/B000/s3cr3t"
            self.channels_file(["slack:team-ml " + hooks.url(secret),
                                "mattermost:ops " + hooks.url("/hooks/mm"),
                                "teams:gpu-admins " + hooks.url("/workflows/teams"),
                                "webhook:tickets " + hooks.url("/tickets")])
            r = self.gpualert(["--smtp", smtp.url, "--to",
                               "mailto:alice@example.org,slack:team-ml,mattermost:ops,teams:gpu-admins,webhook:tickets"],
                              self.script())
            mails, posts = smtp.messages(), hooks.posts()
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(mails), 1, err)
        self.assertEqual(mails[0]["To"], "alice@example.org")
        cls = mails[0]["X-Gpualert-Class"]
        self.assertEqual(cls, "nan_loss")
        by_path = {p["path"]: p for p in posts}
        self.assertEqual(sorted(by_path), ["/hooks/mm", secret, "/tickets", "/workflows/teams"], err)
        for p in posts:
            self.assertEqual(p["content_type"], "application/json")
        for path in (secret, "/hooks/mm"):
            slack = by_path[path]["json"]
            self.assertIn("FAILED nan_loss", slack["text"])
            att = slack["attachments"][0]
            self.assertEqual(att["title"], cls)
            self.assertEqual(att["color"], "#b45309")  # the job's move
            self.assertIn("What to do:", att["text"])
            self.assertLessEqual(len(att["text"]), 3600)
        card = by_path["/workflows/teams"]["json"]
        self.assertEqual(card["type"], "message")
        content = card["attachments"][0]["content"]
        self.assertEqual(card["attachments"][0]["contentType"], "application/vnd.microsoft.card.adaptive")
        self.assertEqual(content["type"], "AdaptiveCard")
        self.assertIn("nan_loss", content["body"][0]["text"])
        self.assertLess(len(by_path["/workflows/teams"]["body"]), 28 * 1024)
        generic = by_path["/tickets"]["json"]
        self.assertEqual(generic["verdict"]["class"], cls)
        self.assertEqual(generic["status"], "FAILED")
        body = mails[0].get_body(("plain",)).get_content().replace("\r\n", "\n")
        self.assertIn(generic["verdict"]["remedy"][:60], body, "the same advice in the mail and the post")
        for ch in ("slack:team-ml: posted", "mattermost:ops: posted", "teams:gpu-admins: posted", "webhook:tickets: posted"):
            self.assertIn(ch, err)
        self.assert_secret_kept(secret, err)
        self.assertEqual(glob.glob(os.path.join(self.outbox, "pending", "*")), [])

    def test_slack_markup_in_the_log_is_escaped(self):
        code = "import sys\nprint('Traceback (most recent call last):', file=sys.stderr)\nraise ZeroDivisionError('<@channel> & <!here>')\n"
        with WebhookServer(self.tmp) as hooks:
            self.channels_file(["slack:team-ml " + hooks.url("/hook")])
            r = self.gpualert(["--to", "slack:team-ml"], self.script(code))
            posts = hooks.posts()
        self.assertEqual(len(posts), 1, r.stderr.decode())
        text = posts[0]["json"]["attachments"][0]["text"]
        self.assertIn("&lt;@channel&gt; &amp; &lt;!here&gt;", text, "no mention or link can be made from a log line")
        self.assertNotIn("<!here>", posts[0]["body"])

    def test_a_failing_channel_is_retried_from_the_outbox(self):
        with SmtpServer(self.tmp) as smtp, WebhookServer(self.tmp, "--fail-first", "1") as hooks:
            self.channels_file(["slack:team-ml " + hooks.url("/hook")])
            r = self.gpualert(["--smtp", smtp.url, "--to", "alice@example.org,slack:team-ml"], self.script())
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, "the child's status, whatever the channel did")
            self.assertIn("slack:team-ml: NOT posted yet (slack:team-ml: HTTP 503: unavailable)", err)
            self.assertEqual(len(smtp.messages()), 1, "the mail is not held up by the channel")
            self.assertEqual(hooks.posts(), [])
            pending = glob.glob(os.path.join(self.outbox, "pending", "*.eml"))
            self.assertEqual(len(pending), 1)
            f = self.gpualert(["outbox", "flush", "--smtp", smtp.url])
            self.assertEqual(f.returncode, 0, f.stderr.decode())
            posts = hooks.posts()
        self.assertEqual(len(posts), 1)
        self.assertIn("nan_loss", posts[0]["json"]["text"])
        self.assertEqual(glob.glob(os.path.join(self.outbox, "pending", "*.eml")), [])

    def test_refused_and_undefined_channels_are_kept_in_failed(self):
        with WebhookServer(self.tmp, "--status", "404") as hooks:
            self.channels_file(["slack:gone " + hooks.url("/hook")])
            r = self.gpualert(["--to", "slack:gone,slack:never-defined"], self.script())
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 1)
        self.assertIn("slack:gone: NOT posted, refused (slack:gone: HTTP 404", err)
        self.assertIn("slack:never-defined: NOT posted, refused (slack:never-defined is not defined in the channels file", err)
        self.assertIn("gpualert outbox retry", err)
        self.assertEqual(len(glob.glob(os.path.join(self.outbox, "failed", "*.eml"))), 2)
        self.assertEqual(glob.glob(os.path.join(self.outbox, "pending", "*.eml")), [], "only channels: no mail made")

    def test_a_channels_file_others_can_read_is_not_used(self):
        with WebhookServer(self.tmp) as hooks:
            self.channels_file(["slack:team-ml " + hooks.url("/hook")], mode=0o644)
            r = self.gpualert(["--to", "slack:team-ml"], self.script())
            posts = hooks.posts()
        err = r.stderr.decode()
        self.assertEqual(posts, [])
        self.assertIn("is accessible by group or others (mode 0644)", err)
        self.assertEqual(len(glob.glob(os.path.join(self.outbox, "pending", "*.eml"))), 1, "kept for later")

    def test_hostile_destinations_are_refused_clearly(self):
        for bad in ("slack:../../etc/passwd", "slack:", "irc:ops", "slack:a b", "slack:x\r\nBcc: e@x"):
            r = self.gpualert(["--to", bad], self.script("print('hi')\n"))
            self.assertEqual(r.returncode, 0, "the child ran and its status is kept")
            self.assertIn("neither a mail address nor a channel", r.stderr.decode(), bad)

    def test_config_check_names_undefined_channels_and_never_shows_a_url(self):
        self.channels_file(["slack:team-ml https://hooks.example.org/services/T/B/s3cr3t", "irc:x https://y/s3cr3t"])
        self.env["GPUALERT_TO"] = "a@example.org,slack:team-ml,teams:missing"
        r = self.gpualert(["config", "check", "--no-relay"])
        out = r.stdout.decode() + r.stderr.decode()
        self.assertNotEqual(r.returncode, 0, out)
        self.assertIn("to names teams:missing, which the channels file does not define", out)
        self.assertIn("line 3: 'irc:x' is not KIND:NAME", out)
        self.assertIn("1 channel(s) defined: slack:team-ml", out)
        self.assertNotIn("s3cr3t", out)

