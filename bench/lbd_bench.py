#!/usr/bin/env python3
"""lbd against HAProxy from Debian, measured in the same run on loopback.

Both proxies get equivalent configurations (2 threads, one TCP frontend per
test, the same backends); they run one at a time on the same ports, rounds
alternate, and each figure is the median of the rounds. Printed ratios are
lbd / HAProxy, with which direction is better.

  throughput   iperf3 through the proxy, 1 and 8 streams (Gbit/s, higher better)
  conn/s       wrk with "Connection: close": every request a new connection
               through the proxy to a small HTTP backend (higher better)
  latency      cpha-bench-rate: new connection + request + response at a
               fixed rate, open loop; p50 and p99 (us, lower better)
  memory       RSS of the proxy holding 10,000 idle client connections
               (and as many to the backend) (MiB, lower better)

HAProxy runs with "option splice-auto" so both proxies use splice(2).
Only loopback addresses are used.
"""

import argparse
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(ROOT, "build"))
LBD = os.path.join(BUILD, "lbd", "lbd")
RATE_TOOL = os.path.join(BUILD, "bench", "cpha-bench-rate")
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"

HTTP_BACKEND_PORT = 28080
IPERF_PORT = 25201
PROXY_HTTP_PORT = 28443
PROXY_IPERF_PORT = 28201
IDLE_CONNS = 10000


def fd_budget():
    """Connections one proxy can hold: each takes two descriptors, and a
    process cannot go past the hard limit without CAP_SYS_RESOURCE."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (2 * IDLE_CONNS + 1024, 2 * IDLE_CONNS + 1024))
        hard = 2 * IDLE_CONNS + 1024
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # HAProxy also counts its pipes (maxpipes 200: 400 descriptors)
    return (hard - 600) // 2


MAXCONN = None

PROXY_CFG = """
global
    nbthread 2
    maxconn {maxconn}
{extra_global}
defaults
    mode tcp
    timeout connect 5s
    timeout client 5m
    timeout server 5m
{extra_defaults}
frontend http
    bind 127.0.0.1:{http}
    default_backend http
backend http
    server s1 127.0.0.1:{backend}
frontend iperf
    bind 127.0.0.1:{iperf_front}
    default_backend iperf
backend iperf
    server s1 127.0.0.1:{iperf}
"""

# The small HTTP backend: HAProxy answering by itself, in its own process.
BACKEND_CFG = """
global
    nbthread 1
    maxconn {maxconn}
defaults
    mode http
    timeout connect 5s
    timeout client 5m
    timeout http-request 5m
    timeout http-keep-alive 5m
frontend small
    bind 127.0.0.1:{backend}
    http-request return status 200 content-type text/plain string ok
