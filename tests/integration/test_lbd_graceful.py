#!/usr/bin/env python3
"""A kube-apiserver shuts down gracefully behind lbd and no request fails.

Three kube-apiserver stand-ins behind lbd, checked as the Kubernetes HA
guides write it (option httpchk, http-check connect ssl, GET /readyz,
verify none, inter 1s fastinter 250ms fall 2). A client runs an HTTPS
request loop through lbd (a new connection per GET /livez). s1 gets SIGTERM
with --shutdown-delay-duration=5s: its /readyz fails at once while it still
serves for 5s, so lbd must take it out of rotation well within those 5s;
after that its listener closes. Not one request may fail.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1..s3 198.18.0.11-13.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_graceful.py [-v]
"""

import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

INTER, FASTINTER, FALL = 1.0, 0.25, 2
SHUTDOWN_DELAY = 5.0

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    option dontlognull
    retries 2
    option redispatch
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout check 2s

frontend api
    bind 198.18.0.10:6443
    default_backend api

backend api
    balance roundrobin
    option httpchk
    http-check connect ssl
    http-check send meth GET uri /readyz
    http-check expect status 200
    default-server check verify none inter 1s fastinter 250ms fall 2 rise 2
    server s1 198.18.0.11:6443
    server s2 198.18.0.12:6443
    server s3 198.18.0.13:6443
"""


class Graceful(unittest.TestCase):

    def test_sigterm_with_shutdown_delay(self):
        with cphatest.Lab("lbd-graceful") as lab:
            t = lbd.Topology(lab)
            api = lbd.Apiservers(lab, t.servers)
            step("three kube-apiserver stand-ins, --shutdown-delay-duration=5s")
            for h in t.servers:
                api.start(h, extra=["--shutdown-delay-duration=%gs" % SHUTDOWN_DELAY],
                          wait=False)
            for h in t.servers:
                api.wait_ready(h)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            lb.wait_all_up("api", settle=INTER * 1.2)

            step("HTTPS request loop through lbd (GET /livez, new connection each)")
            status, out = lab.path("loop.status.json"), lab.path("loop.json")
            loop = t.client.spawn(lbd.tool(
                "connloop.py", "--target", "%s:6443" % lbd.LB_IP, "--tls", "--ca", api.ca,
                "--path", "/livez", "--duration", 11, "--status", status, "--out", out,
                "--timeout", 5), name="https-loop")
            cphatest.wait_until(
                lambda: len((lbd.read_json(status) or {}).get("ok", {})) == 3, 10, 0.05,
                "requests answered by all three apiservers")
            time.sleep(1.0)

            step("SIGTERM s1's apiserver")
            t_term = time.monotonic()
            api.procs["s1"].kill(signal.SIGTERM)
            detect = lb.wait_status("api", "s1", "DOWN", timeout=SHUTDOWN_DELAY + 2,
                                    interval=0.02)
            t_down = t_term + detect
            rc = api.procs["s1"].wait(timeout=SHUTDOWN_DELAY + 8)
            t_exit = time.monotonic() - t_term
            self.assertEqual(loop.wait(timeout=30), 0, loop.log_text())
            res = lbd.read_json(out)
            self.assertIsNotNone(res)
            hits = res["hits"]
            s1_before = sum(1 for ts, s in hits if s == "s1" and ts < t_term)
            s1_after = [ts - t_term for ts, s in hits if s == "s1" and ts > t_down + 0.05]
            after_exit = [s for ts, s in hits if ts > t_term + t_exit]
            step("s1 DOWN %.2fs after SIGTERM, exited (%s) after %.2fs; loop: %d requests, "
                 "ok %s, %d failed; %d answered after s1 exited"
                 % (detect, rc, t_exit, res["total"], res["ok"], res["failed"],
                    len(after_exit)))
            self.assertEqual(res["failed"], 0, "failed requests: %s" % res["failures"][:10])
            # /readyz fails from the signal on: the next check (within inter)
            # and fall-1 more at fastinter; 1s for the HTTPS checks against
            # a Python server on a busy machine. Well within the 5s delay.
            self.assertLessEqual(detect, INTER + (FALL - 1) * FASTINTER + 1.0)
            self.assertRegex(lb.log_text(), r"server api/s1 is DOWN: Layer7 wrong status: 500")
            self.assertGreater(s1_before, 10, "s1 served before its SIGTERM")
            self.assertEqual(s1_after, [], "requests reached s1 after lbd marked it down")
            self.assertEqual(rc, 0)
            self.assertGreaterEqual(t_exit, SHUTDOWN_DELAY)
            # the loop went on after s1 closed its listener, without a failure
            self.assertGreater(len(after_exit), 20)
            self.assertEqual(set(after_exit), {"s2", "s3"})
            self.assertEqual(lb.status("api", "s1"), "DOWN")
            api.kill_all()


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
