#!/usr/bin/env python3
"""lbd spreads connections over three tag servers: roundrobin (plain and
weighted), leastconn and source, seen from the client (which server's tag
came back on each connection).

Topology: client 198.18.0.2 (plus .3-.8 for the source test), lb
198.18.0.10 running lbd, s1..s3 198.18.0.11-13 each running tagserver.py
(sends its name, then echoes); IPv6 2001:db8::2, ::10, ::11-13 for the
IPv6 frontend and servers.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_balance.py [-v]
"""

import collections
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

BODY = """
defaults
    mode tcp
    log global
    retries 2
    option redispatch
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout check 1s
    default-server check inter 500ms fall 2 rise 2

frontend rr
    bind 198.18.0.10:6443
    default_backend rr

frontend rrw
    bind 198.18.0.10:6444
    default_backend rrw

frontend lc
    bind 198.18.0.10:6445
    default_backend lc

frontend src
    bind 198.18.0.10:6446
    default_backend src

frontend v6
    bind [2001:db8::10]:6447
    bind 198.18.0.10:6447
    default_backend v6

backend v6
    balance roundrobin
    server s1 [2001:db8::11]:8000
    server s2 [2001:db8::12]:8000
    server s3 [2001:db8::13]:8000

backend rr
    balance roundrobin
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000

backend rrw
    balance roundrobin
    server s1 198.18.0.11:8000 weight 1
    server s2 198.18.0.12:8000 weight 2
    server s3 198.18.0.13:8000 weight 3

backend lc
    balance leastconn
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000

backend src
    balance source
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000
"""

LB = lbd.LB_IP
EXTRA_CLIENTS = ["198.18.0.%d" % i for i in range(3, 9)]


class Balance(unittest.TestCase):

    def test_balance(self):
        with cphatest.Lab("lbd-balance") as lab:
            t = lbd.Topology(lab, v6=True)
            t.add_client_addresses(EXTRA_CLIENTS)
            t.start_tagservers(8000, v6=True)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            for be in ("rr", "rrw", "lc", "src", "v6"):
                lb.wait_all_up(be, settle=0)
            lb.wait_all_up("rr", settle=0.6)  # one inter: every first check done
            c = t.client

            step("roundrobin: 30 sequential connections")
            tags = [lbd.tag_of(c, LB, 6443) for _ in range(30)]
            counts = collections.Counter(tags)
            step("roundrobin counts %s" % dict(sorted(counts.items())))
            self.assertEqual(counts, {"s1": 10, "s2": 10, "s3": 10}, tags)
            # a rotation, not 10 x s1 then 10 x s2 ...
            self.assertTrue(all(tags[i] != tags[i + 1] for i in range(29)), tags)

            step("roundrobin, weights 1/2/3: 60 connections")
            counts = collections.Counter(lbd.tag_of(c, LB, 6444) for _ in range(60))
            step("weighted counts %s" % dict(sorted(counts.items())))
            self.assertEqual(counts, {"s1": 10, "s2": 20, "s3": 30})

            step("leastconn: 9 held connections spread 3/3/3")
            held = [lbd.tag_connect(c, LB, 6445) for _ in range(9)]
            counts = collections.Counter(tag for _, tag in held)
            self.assertEqual(counts, {"s1": 3, "s2": 3, "s3": 3})
            # free one server: close the connections held on s2
            for s, tag in [h for h in held if h[1] == "s2"]:
                s.close()
            held = [h for h in held if h[1] != "s2"]
            cphatest.wait_until(lambda: lb.server("lc", "s2")["current_sessions"] == 0, 3,
                                0.02, "lbd to see s2's sessions end")
            # (a short connection ends a moment after the client closes it:
            # s2 stays the emptiest as long as fewer than 3 linger)
            step("leastconn: s1 and s3 hold 3 each, s2 none: 9 short connections")
            tags = [lbd.tag_of(c, LB, 6445) for _ in range(9)]
            step("leastconn short connections went to %s" % dict(collections.Counter(tags)))
            self.assertEqual(tags, ["s2"] * 9)
            cphatest.wait_until(lambda: lb.server("lc", "s2")["current_sessions"] == 0, 3,
                                0.02, "lbd to see the short sessions end")
            new = [lbd.tag_connect(c, LB, 6445) for _ in range(2)]
            self.assertEqual([tag for _, tag in new], ["s2", "s2"],
                             "the emptiest server takes new held connections")
            held += new
            # every held connection still goes to the server that greeted it
            for i, (s, tag) in enumerate(held):
                self.assertEqual(lbd.echo(s, b"ping %d\n" % i), b"ping %d\n" % i)
                s.close()

            step("source: 7 client addresses x 5 connections")
            mapping = {}
            for ip in [lbd.CLIENT_IP] + EXTRA_CLIENTS:
                seen = {lbd.tag_of(c, LB, 6446, source=ip) for _ in range(5)}
                self.assertEqual(len(seen), 1, "%s went to %s" % (ip, seen))
                mapping[ip] = seen.pop()
            step("source mapping %s" % mapping)
            # the hash spreads addresses (fixed addresses: deterministic)
            self.assertGreaterEqual(len(set(mapping.values())), 2, mapping)
            # and the mapping is stable across other clients' traffic
            for ip in (lbd.CLIENT_IP, EXTRA_CLIENTS[-1]):
                self.assertEqual(lbd.tag_of(c, LB, 6446, source=ip), mapping[ip])

            step("IPv6: servers at 2001:db8::11-13, clients over IPv6 and IPv4")
            for ip in (lbd.LB_IP6, LB):
                tags = [lbd.tag_of(c, ip, 6447) for _ in range(9)]
                step("  via %s: %s" % (ip, dict(collections.Counter(tags))))
                self.assertEqual(collections.Counter(tags), {"s1": 3, "s2": 3, "s3": 3})
            s, tag = lbd.tag_connect(c, lbd.LB_IP6, 6447)
            self.assertEqual(lbd.echo(s, b"over v6\n"), b"over v6\n")
            s.close()
            self.assertTrue(lb.proc.running())


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
