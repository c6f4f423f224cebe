#!/usr/bin/env python3
"""Memory of lbd and vipd under thousands of admin and metrics requests.

Every command of each daemon's admin socket (each read command in text and
JSON, every state change and every error path) and GET /metrics are asked
in turn, round after round: WARMUP rounds first (allocator caches, arenas
and the event loop settle), then ROUNDS more. The resident set size
(VmRSS in /proc/PID/status) is read after the warm-up and after every
fifth of the rest; it may not grow by more than BOUND in total. vipd used
to lose about 4.8 KB on every `show json` (the packed object was never
freed): 5,000 of them are 24 MB.

Every reply is checked too (a command that stopped answering would also
keep memory flat), and the daemon must still answer at the end.

lbd runs in host lb (198.18.0.10) with its metrics on 198.18.0.10:9101;
vipd in host r1 (198.18.0.11, VRRP alone on its link) with its metrics on
198.18.0.11:9650. The requests are made from inside the host's namespace.

Exit 0 pass, 77 skip (not root, a daemon not built), else fail.
    sudo python3 tests/integration/test_admin_leak.py [-v]
    CPHA_LEAK_ROUNDS=1000 ... (fewer rounds, to try it quickly)
"""

import json
import os
import socket
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util, vipd  # noqa: E402

WARMUP = 500
ROUNDS = int(os.environ.get("CPHA_LEAK_ROUNDS", "5000"))
SAMPLES = 5
BOUND = 2 * 1024 * 1024
LBD_METRICS = (lbd.LB_IP, 9101)
VIPD_METRICS = (vipd.ROUTER_IPS[0], 9650)

LBD_BODY = """
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s

frontend fe
    bind %s:6443
    default_backend be

backend be
    balance roundrobin
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
""" % lbd.LB_IP

# (command, a piece every reply must hold); every command of lbd's admin
# socket, text and JSON, the state changes undone in the same round, and
# the error paths
LBD_COMMANDS = [
    ("help", "show info"),
    ("show info", "Name: lbd"),
    ("show info json", '"Name":"lbd"'),
    ("show stat", "be,s1,"),
    ("show stat json", '"backends":[{"backend":"be"'),
    ("show servers state", " be 1 s1 "),
    ("show servers state be", " be 2 s2 "),
    ("show servers state json", '"server":"s2"'),
    ("show servers state nope", "Can't find backend."),
    ("set server be/s1 state drain", "\n"),
    ("set server be/s1 state ready json", '{"ok":true}'),
    ("disable server be/s1", "\n"),
    ("enable server be/s1 json", '{"ok":true}'),
    ("set server be/s1 weight 50", "\n"),
    ("set server be/s1 weight 1", "\n"),
    ("set server be/s1 health down", "\n"),
    ("set server be/s1 health up json", '{"ok":true}'),
    ("shutdown sessions server be/s2", "\n"),
    ("set server be/s1 weight 999", "Weight must be"),
    ("set server be/nope state ready json", '"error":"No such server."'),
    ("set server nope/s1 state ready", "No such backend."),
    ("set server be/s1 state", "expects"),
    ("disable server be", "Require 'backend/server'."),
    ("frobnicate json", '"ok":false'),
    ("frobnicate", "Unknown command"),
]

VIPD_COMMANDS = [
    ("show json", '"instances":[{"instance":"VI_1"'),
    ("show", "instance VI_1: "),
    ("", "instance VI_1: "),
    ("frobnicate", "Unknown command"),
]


def http_get(addr, path="/metrics", timeout=5.0):
    s = socket.create_connection(addr, timeout=timeout)
    try:
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode())
        return util.recv_all(s).decode(errors="replace")
    finally:
        s.close()


def hammer(pid, sock, commands, metrics_addr, metric_name):
    """WARMUP + ROUNDS rounds of every command and one scrape each; the
    RSS samples [(round, bytes)] taken after the warm-up and then SAMPLES
    times. Runs inside the daemon's host (for the metrics address)."""
    samples = []
    every = max(1, ROUNDS // SAMPLES)
    for r in range(WARMUP + ROUNDS + 1):
        if r >= WARMUP and (r - WARMUP) % every == 0:
            samples.append((r, util.rss(pid)))
        if r == WARMUP + ROUNDS:
            break
        for cmd, want in commands:
            reply = util.unix_request(sock, cmd)
            if want not in reply:
                raise AssertionError("round %d: %r answered %r, without %r"
                                     % (r, cmd, reply[:300], want))
        reply = http_get(metrics_addr)
        if not reply.startswith("HTTP/1.1 200 OK") or metric_name not in reply:
            raise AssertionError("round %d: /metrics answered %r" % (r, reply[:300]))
    return samples


class AdminLeak(unittest.TestCase):

    def check_samples(self, who, samples):
        base = samples[0][1]
        step("%s VmRSS: %s" % (who, ", ".join("round %d %.1f MiB" % (r, b / 1048576.0)
                                                for r, b in samples)))
        growth = samples[-1][1] - base
        self.assertLess(growth, BOUND, "%s grew by %.1f MiB over %d rounds: %s"
                        % (who, growth / 1048576.0, ROUNDS, samples))
        # and not a slow climb that the last sample happens to hide
        self.assertLess(max(b for _, b in samples) - base, BOUND, samples)

    def test_lbd(self):
        with cphatest.Lab("admin-leak-lbd") as lab:
            lb = lab.add_host("lb", v4=lbd.LB_IP + "/24")
            d = lbd.Lbd(lab, lb, LBD_BODY, nbthread=1,
                        global_extra=["metrics-bind %s:%d" % LBD_METRICS])
            d.start()
            t0 = time.monotonic()
            samples = lbd.in_host(lb, hammer, d.pid, d.sock_path, LBD_COMMANDS, LBD_METRICS,
                                  "lbd_server_up", timeout=900)
            n = (WARMUP + ROUNDS) * (len(LBD_COMMANDS) + 1)
            step("lbd: %d requests in %.1fs" % (n, time.monotonic() - t0))
            self.check_samples("lbd", samples)
            self.assertIn("Name: lbd", d.admin("show info"))
            self.assertTrue(d.proc.running())

    def test_vipd(self):
        with cphatest.Lab("admin-leak-vipd") as lab:
            r1 = lab.add_host("r1", v4=vipd.ROUTER_IPS[0] + "/24")
            d = vipd.Vipd(lab, r1, vipd.instance(priority=200, advert=1),
                          global_extra=["vipd_metrics_bind %s:%d" % VIPD_METRICS])
            d.start()
            d.wait_state("MASTER", timeout=10)
            self.assertEqual(json.loads(d.admin("show json"))["instances"][0]["state"],
                             "MASTER")
            t0 = time.monotonic()
            samples = lbd.in_host(r1, hammer, d.pid, d.sock_path, VIPD_COMMANDS,
                                  VIPD_METRICS, "vipd_instance_state", timeout=900)
            n = (WARMUP + ROUNDS) * (len(VIPD_COMMANDS) + 1)
            step("vipd: %d requests in %.1fs" % (n, time.monotonic() - t0))
            self.check_samples("vipd", samples)
            self.assertEqual(d.state(), "MASTER")
            self.assertTrue(d.running())


def main():
    lbd.require()
    vipd.require(tools=())
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
