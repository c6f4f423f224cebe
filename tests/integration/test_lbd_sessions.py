#!/usr/bin/env python3
"""What happens to established sessions when a server goes away, behind lbd.

Three kube-apiserver stand-ins (HTTPS, chunked watch streams, one event a
second per watch) behind lbd with HTTPS /readyz checks and
on-marked-down shutdown-sessions + shutdown-sessions-spread 2s. A client
holds 6 watch streams (tools/watchers.py, which reconnects like client-go).

- All 6 on s1, then s1 is frozen with SIGSTOP (it can neither answer nor
  close anything): lbd marks it DOWN, cuts the 6 streams (spread over
  the 2s window at most one a millisecond: a handful goes at once), and
  they reconnect to s2/s3 and get events again.
- "set server ... state drain": the streams on that server keep getting
  events, new connections go elsewhere. "state maint": the same, nothing is
  cut. "shutdown sessions server": they are cut at once, and reconnect
  elsewhere.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1..s3 198.18.0.11-13.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_sessions.py [-v]
"""

import collections
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

N = 6
SPREAD = 2.0
INTER, FALL = 0.5, 2
# a check of a frozen server: min(timeout connect, inter) + timeout check
# once connected; only the connect part when its accept queue is full and
# the SYN goes unanswered (HAProxy's rule)
ONE_CHECK = 0.5 + 0.5
CONNECT_PART = 0.5

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    retries 2
    option redispatch
    timeout connect 1s
    timeout client 1h
    timeout server 1h
    timeout check 500ms

frontend api
    bind 198.18.0.10:6443
    default_backend api

backend api
    balance roundrobin
    option httpchk
    http-check connect ssl
    http-check send meth GET uri /readyz
    http-check expect status 200
    default-server check verify none inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions shutdown-sessions-spread 2s
    server s1 198.18.0.11:6443
    server s2 198.18.0.12:6443
    server s3 198.18.0.13:6443
