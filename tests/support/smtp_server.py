#!/usr/bin/python3
"""A misbehaving-on-demand SMTP server for gpualert's tests (loopback only).

Run it with /usr/bin/python3 (it needs Debian's python3-aiosmtpd; the stdlib
and aiosmtpd are all it uses).

    /usr/bin/python3 tests/support/smtp_server.py --port 0 --mode ok --maildir DIR

Protocol with the test: the server binds 127.0.0.1 on --port (0 = a free port
chosen by the kernel, so there is no port race), then prints exactly one line
"PORT <number>" on stdout and flushes it. Nothing else is ever written to
stdout (diagnostics go to stderr with --verbose). It exits on SIGTERM or
SIGINT, or by itself after --lifetime seconds.

Flags:
  --port N           TCP port on 127.0.0.1; 0 (default) picks a free one.
  --mode MODE        what the server does (default: ok):
       ok          accepts every message and stores it in --maildir:
                   <n>.json (envelope: {"mail_from", "rcpt_tos", "tls",
                   "auth_user", "peer", "size"}) is written first, then <n>.eml
                   (the raw message as received, CRLF, dot-stuffing removed)
                   is renamed into place, so a visible .eml is complete.
                   n counts from 1 per server process (zero-padded to 6).
       hang        plain socket: accepts connections and never sends anything,
                   not even the 220 greeting.
       greet-hang  greets and answers EHLO, then never answers the command
                   chosen by --hang-at (default: mail = MAIL FROM).
       tempfail    answers 451 at the stage chosen by --fail-at.
       reject      answers 550 at the stage chosen by --fail-at.
       shutdown    answers 421 (closing the channel) at the stage chosen by --fail-at.
  --maildir DIR      where mode ok stores messages (created if missing).
  --fail-at STAGE    rcpt or data (default: data = after the whole message).
  --reject-rcpt ADDR answer 550 (user unknown) to RCPT TO:<ADDR>, in any mode;
                     repeatable. The other recipients are handled as the mode says.
  --reject-rcpt-prefix P  the same for every address starting with P.
  --tempfail-rcpt-prefix P  answer 451 to RCPT TO any address starting with P.
  --hang-rcpt-prefix P  never answer RCPT TO any address starting with P.
  (The prefix options let one server fail differently per recipient, so that jobs
  running at the same time can each meet their own fault.)
  --hang-at STAGE    mail, rcpt or data (default: mail) for greet-hang.
  --starttls         offer STARTTLS and require it before MAIL/AUTH. A
                     self-signed certificate for "localhost" and 127.0.0.1 is
                     generated with the openssl CLI into --tls-dir.
  --smtps            implicit TLS on connect (for smtps:// URLs), same cert.
  --tls-dir DIR      where cert.pem / key.pem go (default: a temporary dir
                     removed at exit). Use DIR/cert.pem as the client's CA file.
  --auth USER:PASS   require AUTH (PLAIN or LOGIN) with these credentials
                     before MAIL; wrong ones get 535. Without --starttls or
                     --smtps, AUTH is allowed over plain text.
  --lifetime SECS    exit after SECS seconds even without a signal (0 = never;
                     default 600) so a crashed test cannot leave it running.
  --verbose          log sessions to stderr.
"""

import argparse
import asyncio
import json
import logging
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

FAIL_REPLIES = {
    "tempfail": "451 4.3.0 Temporary failure, please try again later",
    "reject": "550 5.7.1 Message rejected by test server",
    "shutdown": "421 4.3.2 Service shutting down, closing transmission channel",
}


def log(args, *parts):
    if args.verbose:
        print("smtp_server:", *parts, file=sys.stderr, flush=True)


def make_cert(tls_dir):
    """Self-signed certificate valid for localhost and 127.0.0.1."""
    os.makedirs(tls_dir, exist_ok=True)
    cert = os.path.join(tls_dir, "cert.pem")
    key = os.path.join(tls_dir, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


async def forever():
    await asyncio.get_running_loop().create_future()


class Handler:
    """aiosmtpd hooks; each mode changes one answer."""

    def __init__(self, args):
        self.args = args
        self.count = 0

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.args.mode == "greet-hang" and self.args.hang_at == "mail":
            log(self.args, "hanging after MAIL FROM")
            await forever()
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.args.mode == "greet-hang" and self.args.hang_at == "rcpt":
            await forever()
        if address in self.args.reject_rcpt or any(address.startswith(p) for p in self.args.reject_rcpt_prefix):
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        if any(address.startswith(p) for p in self.args.tempfail_rcpt_prefix):
            return "451 4.3.0 <%s>: mailbox busy, try again later" % address
        if any(address.startswith(p) for p in self.args.hang_rcpt_prefix):
            log(self.args, "hanging at RCPT for", address)
            await forever()
        if self.args.mode in FAIL_REPLIES and self.args.fail_at == "rcpt":
            return FAIL_REPLIES[self.args.mode]
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.args.mode == "greet-hang" and self.args.hang_at == "data":
            log(self.args, "hanging after DATA")
            await forever()
        if self.args.mode in FAIL_REPLIES:
            return FAIL_REPLIES[self.args.mode]
        self.count += 1
        base = os.path.join(self.args.maildir, "%06d" % self.count)
        meta = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": list(envelope.rcpt_tos),
            # session.ssl is only set by STARTTLS; implicit TLS shows on the transport.
            "tls": session.ssl is not None or self.args.smtps,
            "auth_user": getattr(session, "gpualert_user", None),
            "peer": list(session.peer) if session.peer else None,
            "size": len(envelope.original_content or b""),
        }
        with open(base + ".json", "w") as f:
            json.dump(meta, f)
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content or b"")
        os.rename(base + ".eml.tmp", base + ".eml")
        log(self.args, "stored", base + ".eml")
        return "250 2.0.0 OK stored"


