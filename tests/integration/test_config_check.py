"""`gpualert config check`: every layer a job reads, checked without sending anything.

A site set up right passes (exit 0), with the relay greeted over STARTTLS and AUTH
and no message sent; each kind of mistake fails (exit 1) and is named with its file
and line; the password is never printed; --json is one document for config
management."""
import json
import os
import stat
import subprocess

from harness import GpualertCase, SmtpServer, closed_port


class ConfigCheck(GpualertCase):
    def setUp(self):
        super().setUp()
        self.tls = os.path.join(self.tmp, "tls")
        self.pwfile = os.path.join(self.tmp, "relay.password")
        with open(self.pwfile, "w") as f:
            f.write("s3cret-horse\n")
        os.chmod(self.pwfile, 0o600)
        # A node as the package leaves it: plugin, helper, spool, and the plugstack line.
        self.site = os.path.join(self.tmp, "etc")
        os.makedirs(os.path.join(self.site, "rules.d"))
        self.spool = os.path.join(self.tmp, "spool")
        os.makedirs(self.spool, mode=0o755)
        os.chmod(self.spool, 0o755)
        self.plugin = os.path.join(self.tmp, "gpualert.so")
        open(self.plugin, "w").close()
        self.helper = os.path.join(self.tmp, "gpualert-epilog")
        with open(self.helper, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(self.helper, 0o755)
        self.plugstack = os.path.join(self.site, "plugstack.conf")
        self.write_plugstack("optional %s spool=%s helper=%s conf=%s default=on partitions=gpu" %
                             (self.plugin, self.spool, self.helper, self.env["GPUALERT_SYSTEM_CONFIG"]))

    def write_plugstack(self, line):
        os.makedirs(os.path.join(self.site, "plugstack.conf.d"), exist_ok=True)
        with open(self.plugstack, "w") as f:
            f.write("# site plugins\ninclude plugstack.conf.d/*.conf\n")
        with open(os.path.join(self.site, "plugstack.conf.d", "gpualert.conf"), "w") as f:
            f.write("# gpualert\n%s\n" % line)

    def write_system(self, text):
        with open(self.env["GPUALERT_SYSTEM_CONFIG"], "w") as f:
            f.write(text)

    def check(self, *extra):
        r = self.gpualert(["config", "check", "--plugstack", self.plugstack] + list(extra), timeout=60)
        return r.returncode, r.stdout.decode(), r.stderr.decode()

    def good_system(self, url):
        return ("smtp_url = %s\nsmtp_tls = required\nsmtp_ca_file = %s/cert.pem\nsmtp_user = alice\n"
                "smtp_password_file = %s\nfrom = gpualert@cluster.test\nadmin_to = hpc-admins@cluster.test\n"
                % (url, self.tls, self.pwfile))

    def test_a_good_site_passes_and_nothing_is_sent(self):
        with SmtpServer(self.tmp, "--starttls", "--tls-dir", self.tls, "--auth", "alice:s3cret-horse") as srv:
            self.write_system(self.good_system(srv.url))
            rc, out, err = self.check()
            got = srv.messages()
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(got, [], "config check sent a message")
        self.assertIn("encrypted", out)
        self.assertIn("AUTH accepted", out)
        self.assertIn("nothing was sent", out)
        self.assertIn("jobs in gpu are watched", out)
        self.assertNotIn("s3cret", out + err)
        self.assertRegex(out, r"(?m)^  ok +spool .*root's, 0755")

    def test_json_for_config_management(self):
        with SmtpServer(self.tmp, "--starttls", "--tls-dir", self.tls, "--auth", "alice:s3cret-horse") as srv:
            self.write_system(self.good_system(srv.url))
            rc, out, _ = self.check("--json")
        doc = json.loads(out)
        self.assertEqual(rc, 0)
        self.assertTrue(doc["ok"])
        self.assertTrue(all(c["status"] in ("ok", "info", "warn") for c in doc["checks"]), doc)
        self.assertIn("delivery", {c["area"] for c in doc["checks"]})

    def test_each_mistake_fails_with_its_file_and_line(self):
        system = self.env["GPUALERT_SYSTEM_CONFIG"]
        bad_rules = os.path.join(self.site, "rules.d", "50-site.json")
        with open(bad_rules, "w") as f:
            f.write('{"rules": [ {"id": "x", "pattern": "(unclosed" ')
        self.write_system("from = gpualert@cluster.test\nadmin_to = hpc-admins@cluster.test\n"
                          "smtp_ulr = smtp://relay\nsend_timeout = soon\nsmtp_url = smtp://u:hunter2@127.0.0.1:%d\n"
                          % closed_port())
        os.rename(system, os.path.join(self.site, "gpualert.conf"))
        self.env["GPUALERT_SYSTEM_CONFIG"] = os.path.join(self.site, "gpualert.conf")
        os.chmod(self.spool, 0o777)
        self.write_plugstack("required %s spool=%s helper=%s/no-such-helper conf=%s colour=blue" %
                             (self.plugin, self.spool, self.tmp, self.env["GPUALERT_SYSTEM_CONFIG"]))
        rc, out, err = self.check("--json")
        self.assertEqual(rc, 1, out + err)
        fails = [c for c in json.loads(out)["checks"] if c["status"] == "fail"]
        text = "\n".join("%s %s %s" % (c["area"], c.get("where", ""), c["message"]) for c in fails)
        conf = self.env["GPUALERT_SYSTEM_CONFIG"]
        self.assertRegex(text, r"config %s:3 .*smtp_ulr" % conf)
        self.assertRegex(text, r"config %s:4 " % conf)
        self.assertIn("50-site.json", text)                    # the rule file that does not compile
        self.assertRegex(text, r"delivery .*does not work")     # the relay is down
        self.assertRegex(text, r"plugstack \S+gpualert.conf:2 .*colour=blue")
        self.assertRegex(text, r"plugstack \S+gpualert.conf:2 .*no-such-helper")
        self.assertRegex(text, r"spool %s .*writable by group or others" % self.spool)
        self.assertNotIn("hunter2", out + err)

    def test_a_missing_sendmail_fails(self):
        self.write_system("transport = sendmail\nsendmail_path = %s/no-sendmail\nadmin_to = a@b.org\n" % self.tmp)
        rc, out, _ = self.check()
        self.assertEqual(rc, 1)
        self.assertIn("no-sendmail is missing", out)
        self.write_system("transport = sendmail\nsendmail_path = /bin/true\nadmin_to = a@b.org\n")
        rc, out, _ = self.check("--no-relay")
        self.assertEqual(rc, 0, out)

    def test_auth_over_plain_text_fails(self):
        with SmtpServer(self.tmp, "--auth", "alice:s3cret-horse") as srv:
            self.write_system(self.good_system(srv.url).replace("smtp_tls = required", "smtp_tls = off"))
            rc, out, _ = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("AUTH over an unencrypted connection", out)
