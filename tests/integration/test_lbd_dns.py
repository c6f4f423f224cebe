#!/usr/bin/env python3
"""lbd's run-time DNS: a server given by host name with 'resolvers NAME'
follows DNS changes without a reload, as HAProxy 2.6's do.

A test name server (tools/dnsserver.py) in its own host answers from a zone
file the test rewrites. Seen from outside:
  - a server with 'init-addr none' starts in maintenance ("MAINT
    (resolution)") while its name does not exist, and comes UP as soon as
    the name appears;
  - the name moves between s1 and s2 six times: each time new connections
    reach the new host within a bound of 'hold valid' + checks, lbd logs
    "changed its IP from A to B", and a connection opened before the move
    keeps working (nothing dropped that could be kept);
  - an answer with several addresses that still holds the server's address
    does not move it (no churn on round-robin DNS);
  - NXDOMAIN: the server keeps its address for 'hold nx', then goes into
    maintenance; the name comes back: UP again, traffic again;
  - the name server stops answering: 'hold timeout', maintenance, and back
    when it answers again;
  - a reload keeps the resolved address (it does not fall back to none);
  - `lbd -c` accepts the file, and so does `haproxy -c` when it is here.

Topology: client 198.18.0.2, lb 198.18.0.10, s1 s2 198.18.0.11-12, ns
198.18.0.53 (the name server). Exit 0 pass, 77 skip, else fail.
    sudo python3 tests/integration/test_lbd_dns.py [-v]
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

PORT = 6443
NS_IP = "198.18.0.53"
NAME = "api.lab.test"
HOLD_VALID = 0.5
HOLD_NX = 2.0
HOLD_TIMEOUT = 2.0
BODY = """
resolvers lab
    nameserver ns1 %(ns)s:53
    resolve_retries 2
    timeout resolve 300ms
    timeout retry 300ms
    hold valid %(valid)dms
    hold nx %(nx)dms
    hold timeout %(timeout)dms
    hold other %(nx)dms

defaults
    mode tcp
    timeout connect 1s
    timeout client 30s
    timeout server 30s

frontend fe
    bind 198.18.0.10:%(port)d
    default_backend be

backend be
    server api %(name)s:8000 check inter 300ms fall 2 rise 1 resolvers lab init-addr none resolve-prefer ipv4
