#!/usr/bin/env python3
"""Passive health from live traffic: HAProxy's observe layer4, error-limit
and on-error, in lbd.

s1 silently drops every SYN (nftables in its namespace: a powered-off
host). The active checks run every 20s (inter), far longer than each
case's window, so only the client connections lbd makes to s1 can tell it:
each one times out (timeout connect 200ms), lbd redispatches it to s2/s3
(the client sees nothing), and after error-limit of them in a row the
on-error action is taken:
  mark-down    s1 DOWN at once (one failed check counted, hanafail 1);
  sudden-death s1 still UP, one step from DOWN; the next check is brought
               forward to fastinter and its failure takes s1 DOWN
               (2 failed checks: the simulated one and the real one);
  fail-check   each event is one failed check: fall 3 of them take s1 DOWN
               (3 events, 3 failed checks, no real check in between);
  fastinter    nothing but the next check brought forward to fastinter,
               whose failures then take s1 DOWN at the fastinter cadence.
Recovery: the drop is removed and s1 comes back after its next check (at
fastinter, as HAProxy brings it forward) and rise checks at downinter;
mark-down is cycled ten times.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1..s3 198.18.0.11-13.
Exit 0 pass, 77 skip (not root, nft missing, lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_passive_health.py [-v]
"""

import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step  # noqa: E402

INTER = 20.0  # active checks cannot notice within a case's window
ERROR_LIMIT = 3

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    retries 3
    option redispatch
    timeout connect 200ms
    timeout client 10s
    timeout server 10s
    timeout check 300ms

frontend fe
    bind 198.18.0.10:6443
    default_backend be

backend be
    balance roundrobin
    default-server check inter 20s downinter 200ms fastinter %(fastinter)s rise 2 fall 3 observe layer4 error-limit 3 on-error %(mode)s
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


