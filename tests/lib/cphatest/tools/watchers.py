#!/usr/bin/env python3
"""N long-lived Kubernetes watch streams through a load balancer, with the
reconnect logic of a client-go reflector (reconnect at once when a stream
ends), run inside a client host.

    watchers.py --target 198.18.0.10:6443 --ca ca.crt -n 6 --status FILE
                [--duration 60] [--stop-file F]

Each watcher: TLS connect (the server is named by the DNS names of the
certificate it presents), GET /api/v1/namespaces/default/events?watch=true,
read the chunked stream. When it ends (EOF, error, or no byte for --idle
seconds) the watcher records why and reconnects after --reconnect-delay.

--status (rewritten atomically every 0.1 s) holds, per watcher, a list of
segments: {server, t_open, t_first, t_last, events, t_end, end} with times
in CLOCK_MONOTONIC seconds; t_end/end are null while the stream is open.
"""

import argparse
import json
import os
import socket
import ssl
import sys
import threading
import time

PATH = "/api/v1/namespaces/default/events?watch=true"


def server_of_cert(cert):
    for kind, value in cert.get("subjectAltName", ()):
        if kind == "DNS" and value != "localhost" and not value.startswith("kubernetes"):
            return value
    return "?"


class Watcher(threading.Thread):
    def __init__(self, idx, a, ctx, stop):
        super().__init__(daemon=True)
        self.idx, self.a, self.ctx, self.stop = idx, a, ctx, stop
        self.segments = []
        self.lock = threading.Lock()

    def snapshot(self):
        with self.lock:
            return [dict(s) for s in self.segments]

    def run(self):
        host, _, port = self.a.target.rpartition(":")
        while not self.stop.is_set():
            seg = {"server": None, "t_open": time.monotonic(), "t_first": None,
                   "t_last": None, "events": 0, "t_end": None, "end": None}
            with self.lock:
                self.segments.append(seg)
            end = self.stream(host, int(port), seg)
            with self.lock:
                seg["t_end"] = time.monotonic()
                seg["end"] = end
            self.stop.wait(self.a.reconnect_delay)

    def stream(self, host, port, seg):
        try:
            s = socket.create_connection((host, port), timeout=self.a.idle)
        except OSError as e:
            return "connect: %s" % e
        try:
            t = self.ctx.wrap_socket(s)
        except (OSError, ssl.SSLError) as e:
            s.close()
            return "tls: %s" % e
        try:
            with self.lock:
                seg["server"] = server_of_cert(t.getpeercert() or {})
            t.sendall(("GET %s HTTP/1.1\r\nHost: kubernetes\r\nUser-Agent: cpha-watchers\r\n"
                       "Accept: application/json\r\n\r\n" % PATH).encode())
            f = t.makefile("rb")
            status = f.readline()
            if not status.startswith(b"HTTP/1.1 200"):
                return "status: %r" % status[:40]
            while f.readline() not in (b"\r\n", b""):
                pass
            while not self.stop.is_set():
                size_line = f.readline()
                if not size_line:
                    return "eof"
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    return "end of stream"
                data = f.read(size + 2)
                if len(data) < size + 2:
                    return "eof"
                now = time.monotonic()
                with self.lock:
                    if seg["t_first"] is None:
                        seg["t_first"] = now
                    seg["t_last"] = now
                    seg["events"] += data.count(b'"type"')
            return "stopped"
        except socket.timeout:
            return "idle"
        except (OSError, ssl.SSLError, ValueError) as e:
            return "error: %s" % e
        finally:
            try:
                t.close()
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("-n", type=int, default=6)
    ap.add_argument("--status", required=True)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--stop-file")
    ap.add_argument("--idle", type=float, default=5.0)
    ap.add_argument("--reconnect-delay", type=float, default=0.05)
    a = ap.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(cafile=a.ca)
    stop = threading.Event()
    ws = [Watcher(i, a, ctx, stop) for i in range(a.n)]
    for w in ws:
        w.start()
    deadline = time.monotonic() + a.duration

    def dump():
        doc = {"t": time.monotonic(), "watchers": [w.snapshot() for w in ws]}
        tmp = a.status + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, a.status)

    while time.monotonic() < deadline:
        if a.stop_file and os.path.exists(a.stop_file):
            break
        dump()
        time.sleep(0.1)
    stop.set()
    dump()
    return 0


if __name__ == "__main__":
    sys.exit(main())