""" % {"ns": NS_IP, "valid": HOLD_VALID * 1000, "nx": HOLD_NX * 1000,
       "timeout": HOLD_TIMEOUT * 1000, "port": PORT, "name": NAME}


class Dns(unittest.TestCase):

    def set_zone(self, value):
        tmp = self.zone + ".tmp"
        with open(tmp, "w") as f:
            json.dump({NAME: value} if value is not None else {}, f)
        os.replace(tmp, self.zone)

    def start_ns(self):
        p = self.ns.spawn(lbd.tool("dnsserver.py", "--zone", self.zone, "--listen",
                                   NS_IP + ":53", "--log", self.qlog), name="dnsserver")
        lbd.wait_log(p, "listening on", 10)
        return p

    def tag(self):
        return lbd.tag_of(self.t.client, lbd.LB_IP, PORT)

    def wait_tag(self, want, timeout):
        def ok():
            try:
                return self.tag() == want
            except (OSError, AssertionError, socket.timeout):
                return False
        t0 = time.monotonic()
        util.wait_until(ok, timeout, 0.05, "new connections to reach %s" % want)
        return time.monotonic() - t0

    def test_dns(self):
        with cphatest.Lab("lbd-dns") as lab:
            self.t = t = lbd.Topology(lab, nservers=2)
            self.ns = lab.add_host("ns", v4=NS_IP + "/24")
            self.zone = lab.path("zone.json")
            self.qlog = lab.path("queries.log")
            t.start_tagservers(8000)
            self.set_zone(None)
            self.start_ns()
            lb = lbd.Lbd(lab, t.lb, BODY)

            step("lbd -c accepts the file" + (" and so does haproxy -c"
                                               if shutil.which("haproxy") else ""))
            lb.write(BODY)
            rc, err = lb.check()
            self.assertEqual(rc, 0, err)
            if shutil.which("haproxy"):
                r = subprocess.run(["haproxy", "-c", "-f", lb.cfg_path], capture_output=True,
                                   text=True, timeout=30)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

            step("init-addr none and no such name yet: MAINT (resolution)")
            lb.start()
            lb.wait_status("be", "api", "MAINT (resolution)", 5)
            time.sleep(1.0)
            self.assertEqual(lb.status("be", "api"), "MAINT (resolution)")
            self.assertTrue(lb.log_lines("server be/api is in maintenance until 'api.lab.test' "
                                         "resolves"))

            step("the name appears: UP, traffic reaches s1")
            self.set_zone([lbd.SERVER_IPS[0]])
            lb.wait_status("be", "api", "UP", 5)
            self.wait_tag("s1", 5)
            self.assertTrue(lb.log_lines("changed its IP from none to 198.18.0.11:8000"))

            step("the name moves s1 -> s2 -> s1 ... six times; open connections stay")
            bound = HOLD_VALID + 0.3 * 2 + 2.0  # next query, a retry, slack for load
            took = []
            cur = 0
            for i in range(6):
                held = lbd.tag_connect(t.client, lbd.LB_IP, PORT)
                sock, tag = held
                self.assertEqual(tag, "s%d" % (cur + 1))
                new = 1 - cur
                self.set_zone([lbd.SERVER_IPS[new]])
                took.append(self.wait_tag("s%d" % (new + 1), bound + 3))
                self.assertEqual(lbd.echo(sock, b"still here %d\n" % i),
                                 b"still here %d\n" % i,
                                 "a connection opened before the move keeps working")
                sock.close()
                self.assertTrue(lb.log_lines("changed its IP from %s:8000 to %s:8000" % (
                    lbd.SERVER_IPS[cur], lbd.SERVER_IPS[new])))
                cur = new
            print("  moves took %s s (bound %.1f s)" % (
                ", ".join("%.2f" % x for x in took), bound), flush=True)
            self.assertLess(max(took), bound, "each move within hold valid + retries")

            step("an answer that still holds the address does not move the server")
            cur_ip = lbd.SERVER_IPS[cur]
            other = lbd.SERVER_IPS[1 - cur]
            self.set_zone([other, cur_ip])
            time.sleep(HOLD_VALID * 4 + 0.5)
            tags = {self.tag() for _ in range(10)}
            self.assertEqual(tags, {"s%d" % (cur + 1)})

            step("NXDOMAIN: the address holds for 'hold nx', then maintenance")
            self.set_zone(None)
            t0 = time.monotonic()
            lb.wait_status("be", "api", "MAINT (resolution)", HOLD_NX + 4)
            held_for = time.monotonic() - t0
            print("  NX: maintenance after %.2f s (hold nx %.1f s)" % (held_for, HOLD_NX),
                  flush=True)
            self.assertGreater(held_for, HOLD_NX - HOLD_VALID - 0.4,
                               "the last valid address is kept for 'hold nx'")
            self.assertTrue(lb.log_lines("(DNS nx status)"))

            step("the name is back: UP and traffic again")
            self.set_zone([lbd.SERVER_IPS[0]])
            lb.wait_status("be", "api", "UP", 5)
            self.wait_tag("s1", 5)

            step("the name server stops answering: 'hold timeout', then maintenance")
            self.set_zone("DROP")
            t0 = time.monotonic()
            lb.wait_status("be", "api", "MAINT (resolution)", HOLD_TIMEOUT + 6)
            self.assertGreater(time.monotonic() - t0, HOLD_TIMEOUT - HOLD_VALID - 0.4)
            self.assertTrue(lb.log_lines("(DNS timeout status)"))
            self.set_zone([lbd.SERVER_IPS[1]])
            lb.wait_status("be", "api", "UP", 6)
            self.wait_tag("s2", 5)

            step("a reload keeps the resolved address")
            lb.reload(BODY)
            self.assertEqual(lb.status("be", "api"), "UP")
            self.assertEqual(self.tag(), "s2", "right after the reload, still s2")

            step("queries keep coming a while after start (the timer re-arms)")
            with open(self.qlog) as f:
                before = len(f.read().splitlines())
            time.sleep(3)
            with open(self.qlog) as f:
                after = len(f.read().splitlines())
            self.assertGreaterEqual(after - before, 4, "about one query per hold valid")


if __name__ == "__main__":
    lbd.require()
    unittest.main()