def make_authenticator(user, password):
    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login == user.encode() and auth_data.password == password.encode())
        if ok:
            session.gpualert_user = user
        # handled=False: aiosmtpd then answers 535 itself (the default sends nothing).
        return AuthResult(success=ok, handled=False, auth_data=auth_data)
    return authenticator


async def hold_connection(reader, writer):
    """Mode hang: accept, read and discard, never answer."""
    try:
        while await reader.read(65536):
            pass
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(args):
    if not args.verbose:
        # aiosmtpd warns about AUTH without TLS; the tests ask for exactly that.
        warnings.simplefilter("ignore")
        logging.getLogger("mail.log").setLevel(logging.ERROR)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    if args.lifetime > 0:
        loop.call_later(args.lifetime, lambda: stop.done() or stop.set_result(None))

    tls_ctx = None
    tmp_tls = None
    if args.starttls or args.smtps:
        tls_dir = args.tls_dir
        if not tls_dir:
            tmp_tls = tempfile.mkdtemp(prefix="smtp-test-tls-")
            tls_dir = tmp_tls
        tls_ctx = make_cert(tls_dir)

    if args.mode == "hang":
        server = await asyncio.start_server(hold_connection, "127.0.0.1", args.port)
    else:
        handler = Handler(args)
        kwargs = dict(hostname="localhost", data_size_limit=None)
        if args.starttls:
            kwargs.update(tls_context=tls_ctx, require_starttls=True)
        if args.auth:
            user, _, password = args.auth.partition(":")
            kwargs.update(authenticator=make_authenticator(user, password), auth_required=True,
                          auth_require_tls=bool(args.starttls))
        server = await loop.create_server(lambda: SMTP(handler, **kwargs), "127.0.0.1", args.port,
                                          ssl=tls_ctx if args.smtps else None)

    port = server.sockets[0].getsockname()[1]
    sys.stdout.write("PORT %d\n" % port)
    sys.stdout.flush()
    log(args, "listening on", port, "mode", args.mode)
    try:
        await stop
    finally:
        server.close()
        if tmp_tls:
            shutil.rmtree(tmp_tls, ignore_errors=True)


def parse_args():
    p = argparse.ArgumentParser(description="SMTP server for gpualert tests")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--mode", choices=["ok", "hang", "greet-hang", "tempfail", "reject", "shutdown"], default="ok")
    p.add_argument("--maildir")
    p.add_argument("--fail-at", choices=["rcpt", "data"], default="data")
    p.add_argument("--reject-rcpt", action="append", default=[],
                   help="answer 550 to RCPT TO this address (any mode; repeatable)")
    p.add_argument("--reject-rcpt-prefix", action="append", default=[],
                   help="answer 550 to RCPT TO any address starting with this (repeatable)")
    p.add_argument("--tempfail-rcpt-prefix", action="append", default=[],
                   help="answer 451 to RCPT TO any address starting with this (repeatable)")
    p.add_argument("--hang-rcpt-prefix", action="append", default=[],
                   help="never answer RCPT TO any address starting with this (repeatable)")
    p.add_argument("--hang-at", choices=["mail", "rcpt", "data"], default="mail")
    p.add_argument("--starttls", action="store_true")
    p.add_argument("--smtps", action="store_true")
    p.add_argument("--tls-dir")
    p.add_argument("--auth")
    p.add_argument("--lifetime", type=float, default=600)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    if args.mode == "ok":
        if not args.maildir:
            p.error("--mode ok needs --maildir")
        os.makedirs(args.maildir, exist_ok=True)
    if args.starttls and args.smtps:
        p.error("--starttls and --smtps exclude each other")
    if args.auth and ":" not in args.auth:
        p.error("--auth wants USER:PASS")
    return args


if __name__ == "__main__":
    try:
        asyncio.run(main(parse_args()))
    except KeyboardInterrupt:
        pass
