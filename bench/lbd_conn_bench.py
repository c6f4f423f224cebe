#!/usr/bin/env python3
"""New connections per second and a reconnect storm: lbd against HAProxy
from Debian and against the floor, in the same run, on loopback.

Both proxies get the same TCP configuration and the same thread count
(1, then 2) and run side by side on their own ports; the client alternates
between them every --slice seconds (1 s) until each had --seconds, so load
that comes and goes on the machine falls on both; each figure is the
median of the rounds.
The floor (cpha-bench-floor, bench/tools/floorproxy.c) runs beside them
with the same thread count and backends: a minimal epoll proxy, what any
TCP-terminating proxy costs on this kernel. The ratios lbd/HAProxy and
lbd/floor are also printed per turn: the three proxies' turns of one slice
are adjacent in time, so each slice gives a ratio that the machine's other
load moves little; the median of those ratios over all rounds is printed
with a 95% bootstrap interval (bench/ratio.py), for the rate and for the
proxy's CPU time per connection.
The same patterns without a proxy (client straight to the server) are the
ceiling; the share of it each proxy reaches is printed beside the ratio.

  req     client request, response, client close (cpha-bench-conn)
  banner  the server speaks first and closes
  tls     a TLS handshake passed through to a TLS backend (HAProxy
          terminating TLS, ECDSA P-256), then one HTTP/1.0 request
  storm   5,000 watch-like connections over three servers; s1 is marked
          down from the admin socket (set server storm/s1 health down) with
          on-marked-down shutdown-sessions. Time from the command until
          every cut client has reconnected and received data from another
          server, and the time to first byte of other clients meanwhile
          (new connections at a fixed rate, open loop, p50/p99). HAProxy
          cuts all at once; lbd runs without and with
          shutdown-sessions-spread.

Every process started here is stopped here, by its PID.
"""

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lbd_bench import HAPROXY, LBD, BUILD, log, median, wait_port  # noqa: E402
from ratio import fmt_ratio, median_of_ratios  # noqa: E402

CONN_TOOL = os.path.join(BUILD, "bench", "cpha-bench-conn")
FLOOR_TOOL = os.path.join(BUILD, "bench", "cpha-bench-floor")

PORTS = {"req": 29101, "banner": 29102, "tls": 29103, "storm": 29104}
BACKENDS = {"req": 29201, "banner": 29202, "tls": 29203}
# The proxy closes first towards the req server (it passes the client's
# FIN on), so its ports to one server address wait in TIME_WAIT: one
# address and port takes about 14,000 such connections per second (see
# tools/conn.c). Four server ports, so the cap is not what is measured.
REQ_EXTRA = [29205, 29206, 29207]
STORM_SERVERS = [29211, 29212, 29213]
STORM_CONNS = 5000
SPREAD = "1s"
# the storm plus its probes; lbd also counts a pipe per 4 connections
# against the 20,000 descriptors (docs/performance.md)
MAXCONN = 7000

PROXY_CFG = """
global
    nbthread {threads}
    maxconn {maxconn}
    stats socket {sock} level admin
{extra_global}
defaults
    mode tcp
    timeout connect 5s
    timeout client 5m
    timeout server 5m
frontend req
    bind 127.0.0.1:{p[req]}
    default_backend req
backend req
    server s1 127.0.0.1:{b[req]}
    server s2 127.0.0.1:{rx[0]}
    server s3 127.0.0.1:{rx[1]}
    server s4 127.0.0.1:{rx[2]}
frontend banner
    bind 127.0.0.1:{p[banner]}
    default_backend banner
backend banner
    server s1 127.0.0.1:{b[banner]}
frontend tls
    bind 127.0.0.1:{p[tls]}
    default_backend tls
backend tls
    server s1 127.0.0.1:{b[tls]}
frontend storm
    bind 127.0.0.1:{p[storm]}
    default_backend storm
backend storm
    default-server check inter 2s on-marked-down shutdown-sessions{spread}
    server s1 127.0.0.1:{s[0]}
    server s2 127.0.0.1:{s[1]}
    server s3 127.0.0.1:{s[2]}
"""

TLS_BACKEND_CFG = """
global
    nbthread 1
    maxconn 4000
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout http-request 30s
frontend tls
    bind 127.0.0.1:{port} ssl crt {pem}
    http-request return status 200 content-type text/plain string ok
"""


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# Each proxy has its own frontend ports, so both can run at once and the
# client can alternate between them every --slice seconds.
PORT_OFFSET = {"lbd": 0, "haproxy": 10, "lbd+spread": 20, "floor": 30}
# the floor has no health checks: it takes the connection patterns only
FLOOR_PATTERNS = ("req", "banner", "tls")


