#!/usr/bin/env python3
"""lbd's hedge: a connect with no SYN-ACK within <hedge> gets a second
connect to another server, and the first to complete carries the session.

s1 silently drops every SYN (nftables in its namespace: a powered-off
host); timeout connect is 5s, hedge 100ms; active checks run every 20s, so
they never notice within the test. Every client connection through lbd
must be served by s2 or s3, each in well under timeout connect / 2 (no
timed assertion tighter than that: the machine is shared), many times over;
the connections lbd sent to s1 first show in the hedge counters, and the
traffic log names the server that served. With observe layer4, the
hedged-away connects count as layer-4 errors: s1 goes DOWN after
error-limit of them, and hedging stops. Under normal traffic (every server
answering) no hedge ever starts.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1..s3 198.18.0.11-13.
Exit 0 pass, 77 skip (not root, nft missing, lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_hedge.py [-v]
"""

import re
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step  # noqa: E402

CONNECT_TIMEOUT = 5.0
N = 60

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    retries 3
    option redispatch
    timeout connect 5s
    timeout client 10s
    timeout server 10s
    timeout check 1s
    hedge 100ms

frontend fe
    bind 198.18.0.10:6443
    default_backend be

backend be
    balance roundrobin
    default-server check inter 20s %(observe)s
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000
"""


def blackhole(host, on):
    """Drop (on) or stop dropping every TCP segment to port 8000 in host."""
    if on:
        host.run(["nft", "-f", "-"], input="table inet bh {\n chain in {\n"
                 "  type filter hook input priority 0;\n  tcp dport 8000 drop\n }\n}\n")
    else:
        host.run(["nft", "delete", "table", "inet", "bh"])


class Hedge(unittest.TestCase):

    def bed(self, lab, observe=""):
        t = lbd.Topology(lab)
        t.start_tagservers(8000)
        lb = lbd.Lbd(lab, t.lb, BODY % {"observe": observe})
        lb.start()
        lb.wait_all_up("be", settle=2.2)
        return t, lb

    def served(self, t, n):
        """n sequential client connections: [(seconds to the greeting, tag)]."""
        out = []
        for _ in range(n):
            t0 = time.monotonic()
            tag = lbd.tag_of(t.client, lbd.LB_IP, 6443, timeout=CONNECT_TIMEOUT * 2)
            out.append((time.monotonic() - t0, tag))
        return out

    def test_silent_server_costs_nothing(self):
        with cphatest.Lab("lbd-hedge") as lab:
            t, lb = self.bed(lab)
            blackhole(t.servers[0], True)
            res = self.served(t, N)
            slow = max(d for d, _ in res)
            tags = {tag for _, tag in res}
            st = lb.servers("be")
            step("%d connections: served by %s, slowest %.3fs; hedges s1 %d s2 %d s3 %d"
                 % (N, sorted(tags), slow, st["s1"]["hedges"], st["s2"]["hedges"],
                    st["s3"]["hedges"]))
            self.assertNotIn("s1", tags)
            self.assertLess(slow, CONNECT_TIMEOUT / 2)
            # round robin sent one in three to s1 first; each was hedged
            self.assertGreaterEqual(st["s1"]["hedges"], N // 3 - 1)
            self.assertEqual(st["s2"]["hedges"] + st["s3"]["hedges"], 0)
            self.assertEqual(st["s1"]["status"], "UP", "no observe: checks alone decide")
            self.assertEqual(st["s1"]["connect_errors"], 0)
            stat = lb.admin_json("show stat")
            be = [b for b in stat["backends"] if b["backend"] == "be"][0]
            self.assertEqual(be["hedges"], st["s1"]["hedges"])
            # the traffic log names the server that served, never s1; a
            # session's line is written when it ends, which may be a moment
            # after the client has its answer
            def traffic():
                return [x for x in lb.log_text().splitlines()
                        if re.match(r"^%s:\d+ \[" % re.escape(lbd.CLIENT_IP), x)]
            cphatest.wait_until(lambda: len(traffic()) >= N, 5, 0.05,
                                "%d sessions in the traffic log" % N)
            lines = traffic()
            self.assertFalse([x for x in lines if " be/s1 " in x], "a session logged on s1")
            # metrics: the counter is there for Prometheus too
            self.assertIn("hedges", lb.admin("show stat json"))

    def test_observe_takes_silent_server_down(self):
        with cphatest.Lab("lbd-hedge-obs") as lab:
            t, lb = self.bed(lab, "observe layer4 error-limit 3 on-error mark-down "
                                  "fastinter 20s")
            blackhole(t.servers[0], True)
            res = self.served(t, 30)
            st = lb.servers("be")
            step("observe: s1 %s after %d hedges; slowest %.3fs"
                 % (st["s1"]["status"], st["s1"]["hedges"], max(d for d, _ in res)))
            self.assertNotIn("s1", {tag for _, tag in res})
            self.assertLess(max(d for d, _ in res), CONNECT_TIMEOUT / 2)
            self.assertEqual(st["s1"]["status"], "DOWN")
            self.assertEqual(st["s1"]["hedges"], 3, "hedging stops once s1 is down")
            self.assertEqual(st["s1"]["hanafail"], 1)

    def test_hedge_to_a_silent_server_too(self):
        """s1 and s2 both silent: a connect to one may hedge to the other;
        then timeout connect ends both, as without a hedge, and the retry
        (redispatched, neither tried server again) reaches s3."""
        with cphatest.Lab("lbd-hedge-two") as lab:
            t, lb = self.bed(lab)
            blackhole(t.servers[0], True)
            blackhole(t.servers[1], True)
            res = self.served(t, 15)
            st = lb.servers("be")
            slow = max(d for d, _ in res)
            step("two silent: served by %s, slowest %.3fs; hedges s1 %d s2 %d; connect "
                 "errors s1 %d s2 %d" % (sorted({tag for _, tag in res}), slow,
                                         st["s1"]["hedges"], st["s2"]["hedges"],
                                         st["s1"]["connect_errors"],
                                         st["s2"]["connect_errors"]))
            self.assertEqual({tag for _, tag in res}, {"s3"})
            # at worst one whole timeout connect, then the retry's hedge
            self.assertLess(slow, CONNECT_TIMEOUT * 1.5)
            # some attempt hedged from one silent server to the other, and
            # timeout connect then failed both
            self.assertGreater(st["s1"]["connect_errors"] + st["s2"]["connect_errors"], 0)

    def test_no_hedge_when_servers_answer(self):
        with cphatest.Lab("lbd-hedge-none") as lab:
            t, lb = self.bed(lab)
            res = self.served(t, 150)
            st = lb.servers("be")
            tags = {tag for _, tag in res}
            step("normal traffic: %d connections over %s; hedges %s"
                 % (len(res), sorted(tags), {n: s["hedges"] for n, s in st.items()}))
            self.assertEqual(tags, {"s1", "s2", "s3"})
            self.assertEqual(sum(s["hedges"] for s in st.values()), 0)


def main():
    lbd.require(tools=("nft",))
    return cphatest.util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