"""


def log(msg):
    print(msg, flush=True)


def wait_port(port, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on 127.0.0.1:%d" % port)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Proxy:
    def __init__(self, name, workdir):
        self.name = name
        self.cfg = os.path.join(workdir, name + ".cfg")
        self.proc = None
        extra = "    option splice-auto\n" if name == "haproxy" else ""
        # lbd, like HAProxy, also counts descriptors for pipes (a quarter
        # of maxconn, lbd has no maxpipes): under a hard limit of 20,000
        # the idle-connection test's maxconn only fits without
        # strict-limits; idle connections use no pipes
        glob = ("    ulimit-n %d\n    maxpipes 200\n" % resource.getrlimit(
            resource.RLIMIT_NOFILE)[1]) if name == "haproxy" else "    no strict-limits\n"
        with open(self.cfg, "w") as f:
            f.write(PROXY_CFG.format(maxconn=MAXCONN, extra_global=glob, extra_defaults=extra, http=PROXY_HTTP_PORT,
                                     backend=HTTP_BACKEND_PORT, iperf_front=PROXY_IPERF_PORT,
                                     iperf=IPERF_PORT))

    def start(self):
        argv = [LBD, "-db", "-f", self.cfg] if self.name == "lbd" else \
            [HAPROXY, "-db", "-f", self.cfg]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        wait_port(PROXY_HTTP_PORT)
        wait_port(PROXY_IPERF_PORT)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        time.sleep(0.3)


def iperf(streams, seconds):
    # the iperf3 server takes one test at a time and sometimes needs a moment
    # after the previous one: try up to three times
    for attempt in range(3):
        out = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", str(PROXY_IPERF_PORT), "-t",
                              str(seconds), "-P", str(streams), "-J"],
                             capture_output=True, text=True, timeout=seconds + 30)
        try:
            j = json.loads(out.stdout)
        except ValueError:
            j = {"error": out.stdout[-200:] + out.stderr[-200:]}
        if "error" not in j:
            return j["end"]["sum_received"]["bits_per_second"] / 1e9
        time.sleep(1.0)
    raise RuntimeError("iperf3: " + j["error"])


def conn_rate(seconds):
    out = subprocess.run(["wrk", "-t", "2", "-c", "64", "-d", "%ds" % seconds, "-H",
                          "Connection: close", "http://127.0.0.1:%d/" % PROXY_HTTP_PORT],
                         capture_output=True, text=True, timeout=seconds + 30)
    m = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    errs = re.search(r"Socket errors: (.*)", out.stdout)
    if not m:
        raise RuntimeError("wrk: " + out.stdout + out.stderr)
    return float(m.group(1)), (errs.group(1) if errs else "")


def latency(rate, seconds):
    out = subprocess.run([RATE_TOOL, "127.0.0.1", str(PROXY_HTTP_PORT), str(rate),
                          str(seconds)], capture_output=True, text=True, timeout=seconds + 30)
    return json.loads(out.stdout)


def idle_memory(proxy, count):
    base = rss_kib(proxy.proc.pid)
    socks = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.connect(("127.0.0.1", PROXY_HTTP_PORT))
            socks.append(s)
        time.sleep(2.0)  # let the proxy connect every one to the backend
        held = rss_kib(proxy.proc.pid)
    finally:
        for s in socks:
            s.close()
    return base / 1024.0, held / 1024.0


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rate", type=int, default=2000, help="latency test: connections/s")
    ap.add_argument("--quick", action="store_true", help="1 round of 2 s per test")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.seconds = 1, 2
    for tool in (LBD, RATE_TOOL, HAPROXY, shutil.which("iperf3"), shutil.which("wrk")):
        if not tool or not os.path.exists(tool):
            sys.exit("missing tool: %s (run bench/run.sh)" % tool)

    global MAXCONN
    MAXCONN = fd_budget()
    idle = min(IDLE_CONNS, MAXCONN - 50)
    if idle < IDLE_CONNS:
        log("note: the descriptor hard limit here (%d) lets a proxy hold %d connections; "
            "the memory test uses %d instead of %d" % (resource.getrlimit(
                resource.RLIMIT_NOFILE)[1], MAXCONN, idle, IDLE_CONNS))
    work = tempfile.mkdtemp(prefix="cpha-bench-")
    helpers = []
    results = {"lbd": {}, "haproxy": {}}
    try:
        bcfg = os.path.join(work, "backend.cfg")
        with open(bcfg, "w") as f:
            f.write(BACKEND_CFG.format(maxconn=MAXCONN, backend=HTTP_BACKEND_PORT))
        helpers.append(subprocess.Popen([HAPROXY, "-db", "-f", bcfg], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))
        helpers.append(subprocess.Popen(["iperf3", "-s", "-B", "127.0.0.1", "-p", str(IPERF_PORT)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True))
        wait_port(HTTP_BACKEND_PORT)
        wait_port(IPERF_PORT)
        proxies = [Proxy("lbd", work), Proxy("haproxy", work)]
        for rnd in range(args.rounds):
            order = proxies if rnd % 2 == 0 else list(reversed(proxies))
            for p in order:
                r = results[p.name]
                p.start()
                try:
                    r.setdefault("tput1", []).append(iperf(1, args.seconds))
                    r.setdefault("tput8", []).append(iperf(8, args.seconds))
                    cps, errs = conn_rate(args.seconds)
                    r.setdefault("cps", []).append(cps)
                    lat = latency(args.rate, args.seconds)
                    r.setdefault("p50", []).append(lat["p50_us"])
                    r.setdefault("p99", []).append(lat["p99_us"])
                    r.setdefault("lat_errors", []).append(lat["errors"])
                    base, held = idle_memory(p, idle)
                    r.setdefault("rss_base", []).append(base)
                    r.setdefault("rss_idle", []).append(held)
                    log("round %d %-7s tput1 %.2f Gbit/s  tput8 %.2f Gbit/s  conn/s %.0f%s  "
                        "p50 %.0f us  p99 %.0f us  rss %.1f -> %.1f MiB" %
                        (rnd + 1, p.name, r["tput1"][-1], r["tput8"][-1], cps,
                         " (wrk errors: %s)" % errs if errs else "", lat["p50_us"],
                         lat["p99_us"], base, held))
                finally:
                    p.stop()
    finally:
        for h in helpers:
            h.send_signal(signal.SIGTERM)
        for h in helpers:
            try:
                h.wait(10)
            except subprocess.TimeoutExpired:
                h.kill()
        shutil.rmtree(work, ignore_errors=True)

    rows = [
        ("throughput, 1 stream (Gbit/s)", "tput1", True),
        ("throughput, 8 streams (Gbit/s)", "tput8", True),
        ("new connections per second", "cps", True),
        ("latency p50 at %d conn/s (us)" % args.rate, "p50", False),
        ("latency p99 at %d conn/s (us)" % args.rate, "p99", False),
        ("RSS with %d idle connections (MiB)" % idle, "rss_idle", False),
    ]
    log("")
    log("%-42s %12s %12s %10s  %s" % ("median of %d round(s)" % args.rounds, "lbd", "haproxy",
                                       "lbd/hap", "verdict"))
    for label, key, higher_better in rows:
        a, b = median(results["lbd"][key]), median(results["haproxy"][key])
        ratio = a / b if b else float("nan")
        better = (ratio >= 1.0) if higher_better else (ratio <= 1.0)
        log("%-42s %12.2f %12.2f %10.3f  %s" % (label, a, b, ratio,
                                                "lbd at or above HAProxy" if better else
                                                "lbd behind HAProxy"))
    log("(ratios are lbd/HAProxy; higher is better for throughput and conn/s, lower for "
        "latency and memory)")


if __name__ == "__main__":
    main()
