#!/usr/bin/python3
"""A tiny local model-hub HTTP server for the asset_error scenarios.

Started by a scenario's setup (outside the captured job, so its own request
log never reaches the job's output) on 127.0.0.1:<port>, and stopped by the
scenario's post hook; it also exits by itself after --lifetime seconds so a
failed run cannot leak it.  It serves a hub-like layout

    GET|HEAD /<org>/<name>/resolve/<revision>/<file>
    GET      /api/models/<org>/<name>/revision/<revision>
    GET      /models/<file>                     (a plain file server)

from a JSON config:

    {"root": "/dir/with/files",
     "repos": {"org/name": {"revisions": ["main"], "gated": true,
                             "tokens": ["tok_..."], "files": {"model.pt": "model.pt"}}},
     "status": 503,          # answer every request with this status
     "truncate": 4096,       # serve only the first N bytes (Content-Length = N)
     "drop_after": 65536}    # announce the full length, send N bytes, close

Errors answer with a JSON body {"error": ...} and an X-Error-Code header, the
way public hubs do.
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--lifetime", type=float, default=300)
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    root = cfg.get("root", os.path.dirname(os.path.abspath(a.config)))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "modelhub/0.3"

        def log_message(self, fmt, *args):  # keep quiet
            pass

        def _error(self, status, code, msg):
            body = json.dumps({"error": msg}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", msg)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _send_file(self, path):
            data = open(path, "rb").read()
            if cfg.get("truncate"):
                data = data[: cfg["truncate"]]
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("ETag", '"%08x"' % (hash(data) & 0xFFFFFFFF))
            self.end_headers()
            if self.command == "HEAD":
                return
            drop = cfg.get("drop_after")
            if drop:
                self.wfile.write(data[:drop])
                self.wfile.flush()
                time.sleep(0.2)
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.wfile.write(data)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            if cfg.get("status"):
                st = cfg["status"]
                msg = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}.get(st, "error")
                return self._error(st, "ServerError", msg)
            path = self.path.split("?")[0]
            m = re.match(r"^/models/([^/]+)$", path)
            if m:
                p = os.path.join(root, m.group(1))
                if not os.path.isfile(p):
                    return self._error(404, "EntryNotFound", "Not Found")
                return self._send_file(p)
            m = re.match(r"^/api/models/([^/]+/[^/]+)/revision/([^/]+)$", path)
            m2 = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
            if not (m or m2):
                return self._error(404, "NotFound", "Not Found")
            repo_id, rev = (m or m2).group(1), (m or m2).group(2)
            repo = cfg.get("repos", {}).get(repo_id)
            auth = self.headers.get("Authorization", "")
            token = auth[7:] if auth.startswith("Bearer ") else None
            if repo is None:
                return self._error(401 if not token else 404, "RepoNotFound", "Repository not found")
            if repo.get("gated"):
                if not token:
                    return self._error(401, "GatedRepo", f"Access to model {repo_id} is restricted. "
                                       "You must be authenticated to access it.")
                if token not in repo.get("tokens", []):
                    return self._error(403, "GatedRepo", f"Access to model {repo_id} is restricted and you are "
                                       "not in the authorized list. Visit the model page to ask for access.")
            if rev not in repo.get("revisions", ["main"]):
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            if m:
                body = json.dumps({"id": repo_id, "sha": "%040x" % abs(hash(repo_id + rev)),
                                   "siblings": [{"rfilename": f} for f in repo.get("files", {})]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            fname = m2.group(3)
            if fname not in repo.get("files", {}):
                return self._error(404, "EntryNotFound", f"{fname} does not exist on \"{rev}\"")
            return self._send_file(os.path.join(root, repo["files"][fname]))

    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    threading.Timer(a.lifetime, srv.shutdown).start()
    print("ready", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
