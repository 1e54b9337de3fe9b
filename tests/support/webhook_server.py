#!/usr/bin/python3
"""A webhook receiver for gpualert's tests (loopback only, standard library only): it takes
what a Slack or Mattermost incoming webhook, a Teams workflow or a generic JSON endpoint
would, and keeps every request.

    /usr/bin/python3 tests/support/webhook_server.py --dir DIR [--fail-first N] [--status CODE]

It binds 127.0.0.1 on a free port and prints exactly one line "PORT <number>". Each POST is
kept as DIR/<n>.json: {"path", "content_type", "body"} (body as text), written to a temporary
name and renamed, so a visible file is complete. The answer is --status (default 200, with
Slack's "ok" body) except for the first --fail-first requests, which get 503. Anything but
JSON is refused with 400, as Slack does (invalid_payload). Exits on SIGTERM.
"""
import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--fail-first", type=int, default=0)
    ap.add_argument("--status", type=int, default=200)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    lock = threading.Lock()
    state = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with lock:
                state["n"] += 1
                n = state["n"]
            ctype = self.headers.get("Content-Type", "")
            try:
                json.loads(body)
                valid = ctype.startswith("application/json")
            except ValueError:
                valid = False
            status = 400 if not valid else (503 if n <= args.fail_first else args.status)
            if status == 200:
                path = os.path.join(args.dir, "%06d.json" % n)
                with open(path + ".tmp", "w") as f:
                    json.dump({"path": self.path, "content_type": ctype, "body": body.decode("utf-8")}, f)
                os.rename(path + ".tmp", path)
            answer = b"ok" if status == 200 else b"invalid_payload" if status == 400 else b"unavailable"
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=srv.shutdown).start())
    sys.stdout.write("PORT %d\n" % srv.server_address[1])
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
