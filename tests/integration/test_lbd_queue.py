#!/usr/bin/env python3
"""lbd's per-server maxconn and the backend queue, seen from clients.

One tag server (s1) behind lbd with maxconn 2, maxqueue 2:
- two connections are served at once (they get the tag);
- the next two are accepted but wait (no tag) in the queue;
- a fifth, with the queue full, is closed at once;
- when a served connection ends, the oldest queued one gets its slot;
- a queued one that waits longer than "timeout queue" (1s) is closed;
- while connections wait in the queue lbd uses no CPU (nothing spins), and
  bytes a queued client sent while it waited reach the server afterwards.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1 198.18.0.11.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_queue.py [-v]
"""

import socket
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

TIMEOUT_QUEUE = 1.0
LB = lbd.LB_IP

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout queue 1s

frontend q
    bind 198.18.0.10:6443
    default_backend q

frontend slowq
    bind 198.18.0.10:6444
    default_backend slowq

backend q
    server s1 198.18.0.11:8000 maxconn 2 maxqueue 2

backend slowq
    timeout queue 10s
    server s1 198.18.0.11:8000 maxconn 2 maxqueue 2
"""


def no_tag_within(sock, seconds):
    """True when nothing arrives for `seconds` (the connection is waiting)."""
    sock.settimeout(seconds)
    try:
        data = sock.recv(64)
    except socket.timeout:
        return True
    raise AssertionError("expected to wait, got %r" % data)


class Queue(unittest.TestCase):

    def test_maxconn_queue(self):
        with cphatest.Lab("lbd-queue") as lab:
            t = lbd.Topology(lab, nservers=1)
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            c = t.client

            step("maxconn 2: two connections served")
            c1, tag1 = lbd.tag_connect(c, LB, 6443)
            c2, tag2 = lbd.tag_connect(c, LB, 6443)
            self.assertEqual((tag1, tag2), ("s1", "s1"))

            step("maxqueue 2: two more connections wait")
            c3 = lbd.connect(c, LB, 6443)
            t3 = time.monotonic()
            c4 = lbd.connect(c, LB, 6443)
            t4 = time.monotonic()
            self.assertTrue(no_tag_within(c3, 0.3))
            self.assertTrue(no_tag_within(c4, 0.01))
            be = [b for b in lb.admin_json("show stat")["backends"] if b["backend"] == "q"][0]
            self.assertEqual((be["queued"], be["servers"][0]["current_sessions"]), (2, 2))

            step("queue full: a fifth is closed at once")
            c5 = lbd.connect(c, LB, 6443)
            closed = lbd.wait_closed(c5, 2.0)
            step("fifth closed after %.3fs" % closed)
            self.assertLess(closed, 0.3)
            c5.close()

            step("one served connection ends: the oldest queued one takes its slot")
            c1.close()
            t_free = time.monotonic()
            line = lbd.read_line(c3, timeout=1.0)
            step("queued connection served %.3fs after the slot freed" % (
                time.monotonic() - t_free))
            self.assertEqual(line, b"s1\n")
            self.assertLess(time.monotonic() - t_free, 0.3)

            step("the other queued one waits past timeout queue (1s) and is closed")
            line = lbd.read_line(c4, timeout=3.0)
            waited = time.monotonic() - t4
            step("closed after %.3fs in the queue" % waited)
            self.assertEqual(line, b"", "it must not be served")
            self.assertGreaterEqual(waited, TIMEOUT_QUEUE - 0.05)
            self.assertLess(waited, TIMEOUT_QUEUE + 0.5)
            self.assertLess(t3, t4)
            # served connections are intact
            for s in (c2, c3):
                self.assertEqual(lbd.echo(s, b"still here\n"), b"still here\n")
            for s in (c2, c3, c4):
                s.close()
            # lbd's traffic log agrees: two sessions ended "sQ" (queue full,
            # queue timeout), none on a server
            sq = [x for x in lb.log_lines(" q/") if " sQ " in x]
            self.assertEqual(len(sq), 2, sq)

            step("CPU while two connections wait in a queue (timeout queue 10s)")
            held = [lbd.tag_connect(c, LB, 6444)[0] for _ in range(2)]
            q1 = lbd.connect(c, LB, 6444)
            q2 = lbd.connect(c, LB, 6444)
            q1.sendall(b"sent while queued\n")  # readable client socket: no spin either
            self.assertTrue(no_tag_within(q1, 0.2))
            cpu0, w0 = lb.cpu_seconds(), time.monotonic()
            time.sleep(2.0)
            cpu = lb.cpu_seconds() - cpu0
            wall = time.monotonic() - w0
            step("lbd used %.3fs CPU in %.2fs with 2 queued connections" % (cpu, wall))
            # a spinning loop would burn ~2s; ticks are 10ms
            self.assertLess(cpu, 0.1)
            self.assertTrue(no_tag_within(q2, 0.01))
            held[0].close()
            self.assertEqual(lbd.read_line(q1, 1.0), b"s1\n")
            self.assertEqual(lbd.read_line(q1, 1.0), b"sent while queued\n",
                             "bytes sent while queued reach the server")
            held[1].close()
            self.assertEqual(lbd.read_line(q2, 1.0), b"s1\n")
            for s in (q1, q2):
                s.close()
            self.assertTrue(lb.proc.running())


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