class Proxy:
    def __init__(self, kind, threads, work, spread=False):
        self.kind, self.threads, self.spread = kind, threads, spread
        self.name = "%s%s" % (kind, "+spread" if spread else "")
        self.ports = {k: v + PORT_OFFSET[self.name] for k, v in PORTS.items()
                      if kind != "floor" or k in FLOOR_PATTERNS}
        self.sock = os.path.join(work, "%s-%d.sock" % (self.name, threads))
        self.cfg = os.path.join(work, "%s-%d.cfg" % (self.name, threads))
        self.proc = None
        if kind == "floor":
            backends = {"req": [BACKENDS["req"]] + REQ_EXTRA, "banner": [BACKENDS["banner"]],
                        "tls": [BACKENDS["tls"]]}
            self.argv = [FLOOR_TOOL, str(threads)] + [
                "%d=%s" % (port, ",".join(str(b) for b in backends[k]))
                for k, port in self.ports.items()]
            return
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        glob = "    ulimit-n %d\n" % hard if kind == "haproxy" else ""
        with open(self.cfg, "w") as f:
            f.write(PROXY_CFG.format(threads=threads, maxconn=MAXCONN, sock=self.sock,
                                     extra_global=glob, p=self.ports, b=BACKENDS, s=STORM_SERVERS,
                                     rx=REQ_EXTRA,
                                     spread=" shutdown-sessions-spread " + SPREAD
                                     if spread else ""))
        self.argv = [LBD if kind == "lbd" else HAPROXY, "-db", "-f", self.cfg]

    def start(self):
        argv = self.argv
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        for port in self.ports.values():
            wait_port(port)

    def admin(self, line):
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.sock)
        s.sendall(line.encode() + b"\n")
        out = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            out += b
        s.close()
        return out.decode()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        time.sleep(0.5)  # let the ports and TIME_WAITs settle


