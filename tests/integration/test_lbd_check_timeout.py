#!/usr/bin/env python3
"""A server that stops answering SYNs (its host lost power) fails its check
when the connect part of the check ends, as with HAProxy.

HAProxy gives a check min("timeout connect", inter) to connect and then
"timeout check" to answer. Here timeout connect 5s, timeout check 5s,
inter 2s: a check to a silent server fails after 2 s (Layer4 timeout), not
after the whole 7 s budget. `cpha lab`'s master-poweroff found lbd taking
twice HAProxy's time to take a dead apiserver out of rotation.

s1 serves TCP (tag server, plain connect check) and HTTP (httpchk through
libcurl). Both go UP; then s1 drops every reply to lbd (a blackhole route
in s1: SYN-ACKs vanish, nothing is refused). Both must be DOWN with
"Layer4 timeout" within inter + connect part + slack (< 6.5 s; the old
whole-budget timeout took up to 9 s) — three times over, with s1 back in
between, so the timer works after the first time too.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1 198.18.0.11.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_check_timeout.py [-v]
"""

import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

BODY = """
defaults
    mode tcp
    log global
    timeout connect 5s
    timeout client 10s
    timeout server 10s
    timeout check 5s

frontend tcp
    bind 198.18.0.10:7001
    default_backend tcp

backend tcp
    server s1 198.18.0.11:8000 check inter 2s fall 1 rise 1

frontend http
    bind 198.18.0.10:7002
    default_backend http

backend http
    option httpchk
    http-check send meth GET uri /
    http-check expect status 200
    server s1 198.18.0.11:8080 check inter 2s fall 1 rise 1
"""
LIMIT = 6.5


class CheckTimeout(unittest.TestCase):

    def test_silent_server_fails_at_the_connect_timeout(self):
        with cphatest.Lab("lbd-chkto") as lab:
            t = lbd.Topology(lab, nservers=1)
            t.start_tagservers(8000)
            s1 = t.servers[0]
            s1.spawn([sys.executable, "-m", "http.server", "8080", "--bind", s1.v4,
                      "--directory", lab.path()], name="http")
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            for be in ("tcp", "http"):
                lb.wait_status(be, "s1", "UP", timeout=15)
            for round_ in range(3):
                step("round %d: s1 drops its replies to lbd" % (round_ + 1))
                s1.run(["ip", "route", "add", "blackhole", lbd.LB_IP + "/32"])
                t0 = time.monotonic()
                took = {}
                for be in ("tcp", "http"):
                    lb.wait_status(be, "s1", "DOWN", timeout=15)
                    took[be] = time.monotonic() - t0
                    reason = lb.server(be, "s1")["last_change_reason"]
                    step("  %s DOWN after %.2fs: %s" % (be, took[be], reason))
                    self.assertIn("Layer4 timeout", reason, be)
                    self.assertLess(took[be], LIMIT, "%s: DOWN after %.2fs, not at the connect "
                                    "part of the check" % (be, took[be]))
                s1.run(["ip", "route", "del", "blackhole", lbd.LB_IP + "/32"])
                for be in ("tcp", "http"):
                    lb.wait_status(be, "s1", "UP", timeout=15)


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
