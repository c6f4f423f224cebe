#!/usr/bin/env python3
"""lbd's source-IP stickiness (stick-table type ip + stick on src), seen
from the clients: one client keeps going to the same server while
roundrobin would rotate, another client is balanced on its own; when the
sticky server goes DOWN the client moves to another server and sticks
there; an entry unused for 'expire' leaves the table ('show table').
With `option persist` (HAProxy's forced persistence on down servers) the
client keeps going to its server while that server is in maintenance,
where without it the client moves.

Topology: client 198.18.0.2 and client2 198.18.0.3 (another host), lb
198.18.0.10 running lbd, s1..s3 198.18.0.11-13 each running tagserver.py.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_stick.py [-v]
"""

import re
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step  # noqa: E402

EXPIRE = 3.0

BODY = """
defaults
    mode tcp
    retries 2
    option redispatch
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout check 1s
    default-server check inter 300ms fall 2 rise 2

frontend f
    bind 198.18.0.10:6443
    default_backend b

backend b
    balance roundrobin
    stick-table type ip size 100 expire %ds
    stick on src
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000
""" % int(EXPIRE)

LB = lbd.LB_IP
CLIENT2_IP = "198.18.0.3"


def table(lb):
    """{client address: server id} from 'show table b'."""
    text = lb.admin("show table b")
    if not text.startswith("# table: b, type: ip, size:100, used:"):
        raise AssertionError("show table b: %r" % text)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"key=(\S+) use=\d+ exp=\d+ server_id=(\d+)", text)}


class Stick(unittest.TestCase):

    def test_stick_on_src(self):
        with cphatest.Lab("lbd-stick") as lab:
            t = lbd.Topology(lab)
            client2 = lab.add_host("client2", v4=CLIENT2_IP + "/24")
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            lb.wait_all_up("b", settle=0.4)
            c = t.client

            step("client 1: 6 connections, roundrobin would rotate them")
            tags = [lbd.tag_of(c, LB, 6443) for _ in range(6)]
            first = tags[0]
            self.assertEqual(tags, [first] * 6, "client 1 does not stick")
            self.assertEqual(table(lb), {lbd.CLIENT_IP: int(first[1:])})

            step("client 2 (another host) is balanced: roundrobin's next server")
            tags2 = [lbd.tag_of(client2, LB, 6443) for _ in range(4)]
            second = tags2[0]
            self.assertEqual(tags2, [second] * 4, "client 2 does not stick")
            self.assertNotEqual(second, first, "roundrobin sent both clients to one server")
            self.assertEqual(table(lb), {lbd.CLIENT_IP: int(first[1:]),
                                         CLIENT2_IP: int(second[1:])})
            listing = lb.admin("show table")
            self.assertIn("# table: b, type: ip, size:100, used:2", listing)
            self.assertEqual(lb.admin("show table nosuch").strip(), "No such table")

            step("%s goes DOWN: client 1 moves and sticks to the new server" % first)
            t.procs[first].terminate_and_wait()
            lb.wait_status("b", first, "DOWN", 5)
            moved = [lbd.tag_of(c, LB, 6443) for _ in range(5)]
            self.assertNotEqual(moved[0], first)
            self.assertEqual(moved, [moved[0]] * 5, "client 1 does not stick after the move")
            self.assertEqual(table(lb)[lbd.CLIENT_IP], int(moved[0][1:]))
            # client 2 was not on the failed server: it stays where it was
            self.assertEqual(lbd.tag_of(client2, LB, 6443), second)

            step("%s comes back: client 1 stays on %s" % (first, moved[0]))
            host = [h for h in t.servers if h.name == first]
            t.start_tagservers(8000, hosts=host)
            lb.wait_status("b", first, "UP", 5)
            self.assertEqual(lbd.tag_of(c, LB, 6443), moved[0])
            last_use = time.monotonic()

            step("an entry unused for %gs leaves the table" % EXPIRE)
            cphatest.wait_until(lambda: lbd.CLIENT_IP not in table(lb), EXPIRE + 3, 0.1,
                                "client 1's entry to expire")
            gone = time.monotonic() - last_use
            step("client 1's entry expired %.2fs after its last use" % gone)
            self.assertGreaterEqual(gone, EXPIRE - 0.5)
            self.assertNotIn(CLIENT2_IP, table(lb))
            # a new connection makes a new entry for the server it gets
            tag = lbd.tag_of(c, LB, 6443)
            self.assertEqual(table(lb), {lbd.CLIENT_IP: int(tag[1:])})
            self.assertTrue(lb.proc.running())


class Persist(unittest.TestCase):

    def test_option_persist(self):
        with cphatest.Lab("lbd-persist") as lab:
            t = lbd.Topology(lab)
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, BODY.replace("    stick on src\n",
                                                 "    stick on src\n    option persist\n"))
            lb.start()
            lb.wait_all_up("b", settle=0.4)
            c = t.client
            first = lbd.tag_of(c, LB, 6443)
            self.assertEqual(table(lb), {lbd.CLIENT_IP: int(first[1:])})

            step("%s in maintenance: with option persist client 1 still goes there" % first)
            lb.admin("disable server b/%s" % first)
            lb.wait_status("b", first, "MAINT", 5)
            self.assertEqual([lbd.tag_of(c, LB, 6443) for _ in range(4)], [first] * 4)

            step("a client without an entry is balanced over the others")
            self.assertNotEqual(lbd.tag_of(lab.add_host("client2", v4=CLIENT2_IP + "/24"),
                                           LB, 6443), first)

            step("the same file without option persist: client 1 moves")
            lb.reload(BODY)
            self.assertNotEqual(lbd.tag_of(c, LB, 6443), first)
            self.assertTrue(lb.proc.running())


def main():
    lbd.require()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
