#!/usr/bin/env python3
"""SIGHUP reloads lbd in place while clients use it.

A client runs a connect loop (connect, read the tag, close) through lbd
while lbd is reloaded 20 times, the configurations taking turns: weights
changed, a fourth server added and removed again, and one broken file
(refused, the running configuration stays). Then:
- not one client connection failed;
- an established connection opened before the first reload still echoes
  after every reload;
- s2, put in maint over the admin socket before the reloads, stays in maint
  (and gets no connection) through all of them;
- connections held on a server, and on a frontend and backend, that later
  reloads remove keep working; the removed frontend's port refuses new
  connections until a reload brings it back;
- the last configuration is the one in effect: its weights decide the
  spread and its added server takes connections;
- s2, back to ready, is checked again (killed, it goes DOWN), and a further
  reload keeps it DOWN.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1..s4 198.18.0.11-14.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_reload.py [-v]
"""

import collections
import random
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

RELOADS = 20
BROKEN_AT = 9  # this reload gets a broken file

HEAD = """
defaults
    mode tcp
    log global
    retries 2
    option redispatch
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout check 500ms

frontend fe
    bind 198.18.0.10:6443
    default_backend be

backend be
    balance roundrobin
    default-server check inter 300ms fall 2 rise 2
"""


FE4 = """
frontend fe4
    bind 198.18.0.10:6444
    default_backend only4

backend only4
    server s4 198.18.0.14:8000
"""


def body(weights):
    """weights: {server: weight}; s1..s4 at 198.18.0.11..14. With s4 comes
    a second frontend (port 6444) and backend that only s4 serves."""
    lines = ["    server %s 198.18.0.%d:8000 weight %d" % (name, 10 + int(name[1:]), w)
             for name, w in sorted(weights.items())]
    return HEAD + "\n".join(lines) + "\n" + (FE4 if "s4" in weights else "")


VARIANTS = [
    {"s1": 10, "s2": 10, "s3": 10},
    {"s1": 10, "s2": 10, "s3": 30},
    {"s1": 10, "s2": 10, "s3": 10, "s4": 10},
    {"s1": 20, "s2": 10, "s3": 10, "s4": 5},
]
FINAL = {"s1": 10, "s2": 10, "s3": 30, "s4": 10}