def cpu_seconds(pid):
    """User and system time of a process, all its threads."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def client(mode, port, seconds, conns, threads, pid=None):
    """Run the client; with pid, also the CPU that process spent per
    connection (us): the proxy's own cost, which the load of others on the
    machine moves much less than the rate."""
    before = cpu_seconds(pid) if pid else 0
    out = subprocess.run([CONN_TOOL, "client", mode, str(port), str(conns), str(seconds),
                          str(threads)], capture_output=True, text=True, timeout=seconds + 30)
    r = json.loads(out.stdout)
    if pid:
        r["cpu_us"] = (cpu_seconds(pid) - before) * 1e6 / max(r["conns"], 1)
    return r


def storm(proxy, probe_rate):
    st = subprocess.Popen([CONN_TOOL, "storm", str(proxy.ports["storm"]), str(STORM_CONNS),
                           str(probe_rate)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, start_new_session=True)
    try:
        ready = st.stdout.readline()
        if not ready.startswith("ready"):
            raise RuntimeError("storm: " + ready)
        time.sleep(1.0)
        t0 = time.monotonic_ns()
        proxy.admin("set server storm/s1 health down")
        st.stdin.write("%d s1\n" % t0)
        st.stdin.flush()
        out = st.stdout.readline()
        st.wait(70)
        r = json.loads(out)
        r["ready"] = ready.strip()
        return r
    finally:
        if st.poll() is None:
            st.kill()
            st.wait()


def start_helpers(work, helpers):
    pem = os.path.join(work, "tls.pem")
    key = os.path.join(work, "tls.key")
    crt = os.path.join(work, "tls.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt,
                    "-days", "2", "-subj", "/CN=bench.invalid"], check=True,
                   capture_output=True)
    with open(pem, "w") as f:
        f.write(open(crt).read() + open(key).read())
    tcfg = os.path.join(work, "tls-backend.cfg")
    with open(tcfg, "w") as f:
        f.write(TLS_BACKEND_CFG.format(port=BACKENDS["tls"], pem=pem))
    argvs = [[CONN_TOOL, "server", "req", "1", str(BACKENDS["req"])] + [str(p) for p in REQ_EXTRA],
             [CONN_TOOL, "server", "banner", "1", str(BACKENDS["banner"])],
             [CONN_TOOL, "server", "watch", "1"] +
             ["%d:s%d" % (p, i + 1) for i, p in enumerate(STORM_SERVERS)],
             [HAPROXY, "-db", "-f", tcfg]]
    for argv in argvs:
        helpers.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))
    for port in list(BACKENDS.values()) + STORM_SERVERS + REQ_EXTRA:
        wait_port(port)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--slice", type=float, default=1.0,
                    help="seconds per turn when alternating between the proxies")
    ap.add_argument("--conns", type=int, default=64, help="concurrent client connections")
    ap.add_argument("--client-threads", type=int, default=2)
    ap.add_argument("--threads", default="1,2", help="proxy thread counts")
    ap.add_argument("--patterns", default="req,banner,tls,storm")
    ap.add_argument("--probe-rate", type=int, default=1000,
                    help="storm: other clients' new connections per second")
    ap.add_argument("--only", choices=["lbd", "haproxy", "floor"], help="one proxy (profiling)")
    args = ap.parse_args()
    for tool in (LBD, CONN_TOOL, FLOOR_TOOL, HAPROXY, shutil.which("openssl")):
        if not tool or not os.path.exists(tool):
            sys.exit("missing tool: %s (run bench/conn-run.sh)" % tool)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < 2 * STORM_CONNS + 1000:
        sys.exit("the descriptor hard limit (%d) is below a proxy's %d for the storm" %
                 (hard, 2 * STORM_CONNS + 1000))
    patterns = args.patterns.split(",")
    conn_patterns = [p for p in patterns if p != "storm"]
    threads = [int(t) for t in args.threads.split(",")]
    work = tempfile.mkdtemp(prefix="cpha-connbench-")
    helpers = []
    res = {}  # (name, threads, pattern) -> [values]
    loads = [loadavg()]
    log("start: load average %.2f; %d round(s) of %g s, %d client connections, "
        "%d client threads" % (loads[0], args.rounds, args.seconds, args.conns,
                               args.client_threads))

    def add(key, v):
        res.setdefault(key, []).append(v)

    try:
        start_helpers(work, helpers)
        for rnd in range(args.rounds):
            for mode in conn_patterns:
                r = client(mode, BACKENDS[mode], args.seconds, args.conns, args.client_threads)
                add(("direct", 0, mode), r["rate"])
                log("round %d direct      %-6s %8.0f conn/s  errors %d  load %.2f" %
                    (rnd + 1, mode, r["rate"], r["errors"], loadavg()))
            for t in threads:
                # both proxies run; the client alternates between them every
                # --slice seconds, so load that comes and goes on the
                # machine falls on both
                kinds = [args.only] if args.only else ["lbd", "haproxy", "floor"]
                running = [Proxy(kind, t, work) for kind in kinds]
                try:
                    for p in running:
                        p.start()
                    for mode in conn_patterns:
                        slices = max(1, int(round(args.seconds / args.slice)))
                        tot = {p.kind: [0, 0, 0.0] for p in running}  # conns, errors, cpu us
                        for i in range(slices):
                            # each proxy takes each place in the turn in turn
                            k = (rnd + t + i) % len(running)
                            for p in running[k:] + running[:k]:
                                r = client(mode, p.ports[mode], args.slice, args.conns,
                                           args.client_threads, p.proc.pid)
                                add((p.kind, t, mode + "_slices"), r["conns"] / args.slice)
                                add((p.kind, t, mode + "_slices_cpu"), r["cpu_us"])
                                tot[p.kind][0] += r["conns"]
                                tot[p.kind][1] += r["errors"]
                                tot[p.kind][2] += r["cpu_us"] * r["conns"]
                        for p in running:
                            n, errors, cpu = tot[p.kind]
                            rate = n / (slices * args.slice)
                            add((p.kind, t, mode), rate)
                            add((p.kind, t, mode + "_cpu"), cpu / max(n, 1))
                            log("round %d %-7s t=%d %-6s %8.0f conn/s  %5.1f us CPU/conn  "
                                "errors %d  load %.2f" % (rnd + 1, p.kind, t, mode, rate,
                                                          cpu / max(n, 1), errors, loadavg()))
                finally:
                    for p in running:
                        p.stop()
            if "storm" not in patterns:
                continue
            order = [("lbd", False), ("haproxy", False), ("lbd", True)]
            if rnd % 2:
                order.reverse()
            if args.only:
                order = [o for o in order if o[0] == args.only]
            for kind, spread in order:
                p = Proxy(kind, 2, work, spread)
                p.start()
                try:
                    r = storm(p, args.probe_rate)
                finally:
                    p.stop()
                for k in ("all_reconnected_ms", "probe_p50_ms", "probe_p99_ms", "probe_max_ms",
                          "last_cut_ms"):
                    add((p.name, 2, "storm_" + k), r[k])
                log("round %d %-14s storm: %s; cut %d, all reconnected %.0f ms (cuts until "
                    "%.0f ms), reconnect p99 %.1f ms; others p50 %.2f p99 %.2f max %.1f ms "
                    "(n %d, errors %d); wrong server %d, errors %d  load %.2f" %
                    (rnd + 1, p.name, r["ready"], r["cut"], r["all_reconnected_ms"],
                     r["last_cut_ms"], r["reconnect_p99_ms"], r["probe_p50_ms"],
                     r["probe_p99_ms"], r["probe_max_ms"], r["probe_n"], r["probe_errors"],
                     r["wrong_server"], r["reconnect_errors"], loadavg()))
            loads.append(loadavg())
    finally:
        for h in helpers:
            h.send_signal(signal.SIGTERM)
        for h in helpers:
            try:
                h.wait(10)
            except subprocess.TimeoutExpired:
                h.kill()
                h.wait()
        shutil.rmtree(work, ignore_errors=True)
    loads.append(loadavg())

    log("")
    log("median of %d round(s); load average %s" % (args.rounds,
                                                    " / ".join("%.2f" % x for x in loads)))
    log("%-28s %10s %10s %10s %10s %9s %9s %9s %9s" % (
        "new connections per second", "lbd", "haproxy", "floor", "direct", "lbd/hap",
        "lbd/floor", "lbd/dir", "hap/dir"))
    for t in threads:
        for mode in conn_patterns:
            a = median(res.get(("lbd", t, mode), []))
            b = median(res.get(("haproxy", t, mode), []))
            f = median(res.get(("floor", t, mode), []))
            d = median(res.get(("direct", 0, mode), []))
            log("%-28s %10.0f %10.0f %10.0f %10.0f %9.3f %9.3f %9.3f %9.3f" %
                ("%s, %d thread(s)" % (mode, t), a, b, f, d, a / b if b else float("nan"),
                 a / f if f else float("nan"), a / d if d else float("nan"),
                 b / d if d else float("nan")))
    log("")
    log("per turn: the median over every %g-second turn of all rounds of the ratio of the "
        "proxies' adjacent turns, with a 95%% bootstrap interval; goal: lbd/floor >= 0.95 "
        "on every pattern" % args.slice)
    log("%-28s %6s %24s %24s %24s %24s" % ("", "turns", "rate lbd/haproxy", "rate lbd/floor",
                                           "rate haproxy/floor", "CPU/conn lbd/floor"))
    for t in threads:
        for mode in conn_patterns:
            sl = {k: res.get((k, t, mode + "_slices"), []) for k in ("lbd", "haproxy", "floor")}
            cpu = {k: res.get((k, t, mode + "_slices_cpu"), []) for k in ("lbd", "floor")}
            if not all(sl.values()):
                continue  # --only: one proxy
            log("%-28s %6d %24s %24s %24s %24s" % (
                "%s, %d thread(s)" % (mode, t), len(sl["lbd"]),
                fmt_ratio(median_of_ratios(sl["lbd"], sl["haproxy"])),
                fmt_ratio(median_of_ratios(sl["lbd"], sl["floor"])),
                fmt_ratio(median_of_ratios(sl["haproxy"], sl["floor"])),
                fmt_ratio(median_of_ratios(cpu["lbd"], cpu["floor"]))))
    log("")
    log("%-28s %10s %10s %10s %9s %9s" % ("proxy CPU per connection (us)", "lbd", "haproxy",
                                          "floor", "lbd/hap", "lbd/floor"))
    for t in threads:
        for mode in conn_patterns:
            a = median(res.get(("lbd", t, mode + "_cpu"), []))
            b = median(res.get(("haproxy", t, mode + "_cpu"), []))
            f = median(res.get(("floor", t, mode + "_cpu"), []))
            log("%-28s %10.1f %10.1f %10.1f %9.3f %9.3f" % (
                "%s, %d thread(s)" % (mode, t), a, b, f, a / b if b else float("nan"),
                a / f if f else float("nan")))
    if "storm" in patterns:
        log("")
        log("%-28s %12s %12s %12s" % ("storm, 2 threads (ms)", "lbd", "haproxy",
                                      "lbd+spread " + SPREAD))
        for k, label in (("all_reconnected_ms", "all reconnected"),
                         ("last_cut_ms", "last cut"),
                         ("probe_p50_ms", "others' first byte p50"),
                         ("probe_p99_ms", "others' first byte p99"),
                         ("probe_max_ms", "others' first byte max")):
            log("%-28s %12.2f %12.2f %12.2f" % (
                label, median(res.get(("lbd", 2, "storm_" + k), [])),
                median(res.get(("haproxy", 2, "storm_" + k), [])),
                median(res.get(("lbd+spread", 2, "storm_" + k), []))))


if __name__ == "__main__":
    main()
