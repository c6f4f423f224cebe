#!/usr/bin/env python3
"""Client connect loop for lbd tests, run inside a client host.

Sequential connections to TARGET (ADDR:PORT), as fast as they go or one per
--interval seconds, until --duration passes, --count is reached or the
--stop-file appears. Each one: connect, read what identifies the server that
answered, close.

  plain (default)   read the tag line a tagserver.py sends; success = a line
  --tls             TLS (verify with --ca, or none), send "GET PATH", read the
                    response; success = status 200; the server is named by
                    the DNS names in its certificate (the lab's apiserver
                    certificates carry DNS:<host name>)

The JSON written to --out at the end (and to --status every 0.2 s while it
runs, replaced atomically) holds:
  ok: {server: count}, failed: count, failures: [[t, kind, detail, lport]],
  hits: [[t, server], ...] (every success, t in CLOCK_MONOTONIC seconds, the
  clock all processes on the machine share), t_start, t_end, running.
"""

import argparse
import json
import os
import socket
import ssl
import sys
import time


def parse_addr(text):
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def read_line(s, limit=256):
    buf = b""
    while b"\n" not in buf and len(buf) < limit:
        chunk = s.recv(limit)
        if not chunk:
            break
        buf += chunk
    return buf


def server_of_cert(cert):
    for kind, value in cert.get("subjectAltName", ()):
        if kind == "DNS" and value not in ("localhost",) and not value.startswith("kubernetes"):
            return value
    return "?"


class Loop:
    def __init__(self, a):
        self.a = a
        self.target = parse_addr(a.target)
        self.fam = socket.AF_INET6 if ":" in self.target[0] else socket.AF_INET
        self.ok = {}
        self.hits = []
        self.failures = []
        self.nfailed = 0
        self.t_start = time.monotonic()
        self.t_end = None
        self.ctx = None
        if a.tls:
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self.ctx.check_hostname = False
            if a.ca:
                self.ctx.load_verify_locations(cafile=a.ca)
                self.ctx.verify_mode = ssl.CERT_REQUIRED
            else:
                self.ctx.verify_mode = ssl.CERT_NONE
        self.request = ("GET %s HTTP/1.1\r\nHost: kubernetes\r\nUser-Agent: "
                        "cpha-connloop\r\nConnection: close\r\n\r\n" % a.path).encode()

    def one(self):
        """(server, None) on success, else (None, (kind, detail, lport))."""
        s = socket.socket(self.fam, socket.SOCK_STREAM)
        s.settimeout(self.a.timeout)
        lport = 0
        try:
            if self.a.source:
                s.bind((self.a.source, 0))
            try:
                s.connect(self.target)
            except OSError as e:
                return None, ("connect", e.__class__.__name__ + ": " + str(e), 0)
            lport = s.getsockname()[1]
            if self.ctx is None:
                try:
                    line = read_line(s)
                except OSError as e:
                    return None, ("read", e.__class__.__name__ + ": " + str(e), lport)
                if not line.endswith(b"\n"):
                    return None, ("no-tag", repr(line[:60]), lport)
                return line.strip().decode(errors="replace"), None
            try:
                t = self.ctx.wrap_socket(s)
            except (OSError, ssl.SSLError) as e:
                return None, ("tls", e.__class__.__name__ + ": " + str(e), lport)
            try:
                server = server_of_cert(t.getpeercert() or {}) if self.a.ca else "?"
                t.sendall(self.request)
                resp = b""
                while True:
                    chunk = t.recv(65536)
                    if not chunk:
                        break
                    resp += chunk
            except (OSError, ssl.SSLError) as e:
                return None, ("http", e.__class__.__name__ + ": " + str(e), lport)
            finally:
                t.close()
            status = resp.split(b"\r\n", 1)[0]
            if not status.startswith(b"HTTP/1.1 200 "):
                return None, ("status", repr(status[:60]), lport)
            return server, None
        finally:
            s.close()

    def dump(self, path, running):
        if not path:
            return
        doc = {"ok": self.ok, "failed": self.nfailed, "failures": self.failures[:200],
               "total": sum(self.ok.values()) + self.nfailed,
               "t_start": self.t_start, "t_end": self.t_end or time.monotonic(),
               "running": running}
        if not running:
            doc["hits"] = self.hits
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, path)

    def run(self):
        a = self.a
        deadline = self.t_start + a.duration
        next_status = 0.0
        n = 0
        while True:
            now = time.monotonic()
            if now >= deadline or (a.count and n >= a.count):
                break
            if a.stop_file and os.path.exists(a.stop_file):
                break
            if now >= next_status:
                self.dump(a.status, True)
                next_status = now + 0.2
            t0 = time.monotonic()
            server, fail = self.one()
            n += 1
            if fail is None:
                self.ok[server] = self.ok.get(server, 0) + 1
                self.hits.append((round(t0, 4), server))
            else:
                self.nfailed += 1
                self.failures.append((round(t0, 4),) + fail)
            if a.interval:
                time.sleep(max(0.0, t0 + a.interval - time.monotonic()))
        self.t_end = time.monotonic()
        self.dump(a.status, False)
        self.dump(a.out, False)
        print("connloop: %d ok %s, %d failed, %.2fs" % (
            sum(self.ok.values()), self.ok, self.nfailed, self.t_end - self.t_start),
            flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--duration", type=float, default=10.0, help="upper bound, seconds")
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--interval", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=3.0)
    ap.add_argument("--source", default=None, help="bind to this address")
    ap.add_argument("--stop-file")
    ap.add_argument("--status")
    ap.add_argument("--out")
    ap.add_argument("--tls", action="store_true")
    ap.add_argument("--ca")
    ap.add_argument("--path", default="/livez")
    Loop(ap.parse_args()).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