class PassiveHealth(unittest.TestCase):

    def bed(self, lab, mode, fastinter="20s", settle=2.2):
        t = lbd.Topology(lab)
        t.start_tagservers(8000)
        lb = lbd.Lbd(lab, t.lb, BODY % {"mode": mode, "fastinter": fastinter})
        lb.start()
        # the first checks come within min(inter, 2s)
        lb.wait_all_up("be", settle=settle)
        return t, lb

    def traffic_until(self, t, lb, cond, limit):
        """Sequential client connections until cond() holds; each must be
        served (by s2 or s3). Returns how many it took."""
        for n in range(1, limit + 1):
            tag = lbd.tag_of(t.client, lbd.LB_IP, 6443, timeout=5)
            self.assertIn(tag, ("s1", "s2", "s3"))
            if cond():
                return n
        self.fail("condition not reached after %d connections" % limit)

    def s1(self, lb):
        return lb.server("be", "s1")

    def test_mark_down_ten_cycles(self):
        with cphatest.Lab("lbd-hana-md") as lab:
            # fastinter: where the next check goes after the event; it
            # fails while s1 drops, then downinter until s1 answers again
            t, lb = self.bed(lab, "mark-down", fastinter="300ms")
            s1 = t.servers[0]
            for cycle in range(1, 11):
                before = self.s1(lb)
                blackhole(s1, True)
                t0 = time.monotonic()
                n = self.traffic_until(t, lb, lambda: self.s1(lb)["status"] == "DOWN", 30)
                took = time.monotonic() - t0
                st = self.s1(lb)
                step("cycle %d: s1 DOWN after %d client connections, %.2fs; hanafail %d"
                     % (cycle, n, took, st["hanafail"]))
                # error-limit connects to s1, one in three connections
                self.assertLessEqual(n, 3 * ERROR_LIMIT + 2)
                self.assertLess(took, INTER / 2, "active checks could have done it")
                self.assertEqual(st["hanafail"], before["hanafail"] + 1)
                self.assertEqual(st["check_failures"], before["check_failures"] + 1)
                self.assertEqual(st["connect_errors"] - before["connect_errors"],
                                 ERROR_LIMIT)
                # down: nothing more goes to s1
                for _ in range(6):
                    self.assertNotEqual(lbd.tag_of(t.client, lbd.LB_IP, 6443), "s1")
                blackhole(s1, False)
                lb.wait_status("be", "s1", "UP", timeout=5)
                tags = [lbd.tag_of(t.client, lbd.LB_IP, 6443) for _ in range(6)]
                self.assertIn("s1", tags, "s1 takes traffic again")
            self.assertRegex(lb.log_text(), r"server be/s1 is DOWN: Detected 3 consecutive "
                             r"errors, last one was: L4 unsuccessful connection")

    def test_sudden_death(self):
        with cphatest.Lab("lbd-hana-sd") as lab:
            t, lb = self.bed(lab, "sudden-death", fastinter="1s")
            blackhole(t.servers[0], True)
            before = self.s1(lb)
            self.traffic_until(t, lb, lambda: self.s1(lb)["hanafail"] > before["hanafail"],
                               30)
            t0 = time.monotonic()
            st = self.s1(lb)
            step("sudden-death: after the event s1 is %s, %d failed checks"
                 % (st["status"], st["check_failures"]))
            self.assertEqual(st["status"], "UP")
            self.assertEqual(st["check_failures"], before["check_failures"] + 1)
            # no more traffic: the check brought forward to fastinter (1s)
            # fails after timeout check and is the last one needed
            took = lb.wait_status("be", "s1", "DOWN", timeout=5)
            st = self.s1(lb)
            step("s1 DOWN %.2fs later by its check; hanafail %d, failed checks %d"
                 % (time.monotonic() - t0, st["hanafail"], st["check_failures"]))
            self.assertLess(took, INTER / 2)
            self.assertEqual(st["hanafail"], before["hanafail"] + 1)
            self.assertEqual(st["check_failures"], before["check_failures"] + 2)

    def test_fail_check(self):
        with cphatest.Lab("lbd-hana-fc") as lab:
            # fastinter 5s: no check between the events (about a second).
            # A server starts one failure from DOWN (health at rise, as in
            # HAProxy) and is fully up after its second passed check, the
            # one at fastinter: wait for it, so that fall counts whole
            t, lb = self.bed(lab, "fail-check", fastinter="5s", settle=8)
            blackhole(t.servers[0], True)
            before = self.s1(lb)
            t0 = time.monotonic()
            n = self.traffic_until(t, lb, lambda: self.s1(lb)["status"] == "DOWN", 60)
            st = self.s1(lb)
            step("fail-check: s1 DOWN after %d connections, %.2fs; hanafail %d, failed "
                 "checks %d" % (n, time.monotonic() - t0, st["hanafail"],
                                st["check_failures"]))
            self.assertLess(time.monotonic() - t0, INTER / 2)
            # fall 3 from fully up: three simulated failed checks
            self.assertEqual(st["hanafail"], before["hanafail"] + 3)
            self.assertEqual(st["check_failures"], before["check_failures"] + 3)
            blackhole(t.servers[0], False)
            lb.wait_status("be", "s1", "UP", timeout=10)

    def test_fastinter(self):
        with cphatest.Lab("lbd-hana-fi") as lab:
            t, lb = self.bed(lab, "fastinter", fastinter="500ms")
            blackhole(t.servers[0], True)
            before = self.s1(lb)
            self.traffic_until(t, lb, lambda: self.s1(lb)["hanafail"] > before["hanafail"],
                               30)
            st = self.s1(lb)
            # the action itself changes no health: UP, no failed check yet
            self.assertEqual(st["status"], "UP")
            self.assertEqual(st["check_failures"], before["check_failures"])
            t0 = time.monotonic()
            took = lb.wait_status("be", "s1", "DOWN", timeout=8)
            st = self.s1(lb)
            step("fastinter: s1 DOWN %.2fs after the event, by %d failed checks"
                 % (time.monotonic() - t0, st["check_failures"] - before["check_failures"]))
            # fall 3 checks at fastinter (500ms) + timeout check (300ms)
            self.assertLess(took, 3 * 0.8 + 1.5)
            self.assertEqual(st["check_failures"] - before["check_failures"], 3)


def main():
    lbd.require(tools=("nft",))
    return cphatest.util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
