#!/usr/bin/env python3
"""Stands in for etcd's /health endpoint only, so a kube-apiserver stand-in
is ready without running etcd (the lbd tests need ready apiservers, not
etcd). GET /health answers {"health":"true"}, or 503 {"health":"false"}
while the --fail-file exists (which turns the apiserver's /readyz to 500).

    health_stub.py --listen 127.0.0.1:2379 --fail-file PATH
"""

import argparse
import http.server
import os
import socketserver
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", default="127.0.0.1:2379")
    ap.add_argument("--fail-file", required=True)
    a = ap.parse_args()
    host, _, port = a.listen.rpartition(":")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            failing = os.path.exists(a.fail_file)
            body = b'{"health":"false","reason":"stub told to fail"}' if failing \
                else b'{"health":"true","reason":""}'
            self.send_response(503 if failing else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def server_bind(self):
            # HTTPServer.server_bind calls getfqdn() (a DNS lookup): skip it
            socketserver.TCPServer.server_bind(self)
            self.server_name, self.server_port = "localhost", self.server_address[1]

    srv = Server((host, int(port)), Handler)
    print("health stub on %s" % a.listen, flush=True)
    srv.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