"""


class Watches:
    """The status file of watchers.py, read on demand."""

    def __init__(self, path):
        self.path = path

    def read(self):
        doc = lbd.read_json(self.path)
        if doc is None:
            raise LookupError("no status from watchers.py yet")  # "not yet"
        return doc["watchers"]

    def current(self):
        """The open segment of each watcher (or None)."""
        out = []
        for segs in self.read():
            last = segs[-1] if segs else None
            out.append(last if last and last["t_end"] is None else None)
        return out

    def all_streaming(self, servers=None, since=None):
        """True when every watcher has an open stream with an event (after
        `since`) on one of `servers`."""
        for seg in self.current():
            if seg is None or seg["t_last"] is None:
                return False
            if servers and seg["server"] not in servers:
                return False
            if since and seg["t_last"] < since:
                return False
        return True


class Sessions(unittest.TestCase):

    def test_cut_drain_maint(self):
        with cphatest.Lab("lbd-sessions") as lab:
            t = lbd.Topology(lab)
            api = lbd.Apiservers(lab, t.servers)
            step("three kube-apiserver stand-ins")
            for h in t.servers:
                api.start(h, wait=False)
            for h in t.servers:
                api.wait_ready(h)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            lb.wait_all_up("api", settle=INTER * 2)

            step("6 watch streams, all on s1 (s2, s3 drained meanwhile)")
            lb.set_state("api", "s2", "drain")
            lb.set_state("api", "s3", "drain")
            status = lab.path("watchers.json")
            w = t.client.spawn(lbd.tool("watchers.py", "--target", "%s:6443" % lbd.LB_IP,
                                        "--ca", api.ca, "-n", N, "--status", status,
                                        "--duration", 80, "--idle", 15), name="watchers")
            ws = Watches(status)
            cphatest.wait_until(lambda: ws.all_streaming({"s1"}), 10, 0.1,
                                "6 watch streams with events from s1")
            lb.set_state("api", "s2", "ready")
            lb.set_state("api", "s3", "ready")
            self.assertEqual(lb.server("api", "s1")["current_sessions"], N)

            step("SIGSTOP s1's apiserver")
            t_stop = time.monotonic()
            api.procs["s1"].kill(signal.SIGSTOP)
            detect = lb.wait_status("api", "s1", "DOWN", timeout=8, interval=0.02)
            t_down = t_stop + detect
            cphatest.wait_until(lambda: ws.all_streaming({"s2", "s3"}, since=t_down),
                                SPREAD + 5, 0.1, "every watch back, on s2/s3, with events")
            segs = ws.read()
            cuts = []
            for i, watcher in enumerate(segs):
                on_s1 = [s for s in watcher if s["server"] == "s1"]
                self.assertEqual(len(on_s1), 1, "watcher %d: %s" % (i, watcher))
                self.assertEqual(on_s1[0]["end"], "eof", "watcher %d cut by lbd" % i)
                self.assertIsNotNone(on_s1[0]["t_first"], "watcher %d had events" % i)
                cuts.append(on_s1[0]["t_end"])
            cuts.sort()
            step("s1 DOWN %.2fs after SIGSTOP; streams cut %.2fs..%.2fs after that "
                 "(first to last %.2fs)" % (detect, cuts[0] - t_down, cuts[-1] - t_down,
                                            cuts[-1] - cuts[0]))
            # fall 2: the next check starts within inter, then each of the
            # fall checks runs into its timeout, fastinter (= inter) apart;
            # 0.5s of scheduling slack
            self.assertGreaterEqual(detect, FALL * CONNECT_PART - 0.05)
            self.assertLessEqual(detect, INTER + FALL * ONE_CHECK + (FALL - 1) * INTER + 0.5)
            self.assertRegex(lb.log_text(), r"server api/s1 is DOWN: Layer\d timeout")
            # nothing is cut before lbd marks s1 down (the poll may see DOWN
            # up to 0.1s late), and everything within the spread window
            self.assertGreater(cuts[0], t_down - 0.15)
            self.assertLess(cuts[-1], t_down + SPREAD + 0.5)
            # spread: each thread cuts its own evenly over 2s but at most
            # one a millisecond apart: a handful is not held up for the
            # window (health_cut_offset, unit-tested with thousands); the 6
            # streams reconnect within a few ms of each other plus their
            # reconnect delay
            self.assertLess(cuts[-1] - cuts[0], 0.5, "6 cuts held up: %s" % cuts)

            step("SIGCONT s1; it comes back")
            api.procs["s1"].kill(signal.SIGCONT)
            lb.wait_status("api", "s1", "UP", timeout=8)

            per = collections.Counter(s["server"] for s in ws.current())
            step("streams now on %s" % dict(per))
            target = max(per, key=lambda k: per[k])  # a server holding streams
            self.drain_then_maint(lb, t, api, ws, target)
            w.kill(signal.SIGTERM)

    def stream_events(self, ws, server):
        return {i: (s["t_open"], s["events"]) for i, s in enumerate(ws.current())
                if s is not None and s["server"] == server}

    def new_connections(self, t, api, n=6):
        """Servers answering n new HTTPS connections through lbd."""
        out = []
        for _ in range(n):
            status, _, server = lbd.https_get(t.client, lbd.LB_IP, 6443, "/livez", api.ca)
            self.assertEqual(status, 200)
            out.append(server)
        return out

    def drain_then_maint(self, lb, t, api, ws, x):
        before = self.stream_events(ws, x)
        self.assertTrue(before)
        step("state drain on %s, which holds %d streams" % (x, len(before)))
        lb.set_state("api", x, "drain")
        self.assertEqual(lb.status("api", x), "DRAIN")
        servers = self.new_connections(t, api)
        step("new connections went to %s" % servers)
        self.assertNotIn(x, servers)
        time.sleep(3.0)
        after = self.stream_events(ws, x)
        step("drain: events on %s's streams %s -> %s" % (
            x, [e for _, e in before.values()], [e for _, e in after.values()]))
        self.assertEqual(set(after), set(before), "a stream on the drained server ended")
        for i, (opened, events) in before.items():
            self.assertEqual(after[i][0], opened, "stream %d reconnected" % i)
            self.assertGreaterEqual(after[i][1] - events, 2, "stream %d stalled" % i)

        step("state maint on %s" % x)
        lb.set_state("api", x, "maint")
        self.assertEqual(lb.status("api", x), "MAINT")
        before = after
        servers = self.new_connections(t, api)
        self.assertNotIn(x, servers)
        time.sleep(2.0)
        after = self.stream_events(ws, x)
        step("maint: events %s -> %s" % ([e for _, e in before.values()],
                                         [e for _, e in after.values()]))
        self.assertEqual(set(after), set(before), "maint cut a stream")
        for i, (opened, events) in before.items():
            self.assertEqual(after[i][0], opened)
            self.assertGreaterEqual(after[i][1] - events, 1)

        step("shutdown sessions server api/%s" % x)
        t0 = time.monotonic()
        self.assertEqual(lb.admin("shutdown sessions server api/%s" % x).strip(), "")
        cphatest.wait_until(lambda: ws.all_streaming(
            {"s1", "s2", "s3"} - {x}, since=t0), 5, 0.05, "streams back on other servers")
        segs = ws.read()
        ended = [s["t_end"] - t0 for i in before for s in segs[i]
                 if s["server"] == x and s["t_open"] == before[i][0]]
        step("cut %.2fs..%.2fs after the command" % (min(ended), max(ended)))
        self.assertEqual(len(ended), len(before))
        self.assertLess(max(ended), 0.5, "the admin cut is immediate (no spread)")
        lb.set_state("api", x, "ready")


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