class Reload(unittest.TestCase):

    def connection_to(self, t, server):
        """A connection lbd sent to `server`. Roundrobin over 3 servers while
        the loop also connects every millisecond: random pauses keep our
        tries from locking into the same step of the rotation."""
        for _ in range(60):
            s, tag = lbd.tag_connect(t.client, lbd.LB_IP, 6443)
            if tag == server:
                return s
            s.close()
            time.sleep(random.uniform(0, 0.002))
        raise AssertionError("no connection reached %s" % server)

    def test_reload_under_load(self):
        with cphatest.Lab("lbd-reload") as lab:
            t = lbd.Topology(lab, nservers=4)
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, body(VARIANTS[0]))
            lb.start()
            lb.wait_all_up("be", settle=0.5)

            step("a long-lived connection, then s2 to maint")
            keep, keep_tag = lbd.tag_connect(t.client, lbd.LB_IP, 6443)
            lb.set_state("be", "s2", "maint")
            if keep_tag == "s2":  # maint keeps it; it still must survive
                step("(the long-lived connection is on s2)")
            t_maint = time.monotonic()

            step("connect loop; %d reloads, 0.25s apart" % RELOADS)
            status, out = lab.path("loop.status.json"), lab.path("loop.json")
            loop = t.client.spawn(lbd.tool(
                "connloop.py", "--target", "%s:6443" % lbd.LB_IP, "--duration", 30,
                "--interval", 0.001, "--stop-file", lab.path("stop-loop"),
                "--status", status, "--out", out), name="loop")
            cphatest.wait_until(lambda: (lbd.read_json(status) or {}).get("total", 0) >= 100,
                                10, 0.05, "loop under way")
            t0 = time.monotonic()
            for i in range(RELOADS):
                time.sleep(0.25)
                if i == BROKEN_AT:
                    lb.reload(body(VARIANTS[0]) + "    server s9 nowhere:x\n",
                              expect_ok=False)
                elif i == RELOADS - 1:
                    lb.reload(body(FINAL))
                else:
                    lb.reload(body(VARIANTS[i % len(VARIANTS)]))
                self.assertEqual(lb.status("be", "s2"), "MAINT", "after reload %d" % i)
                msg = b"after reload %d\n" % i
                self.assertEqual(lbd.echo(keep, msg), msg, "long-lived connection")
                if i == 2:  # s4 was just added: hold connections on it
                    on_s4 = self.connection_to(t, "s4")
                    on_fe4, tag = lbd.tag_connect(t.client, lbd.LB_IP, 6444)
                    self.assertEqual(tag, "s4")
                elif i > 2:
                    # s4 leaves backend be, and frontend fe4 with backend
                    # only4 go, at the next reload; they come back later as
                    # new objects: these sessions on the old ones go on
                    self.assertEqual(lbd.echo(on_s4, msg), msg, "session on removed s4")
                    self.assertEqual(lbd.echo(on_fe4, msg), msg, "session on removed fe4")
                if i == 4:  # fe4 removed: its listener is closed
                    with self.assertRaises(ConnectionRefusedError):
                        lbd.connect(t.client, lbd.LB_IP, 6444)
                if i == 6:  # and back
                    self.assertEqual(lbd.tag_of(t.client, lbd.LB_IP, 6444), "s4")
            t_last = time.monotonic()
            step("%d reloads in %.2fs" % (RELOADS, t_last - t0))
            time.sleep(1.0)  # traffic under the final configuration
            open(lab.path("stop-loop"), "w").close()
            self.assertEqual(loop.wait(timeout=20), 0, loop.log_text())
            res = lbd.read_json(out)
            after = collections.Counter(s for ts, s in res["hits"] if ts > t_last + 0.05)
            step("loop: %d connections, ok %s, %d failed; after the last reload %s"
                 % (res["total"], res["ok"], res["failed"], dict(after)))
            self.assertEqual(res["failed"], 0, res["failures"][:10])
            self.assertGreater(res["total"], 1000)
            self.assertEqual(sum(1 for ts, s in res["hits"] if s == "s2" and ts > t_maint),
                             0, "s2 is in maint")
            self.assertGreater(after["s4"], 0, "the added server takes connections")

            info = lb.admin("show info")
            self.assertIn("Reloads: %d" % (RELOADS - 1), info)
            self.assertEqual(len(lb.log_lines("reload refused")), 1)
            self.assertEqual(lbd.echo(keep, b"the end\n"), b"the end\n")
            for sock in (on_s4, on_fe4):
                self.assertEqual(lbd.echo(sock, b"the end\n"), b"the end\n")
                sock.close()
            self.assertEqual(lb.status("be", "s2"), "MAINT")

            step("the final weights decide: s1:s3:s4 = 10:30:10 (s2 in maint)")
            counts = collections.Counter(lbd.tag_of(t.client, lbd.LB_IP, 6443)
                                         for _ in range(100))
            step("100 connections: %s" % dict(sorted(counts.items())))
            # smooth weighted round robin: exact per cycle of 50 picks, up to
            # about one pick off with the credits the loop left behind
            self.assertEqual(set(counts), {"s1", "s3", "s4"})
            for name, want in (("s1", 20), ("s3", 60), ("s4", 20)):
                self.assertLessEqual(abs(counts[name] - want), 2, counts)
            keep.close()

            step("s2 back to ready: its checks resume after 20 reloads in maint")
            lb.set_state("be", "s2", "ready")
            tags = collections.Counter(lbd.tag_of(t.client, lbd.LB_IP, 6443)
                                       for _ in range(60))
            self.assertGreater(tags["s2"], 0, tags)
            t.procs["s2"].kill(signal.SIGKILL)
            took = lb.wait_status("be", "s2", "DOWN", timeout=5)
            step("s2's tag server killed: DOWN after %.2fs" % took)
            self.assertLess(took, 2 * 0.3 + 0.8 + 0.3)  # fall x inter + a check + slack

            step("a reload keeps s2 DOWN (health carries over)")
            errors = lb.server("be", "s2")["connect_errors"]
            lb.reload(body(FINAL))
            self.assertEqual(lb.status("be", "s2"), "DOWN")
            tags = collections.Counter(lbd.tag_of(t.client, lbd.LB_IP, 6443)
                                       for _ in range(30))
            self.assertNotIn("s2", tags)
            self.assertEqual(lb.server("be", "s2")["connect_errors"], errors,
                             "lbd sent connections to the DOWN server after the reload")
            self.assertNotIn("server be/s2 is UP", lb.log_text())
            self.assertTrue(lb.proc.running())


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
