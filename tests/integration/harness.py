"""Shared fixtures for the end-to-end tests: an isolated HOME per test, a way
to run the real gpualert binary, and a real SMTP server on loopback."""

import email
import email.policy
import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

GPUALERT = os.environ["GPUALERT_BIN"]
CHILD = os.environ["CHILD_HELPER"]
SMTP_SERVER = os.environ["SMTP_SERVER"]
WEBHOOK_SERVER = os.path.join(os.path.dirname(SMTP_SERVER), "webhook_server.py")
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")


class Result:
    def __init__(self, proc, out, err, elapsed, run_dir):
        self.returncode = proc.returncode
        self.stdout = out
        self.stderr = err
        self.elapsed = elapsed
        self.run_dir = run_dir

    def file(self, name):
        with open(os.path.join(self.run_dir, name), "rb") as f:
            return f.read()

    def json(self, name):
        return json.loads(self.file(name))


class GpualertCase(unittest.TestCase):
    """Each test gets its own HOME, state dir and config, so nothing leaks between tests."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpualert-it-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.state = os.path.join(self.tmp, "state")
        self.outbox = os.path.join(self.state, "outbox")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "XDG_STATE_HOME": os.path.join(self.home, ".local", "state"),
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "GPUALERT_SYSTEM_CONFIG": os.path.join(self.tmp, "system.conf"),
            "GPUALERT_STATE_DIR": self.state,
            "LANG": "C.UTF-8",
            # The node's journal belongs to whatever else runs here; these tests judge output only.
            "GPUALERT_KERNEL_EVENTS": "no",
        }
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                self.env[k] = os.environ[k]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_dir(self, name="run"):
        return os.path.join(self.tmp, name)

    def gpualert(self, args, command=None, env=None, timeout=120, run_dir=None, stdin=subprocess.DEVNULL,
                 stdout=subprocess.PIPE, preexec_fn=None):
        """Runs `gpualert ARGS -- COMMAND` (or `gpualert ARGS` when COMMAND is None); PREEXEC_FN runs in
        the child before the exec (e.g. to join a cgroup)."""
        full = [GPUALERT] + list(args)
        rd = None
        if command is not None:
            rd = run_dir or self.run_dir()
            full = [GPUALERT, "run", "--run-dir", rd] + list(args) + ["--"] + list(command)
        e = dict(self.env)
        if env:
            e.update(env)
        t0 = time.monotonic()
        p = subprocess.Popen(full, env=e, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, cwd=self.tmp,
                             preexec_fn=preexec_fn)
        out, err = p.communicate(timeout=timeout)
        return Result(p, out, err, time.monotonic() - t0, rd)

    def bare(self, command, timeout=120):
        p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           cwd=self.tmp, env=self.env)
        return p

    def outbox_messages(self, sub="pending"):
        files = sorted(glob.glob(os.path.join(self.outbox, sub, "*.eml")))
        return [parse_message(open(f, "rb").read()) for f in files]


def parse_message(raw):
    return email.message_from_bytes(raw, policy=email.policy.default)


def message_parts(msg):
    """(body text, {attachment filename: bytes})."""
    body = None
    attachments = {}
    for part in msg.walk():
        if part.is_multipart():
            continue
        fn = part.get_filename()
        if fn and part.get_content_disposition() == "inline":
            continue  # the HTML's picture (the loss curve), not a file of the run
        if fn:
            attachments[fn] = part.get_payload(decode=True)
        elif part.get_content_type() == "text/plain" and body is None:
            body = part.get_content()
    return body, attachments


class ChildServer:
    """A test server as a child process that prints "PORT <n>" once it listens."""

    def __init__(self, argv, what):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError("%s did not start: %r %r" % (what, line, self.proc.stderr.read()))
        self.port = int(line.split()[1])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


class SmtpServer(ChildServer):
    """tests/support/smtp_server.py as a child process; .port, .maildir, .messages()."""

    def __init__(self, tmp, *flags):
        self.maildir = os.path.join(tmp, "maildir-%d" % time.monotonic_ns())
        super().__init__([PYTHON, SMTP_SERVER, "--port", "0", "--maildir", self.maildir] + list(flags), "SMTP server")
        self.url = "smtp://127.0.0.1:%d" % self.port

    def messages(self):
        out = []
        for f in sorted(glob.glob(os.path.join(self.maildir, "*.eml"))):
            with open(f, "rb") as fh:
                out.append(parse_message(fh.read()))
        return out


class WebhookServer(ChildServer):
    """tests/support/webhook_server.py as a child process: .url(path), .posts() (each {"path",
    "content_type", "body", "json"}), in the order received."""

    def __init__(self, tmp, *flags):
        self.dir = os.path.join(tmp, "posts-%d" % time.monotonic_ns())
        super().__init__([PYTHON, WEBHOOK_SERVER, "--dir", self.dir] + list(flags), "webhook server")

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def posts(self):
        out = []
        for f in sorted(glob.glob(os.path.join(self.dir, "*.json"))):
            with open(f) as fh:
                p = json.load(fh)
            p["json"] = json.loads(p["body"])
            out.append(p)
        return out


def closed_port():
    """A loopback port with nothing listening (bound then released)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
